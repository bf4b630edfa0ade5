// The dashboard's script and style sheet, served as /static/dashboard.js and
// /static/dashboard.css. The script writes data into the page with textContent only
// (never as markup), and draws the charts with Chart.js on linear axes (no date adapter
// is packaged: times are minutes since the first sample).
#include "dashboard/dashboard_pages.h"

namespace crawlrank::dashboard {
namespace {

constexpr std::string_view kScript = R"JS('use strict';
(function () {
  // Tables sort on a click of their header: numbers by value, the rest as text.
  function sortable(table) {
    const heads = table.querySelectorAll('thead th');
    heads.forEach(function (th, column) {
      th.addEventListener('click', function () {
        const body = table.tBodies[0];
        const descending = th.dataset.order !== 'desc';
        heads.forEach(function (h) { delete h.dataset.order; });
        th.dataset.order = descending ? 'desc' : 'asc';
        const rows = Array.from(body.rows);
        rows.sort(function (a, b) {
          const x = a.cells[column].dataset.v, y = b.cells[column].dataset.v;
          const nx = Number(x), ny = Number(y);
          const c = (x !== '' && y !== '' && !isNaN(nx) && !isNaN(ny)) ? nx - ny
                                                                       : String(x).localeCompare(String(y));
          return descending ? -c : c;
        });
        rows.forEach(function (r) { body.appendChild(r); });
      });
    });
  }
  document.querySelectorAll('table.sortable').forEach(sortable);

  function bytes(n) {
    const units = ['B', 'KiB', 'MiB', 'GiB', 'TiB'];
    let u = 0;
    while (n >= 1024 && u + 1 < units.length) { n /= 1024; u++; }
    return (u === 0 ? n.toFixed(0) : n.toFixed(1)) + ' ' + units[u];
  }
  // As the server writes a duration (dashboard_pages.cc, Duration).
  function duration(ms) {
    if (typeof ms !== 'number') return '\u2014';
    const s = Math.floor(ms / 1000);
    const two = function (n) { return (n < 10 ? '0' : '') + n; };
    if (s >= 3600) return Math.floor(s / 3600) + ' h ' + two(Math.floor(s / 60) % 60) + ' min';
    if (s >= 60) return Math.floor(s / 60) + ' min ' + two(s % 60) + ' s';
    return s + ' s';
  }
  function set(id, text) {
    const e = document.getElementById(id);
    if (e) e.textContent = text;
  }

  // A line's points are drawn while there are few: a rate over the first two samples is
  // a single point, which a line alone would not show.
  function radius(points) { return points.length < 30 ? 2 : 0; }
  const charts = {};
  function lineChart(box, key, label, points) {
    if (!charts[key]) {
      const figure = document.createElement('figure');
      const canvas = document.createElement('canvas');
      const caption = document.createElement('figcaption');
      caption.textContent = label;
      figure.appendChild(canvas);
      figure.appendChild(caption);
      box.appendChild(figure);
      charts[key] = new Chart(canvas, {
        type: 'line',
        data: { datasets: [{ label: label, data: points, pointRadius: radius(points),
                             borderWidth: 1.5, borderColor: '#2b6cb0',
                             backgroundColor: '#2b6cb0' }] },
        options: { animation: false, parsing: false, maintainAspectRatio: false,
                   plugins: { legend: { display: false } },
                   scales: { x: { type: 'linear', min: 0,
                                  title: { display: true, text: 'minutes' } },
                             y: { beginAtZero: true } } }
      });
    } else {
      charts[key].data.datasets[0].data = points;
      charts[key].data.datasets[0].pointRadius = radius(points);
      charts[key].update();
    }
  }

  // The progress charts: rates between consecutive samples, and the queue.
  function drawProgress(samples) {
    const box = document.getElementById('charts');
    if (!box || typeof Chart === 'undefined' || samples.length === 0) return;
    const t0 = samples[0].time_ms;
    const at = function (s) { return (s.time_ms - t0) / 60000; };
    // Samples come every 10 s while a crawl runs: a longer silence is a crawl stopped and
    // resumed, drawn as a gap (a null point breaks Chart.js's line), not as a slope.
    const stopped = function (i) { return samples[i].time_ms - samples[i - 1].time_ms > 30000; };
    const rate = function (field) {
      const out = [];
      for (let i = 1; i < samples.length; i++) {
        const dt = (samples[i].time_ms - samples[i - 1].time_ms) / 1000;
        if (stopped(i)) {
          out.push({ x: at(samples[i]), y: null });
        } else if (dt > 0) {
          out.push({ x: at(samples[i]), y: (samples[i][field] - samples[i - 1][field]) / dt });
        }
      }
      return out;
    };
    const level = function (field) {
      const out = [];
      for (let i = 0; i < samples.length; i++) {
        if (i > 0 && stopped(i)) out.push({ x: (at(samples[i - 1]) + at(samples[i])) / 2, y: null });
        out.push({ x: at(samples[i]), y: samples[i][field] });
      }
      return out;
    };
    lineChart(box, 'pages', 'pages fetched per second', rate('fetches'));
    lineChart(box, 'queue', 'pages queued', level('queued'));
    lineChart(box, 'flight', 'pages in flight', level('in_flight'));
    lineChart(box, 'errors', 'failures per second', rate('failures'));
    lineChart(box, 'bytes', 'bytes received per second', rate('wire_bytes'));
  }

  // The figures shown were asked for at figures.dataset.asOf (ms since the epoch); an
  // answer older than them (requests overtaking one another) is dropped.
  function refresh() {
    const asked = Date.now();
    fetch('api/summary').then(function (r) { return r.json(); }).then(function (s) {
      const figures = document.getElementById('figures');
      if (Number(figures.dataset.asOf || 0) > asked) return;
      const c = s.counters;
      set('f-pages', s.pages);
      set('f-crawled', s.crawled_pages);
      set('f-failed', c.failed_pages);
      set('f-links', s.links);
      set('f-fetches', c.fetches);
      set('f-failures', c.failures);
      set('f-bytes', bytes(c.wire_bytes));
      const st = s.state;
      const state = document.querySelector('#f-state span');
      if (state) { state.textContent = st.state; state.className = 'state-' + st.state; }
      set('f-elapsed', duration(st.elapsed_ms));
      set('f-left', st.left);
      set('f-eta', duration(st.eta_ms));
      Object.keys(c.fetches_by_class).forEach(function (k) {
        set('f-class-' + k, c.fetches_by_class[k]);
      });
      if (s.last_sample) {
        set('f-queued', s.last_sample.queued);
        set('f-inflight', s.last_sample.in_flight);
        set('f-sampled', new Date(s.last_sample.time_ms).toISOString());
      }
      figures.dataset.asOf = asked;
    }).catch(function () {});
    fetch('api/progress').then(function (r) { return r.json(); })
      .then(function (p) { drawProgress(p.samples); }).catch(function () {});
  }
  if (document.getElementById('figures')) {
    refresh();
    setInterval(refresh, 5000);
  }

  // The latest fetches: rows the server added since the newest shown go on top, each cell
  // written as text; the table keeps its last 1,024 rows.
  const recent = document.getElementById('recent');
  function cell(row, text, sortKey) {
    const td = document.createElement('td');
    td.textContent = text === null || text === undefined || text === '' ? '\u2014' : String(text);
    td.dataset.v = sortKey === undefined ? (text === null ? '' : String(text)) : String(sortKey);
    row.appendChild(td);
    return td;
  }
  function tail() {
    fetch('api/recent?n=1024&after=' + encodeURIComponent(recent.dataset.latest || '0'))
      .then(function (r) { return r.json(); }).then(function (t) {
        const body = recent.tBodies[0];
        const rows = t.rows.slice().reverse();  // oldest first, each inserted on top
        rows.forEach(function (f) {
          if (Number(f.seq) <= Number(recent.dataset.latest || 0)) return;
          const tr = document.createElement('tr');
          tr.dataset.seq = f.seq;
          cell(tr, new Date(f.time_ms).toISOString(), f.time_ms);
          const link = document.createElement('a');
          link.href = 'page?id=' + encodeURIComponent(f.id);
          link.textContent = f.url;
          cell(tr, '', f.url).replaceChildren(link);
          cell(tr, f.http_status);
          cell(tr, bytes(f.decoded_bytes), f.decoded_bytes);
          cell(tr, f.fetch_ms);
          cell(tr, f.content_type);
          cell(tr, f.referrer);
          cell(tr, f.failure);
          body.insertBefore(tr, body.firstChild);
          recent.dataset.latest = f.seq;
        });
        while (body.rows.length > 1024) body.deleteRow(body.rows.length - 1);
      }).catch(function () {});
  }
  if (recent) setInterval(tail, 1000);

  // The rank distribution, log-log.
  const histogram = document.getElementById('histogram');
  if (histogram && typeof Chart !== 'undefined') {
    fetch('api/top?n=1&by=' + encodeURIComponent(histogram.dataset.algorithm))
      .then(function (r) { return r.json(); }).then(function (t) {
        const figure = document.createElement('figure');
        const canvas = document.createElement('canvas');
        figure.appendChild(canvas);
        histogram.appendChild(figure);
        const curve = document.createElement('figure');
        const curveCanvas = document.createElement('canvas');
        curve.appendChild(curveCanvas);
        histogram.appendChild(curve);
        const points = t.guidance.points;
        new Chart(curveCanvas, {
          type: 'line',
          data: { datasets: [
            { label: 'this crawl', borderColor: '#2b6cb0', pointRadius: 0,
              data: points.map(function (p) { return { x: p.pages, y: p.share }; }) },
            { label: 'best order', borderColor: '#a0aec0', borderDash: [4, 4], pointRadius: 0,
              data: points.map(function (p) { return { x: p.pages, y: p.ideal }; }) }] },
          options: { animation: false, parsing: false, maintainAspectRatio: false,
                     scales: { x: { type: 'linear', title: { display: true, text: 'pages fetched' } },
                               y: { min: 0, max: 1, title: { display: true, text: 'share of the rank' } } } }
        });
        new Chart(canvas, {
          type: 'scatter',
          data: { datasets: [{ data: t.histogram.bins.map(function (b) { return { x: b.score, y: b.pages }; }),
                               pointRadius: 2, borderColor: '#2b6cb0' }] },
          options: { animation: false, parsing: false, maintainAspectRatio: false,
                     plugins: { legend: { display: false } },
                     scales: { x: { type: 'logarithmic', title: { display: true, text: 'score' } },
                               y: { type: 'logarithmic', title: { display: true, text: 'pages' } } } }
        });
      }).catch(function () {});
  }
})();
)JS";

constexpr std::string_view kStyle = R"CSS(*{box-sizing:border-box}
body{margin:0;font:14px/1.4 system-ui,sans-serif;color:#1a202c;background:#f7fafc}
header{display:flex;gap:1.5em;align-items:center;padding:.6em 1em;background:#1a365d;color:#fff}
header nav a{color:#cbd5e0;margin-right:1em;text-decoration:none}
header nav a.active{color:#fff;font-weight:bold}
main{padding:1em;max-width:100%;overflow-wrap:anywhere}
h1{font-size:1.4em;margin:.2em 0 .6em}
h2{font-size:1.1em;margin:1.2em 0 .4em}
.figures{display:flex;flex-wrap:wrap;gap:.6em}
.figure{background:#fff;border:1px solid #e2e8f0;border-radius:4px;padding:.4em .8em;min-width:8em}
.figure span{display:block;color:#4a5568;font-size:.85em}
.figure b{font-size:1.3em}
.note,.path{color:#4a5568}
.error{color:#c53030}
table{border-collapse:collapse;background:#fff;max-width:100%;table-layout:auto}
th,td{border:1px solid #e2e8f0;padding:.25em .5em;text-align:left;vertical-align:top}
td{overflow-wrap:anywhere;word-break:break-word}
thead th{background:#edf2f7;cursor:pointer;white-space:nowrap}
thead th[data-order=desc]::after{content:" \25BC"}
thead th[data-order=asc]::after{content:" \25B2"}
.charts{display:flex;flex-wrap:wrap;gap:1em}
.charts figure{margin:0;width:min(420px,100%);height:220px;background:#fff;border:1px solid #e2e8f0;padding:.4em .4em 1.6em}
figcaption{text-align:center;color:#4a5568;font-size:.85em}
.url{overflow-wrap:anywhere}
.state-running{color:#2f855a}.state-stopped{color:#c05621}.state-finished{color:#2b6cb0}
header{flex-wrap:wrap}
.match h2{font-size:1em}
pre.robots{background:#fff;border:1px solid #e2e8f0;padding:.5em;white-space:pre-wrap;overflow-wrap:anywhere}
input[name=q]{max-width:100%}
)CSS";

}  // namespace

std::string_view DashboardScript() { return kScript; }
std::string_view DashboardStyle() { return kStyle; }

}  // namespace crawlrank::dashboard
