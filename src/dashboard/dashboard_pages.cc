#include "dashboard/dashboard_pages.h"

#include <algorithm>
#include <cstdio>

#include "crawlrank/clock.h"
#include "dashboard/html.h"

namespace crawlrank::dashboard {
namespace {

// A JSON value as text: numbers as they are, strings escaped, null as "—".
std::string Text(const Json& v) {
  if (v.is_null()) return "\xE2\x80\x94";
  if (v.is_string()) return Escape(v.get<std::string>());
  if (v.is_boolean()) return v.get<bool>() ? "yes" : "no";
  if (v.is_number_float()) {
    char out[32];
    std::snprintf(out, sizeof out, "%.6g", v.get<double>());
    return out;
  }
  return Escape(v.dump());
}

std::string Bytes(const Json& v) {
  if (!v.is_number()) return Text(v);
  double n = v.get<double>();
  const char* units[] = {"B", "KiB", "MiB", "GiB", "TiB"};
  size_t u = 0;
  while (n >= 1024 && u + 1 < std::size(units)) {
    n /= 1024;
    ++u;
  }
  char out[32];
  std::snprintf(out, sizeof out, u == 0 ? "%.0f %s" : "%.1f %s", n, units[u]);
  return out;
}

std::string Time(const Json& ms) {
  if (!ms.is_number() || ms.get<int64_t>() <= 0) return "\xE2\x80\x94";
  return IsoMillis(ms.get<int64_t>());
}

// A cell whose sort key is `v` (a number sorts as one, at full precision: the text shown
// rounds a score to 6 digits).
std::string Cell(const Json& v, const std::string& shown) {
  return "<td data-v=\"" +
         (v.is_number() ? v.dump() : Escape(v.is_string() ? v.get<std::string>() : v.dump())) +
         "\">" + shown + "</td>";
}
std::string Cell(const Json& v) { return Cell(v, Text(v)); }

std::string PageLink(const Json& row) {
  const std::string url = row["url"].get<std::string>();
  return "<a href=\"page?id=" + Text(row["id"]) + "\">" + Escape(url) + "</a>";
}

std::string Layout(std::string_view title, std::string_view active, const std::string& body,
                   bool charts = false) {
  std::string nav;
  for (const auto& [href, name] :
       {std::pair{"./", "Overview"}, std::pair{"recent", "Latest"}, std::pair{"hosts", "Hosts"},
        std::pair{"failures", "Failures"}, std::pair{"broken", "Broken links"},
        std::pair{"top", "Top pages"}, std::pair{"search", "Search"}}) {
    nav += std::string("<a href=\"") + href + "\"" + (name == active ? " class=\"active\"" : "") +
           ">" + name + "</a>";
  }
  return "<!doctype html><html lang=\"en\"><head><meta charset=\"utf-8\">"
         "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">"
         "<title>" + Escape(title) + " \xC2\xB7 crawlrank</title>"
         "<link rel=\"icon\" href=\"data:,\">"  // no /favicon.ico request, no 404 logged
         "<link rel=\"stylesheet\" href=\"static/dashboard.css\">" +
         (charts ? "<script src=\"static/chart.js\" defer></script>" : "") +
         "<script src=\"static/dashboard.js\" defer></script></head><body><header><b>crawlrank</b>"
         "<nav>" + nav + "</nav></header><main><h1>" + Escape(title) + "</h1>" + body +
         "</main></body></html>";
}

// A duration in ms as "1 h 02 min", "3 min 20 s" or "12 s"; null as "—".
std::string Duration(const Json& ms) {
  if (!ms.is_number()) return "\xE2\x80\x94";
  const int64_t s = ms.get<int64_t>() / 1000;
  char out[48];
  if (s >= 3600) {
    std::snprintf(out, sizeof out, "%lld h %02lld min", static_cast<long long>(s / 3600),
                  static_cast<long long>(s / 60 % 60));
  } else if (s >= 60) {
    std::snprintf(out, sizeof out, "%lld min %02lld s", static_cast<long long>(s / 60),
                  static_cast<long long>(s % 60));
  } else {
    std::snprintf(out, sizeof out, "%lld s", static_cast<long long>(s));
  }
  return out;
}

std::string Figure(std::string_view label, const std::string& value, std::string_view id = "") {
  return "<div class=\"figure\"><span>" + std::string(label) + "</span><b" +
         (id.empty() ? "" : " id=\"" + std::string(id) + "\"") + ">" + value + "</b></div>";
}

}  // namespace

std::string OverviewPage(const Json& s, bool charts) {
  const Json& c = s["counters"];
  const Json& last = s["last_sample"];
  std::string body = "<p class=\"path\">" + Text(s["path"]) + " (format " +
                     Text(s["format_version"]) + ")</p>";
  if (const Json& cluster = s["cluster"]; cluster.is_object()) {
    body += "<p class=\"note\" id=\"cluster\">Node " +
            std::to_string(cluster["index"].get<size_t>() + 1) + " of " + Text(cluster["nodes"]) +
            " (" + Text(cluster["node"]) +
            "): this page shows its share of the crawl; the cluster's totals come from every "
            "node's /metrics (docs/cluster.md).</p>";
  }
  const Json& state = s["state"];
  body += "<div class=\"figures\" id=\"figures\">";
  body += Figure("state", "<span class=\"state-" + Text(state["state"]) + "\">" +
                              Text(state["state"]) + "</span>",
                 "f-state");
  body += Figure("elapsed", Duration(state["elapsed_ms"]), "f-elapsed");
  body += Figure("left", Text(state["left"]), "f-left");
  body += Figure("ETA", Duration(state["eta_ms"]), "f-eta");
  body += Figure("pages", Text(s["pages"]), "f-pages");
  body += Figure("crawled", Text(s["crawled_pages"]), "f-crawled");
  body += Figure("failed", Text(c["failed_pages"]), "f-failed");
  body += Figure("links", Text(s["links"]), "f-links");
  body += Figure("fetches", Text(c["fetches"]), "f-fetches");
  body += Figure("failure reports", Text(c["failures"]), "f-failures");
  body += Figure("received", Bytes(c["wire_bytes"]), "f-bytes");
  body += Figure("queued", last.is_null() ? Text(last) : Text(last["queued"]), "f-queued");
  body += Figure("in flight", last.is_null() ? Text(last) : Text(last["in_flight"]), "f-inflight");
  body +=
      "</div><p class=\"note\">Queue figures as of the last progress sample (<span "
      "id=\"f-sampled\">" +
      (last.is_null() ? std::string("none yet") : Time(last["time_ms"])) +
      "</span>); the page refreshes every 5 s.</p>";
  body += "<h2>Fetches by status class</h2><table><tr>";
  for (const auto& [name, n] : c["fetches_by_class"].items()) body += "<th>" + Escape(name) + "</th>";
  body += "</tr><tr>";
  for (const auto& [name, n] : c["fetches_by_class"].items()) {
    body += "<td id=\"f-class-" + Escape(name) + "\">" + Text(n) + "</td>";
  }
  body += "</tr></table><h2>Progress</h2>";
  body += charts ? "<div id=\"charts\" class=\"charts\"></div>"
                 : "<p class=\"note\">Charts need Chart.js (Debian's libjs-chart.js).</p>";
  body += "<h2>Stored configuration</h2><p class=\"note\">What a resumed crawl applies "
          "(docs/crawler.md, \"Stored configuration\").</p><table id=\"config\">";
  for (const auto& [key, value] : s["config"].items()) {
    body += "<tr><th>" + Escape(key) + "</th><td>" + Text(value) + "</td></tr>";
  }
  body += "</table>";
  return Layout("Overview", "Overview", body, charts);
}

namespace {

// Links to the hosts before and after those shown, in the same order.
std::string HostsPaging(const Json& h, const HostsQuery& q) {
  const size_t total = h["hosts"].get<size_t>();
  const size_t shown = h["rows"].size();
  const size_t page = std::max<size_t>(1, h["limit"].get<size_t>());
  const auto link = [&](size_t offset, const std::string& label) {
    return "<a href=\"hosts?sort=" + Escape(q.sort) + "&amp;order=" +
           (q.descending ? "desc" : "asc") + "&amp;offset=" + std::to_string(offset) +
           "\">" + label + "</a>";
  };
  std::string links;
  if (q.offset > 0) links += link(q.offset - std::min(q.offset, page), "&larr; previous");
  if (q.offset + shown < total) {
    links += (links.empty() ? "" : " &middot; ") + link(q.offset + shown, "next &rarr;");
  }
  return links.empty() ? "" : "<p class=\"paging\">" + links + "</p>";
}

}  // namespace

std::string HostsPage(const Json& h, const HostsQuery& q) {
  std::string body = "<p>" + Text(h["hosts"]) + " hosts; sorted by " + Escape(q.sort) +
                     (q.descending ? ", largest first" : ", smallest first") + ", from " +
                     std::to_string(q.offset) + ". Click a column to sort the rows shown; " +
                     "<a href=\"hosts?sort=to_do\">most to do</a>, "
                     "<a href=\"hosts?sort=failures\">most failures</a>.</p>"
                     "<table class=\"sortable\"><thead><tr>";
  for (const char* th : {"host", "pages", "crawled", "to do", "failed", "in flight", "fetches",
                         "2xx", "4xx", "5xx", "failure reports", "received", "delay ms",
                         "held until", "robots.txt"}) {
    body += std::string("<th>") + th + "</th>";
  }
  body += "</tr></thead><tbody>";
  for (const Json& r : h["rows"]) {
    const Json& by_class = r["fetches_by_class"];
    body += "<tr>" + Cell(r["host"], "<a href=\"host?name=" + Escape(r["host"].get<std::string>()) +
                                          "\">" + Text(r["host"]) + "</a>") +
            Cell(r["pages"]) + Cell(r["crawled_pages"]) +
            Cell(r["to_do"], r["in_scope"].get<bool>() ? Text(r["to_do"]) : "0 (out of scope)") +
            Cell(r["failed_pages"]) + Cell(r["in_flight"]) + Cell(r["fetches"]) +
            Cell(by_class["2xx"]) + Cell(by_class["4xx"]) + Cell(by_class["5xx"]) +
            Cell(r["failures"]) + Cell(r["wire_bytes"], Bytes(r["wire_bytes"])) +
            Cell(r["delay_ms"]) + Cell(r["hold_until_ms"], Time(r["hold_until_ms"])) +
            Cell(r["robots_bytes"], r["robots_bytes"].get<uint64_t>() > 0 ? "kept" : "none") +
            "</tr>";
  }
  body += "</tbody></table>" + HostsPaging(h, q);
  return Layout("Hosts", "Hosts", body);
}

std::string FailuresPage(const Json& f, std::string_view kind, std::string_view host) {
  std::string body = "<p>" + Text(f["failed"]) + " pages failed for good" +
                     (kind.empty() ? "" : ", kind " + Escape(kind)) +
                     (host.empty() ? "" : ", host " + Escape(host)) +
                     "; newest first. <code>crawlrank requeue</code> puts them back.</p>"
                     "<table class=\"sortable\"><thead><tr><th>url</th><th>kind</th>"
                     "<th>detail</th><th>status</th><th>attempts</th><th>when</th></tr></thead><tbody>";
  for (const Json& r : f["rows"]) {
    body += "<tr>" + Cell(r["url"], PageLink(r)) +
            Cell(r["kind"], "<a href=\"failures?kind=" + Text(r["kind"]) + "\">" + Text(r["kind"]) +
                                "</a>") +
            Cell(r["detail"]) + Cell(r["http_status"]) + Cell(r["attempts"]) +
            Cell(r["failed_ms"], Time(r["failed_ms"])) + "</tr>";
  }
  body += "</tbody></table>";
  return Layout("Failures", "Failures", body);
}

std::string TopPage(const Json& t, bool charts) {
  std::string body = "<p>By " + Text(t["algorithm"]) + ", computed " + Time(t["created_ms"]) +
                     " (" + std::to_string(t["age_ms"].get<int64_t>() / 1000) + " s ago) over " +
                     Text(t["pages"]) + " pages; the PageDB has " + Text(t["pages_now"]) +
                     " now.</p><table class=\"sortable\"><thead><tr><th>#</th><th>url</th>"
                     "<th>score</th><th>crawled</th><th>status</th></tr></thead><tbody>";
  int rank = 0;
  for (const Json& r : t["rows"]) {
    body += "<tr>" + Cell(Json(++rank)) + Cell(r["url"], PageLink(r)) + Cell(r["score"]) +
            Cell(r["crawled"]) +
            Cell(r["http_status"], r["http_status"].get<int>() == 0 ? "&mdash;" : Text(r["http_status"])) +
            "</tr>";
  }
  body += "</tbody></table><h2>Distribution and guidance</h2><p class=\"note\">Left: pages "
          "by score (log-log). Right: the share of this rank's mass on the pages fetched, "
          "against pages fetched in the order the crawl first fetched them, beside the "
          "best possible order.</p>";
  body += charts ? "<div id=\"histogram\" class=\"charts\" data-algorithm=\"" + Text(t["algorithm"]) +
                       "\"></div>"
                 : "<p class=\"note\">Charts need Chart.js (Debian's libjs-chart.js).</p>";
  return Layout("Top pages", "Top pages", body, charts);
}

std::string PagePage(const Json& p) {
  std::string body;
  const std::string url = p["url"].get<std::string>();
  const std::string href = SafeHref(url);
  body += "<p class=\"url\">" + (href.empty() ? Escape(url)
                                              : "<a rel=\"noreferrer nofollow\" href=\"" + href +
                                                    "\">" + Escape(url) + "</a>") + "</p>";
  body += "<table>";
  for (const char* key : {"id", "depth", "crawls", "changes", "http_status", "errors",
                          "link_score", "content_score"}) {
    body += std::string("<tr><th>") + key + "</th><td>" + Text(p[key]) + "</td></tr>";
  }
  body += "<tr><th>first crawl</th><td>" + Time(p["first_crawl_ms"]) + "</td></tr>";
  body += "<tr><th>last crawl</th><td>" + Time(p["last_crawl_ms"]) + "</td></tr>";
  if (!p["fetch"].is_null()) {
    const Json& f = p["fetch"];
    body += "<tr><th>title</th><td>" + Text(f["title"]) + "</td></tr>";
    body += "<tr><th>content type</th><td>" + Text(f["content_type"]) + "</td></tr>";
    body += "<tr><th>received</th><td>" + Bytes(f["wire_bytes"]) + " (" +
            Bytes(f["decoded_bytes"]) + " decoded) in " + Text(f["fetch_ms"]) + " ms</td></tr>";
  }
  body += "</table><h2>Out-links (" + Text(p["out_links"]) + ")</h2><ul>";
  for (const Json& l : p["links"]) {
    body += "<li>" + PageLink(l) + (l["crawled"].get<bool>() ? "" : " <i>not crawled</i>") + "</li>";
  }
  body += "</ul><h2>In-links (" + Text(p["in_links"]) + ")</h2><ul>";
  for (const Json& l : p["linked_from"]) {
    body += "<li>" + PageLink(l) + (l["crawled"].get<bool>() ? "" : " <i>not crawled</i>") + "</li>";
  }
  body += "</ul>";
  return Layout("Page " + std::to_string(p["id"].get<uint32_t>()), "", body);
}

std::string RecentPage(const Json& r) {
  std::string body =
      "<p>The latest fetches and failures, newest first; new ones appear at the top as the "
      "crawl records them (every second). The PageDB keeps the last 1,024.</p>"
      "<table class=\"sortable\" id=\"recent\" data-latest=\"" + Text(r["latest"]) +
      "\"><thead><tr><th>when</th><th>url</th><th>status</th><th>bytes</th><th>ms</th>"
      "<th>type</th><th>referrer</th><th>failure</th></tr></thead><tbody>";
  for (const Json& f : r["rows"]) {
    const std::string referrer = f["referrer"].is_null() ? Text(f["referrer"])
                                                         : Escape(f["referrer"].get<std::string>());
    body += "<tr data-seq=\"" + Text(f["seq"]) + "\">" + Cell(f["time_ms"], Time(f["time_ms"])) +
            Cell(f["url"], PageLink(f)) + Cell(f["http_status"]) +
            Cell(f["decoded_bytes"], Bytes(f["decoded_bytes"])) + Cell(f["fetch_ms"]) +
            Cell(f["content_type"]) + Cell(f["referrer"], referrer) + Cell(f["failure"]) + "</tr>";
  }
  body += "</tbody></table>";
  return Layout("Latest fetches", "Latest", body);
}

std::string SearchPage(const Json& r, std::string_view query) {
  std::string body = "<form action=\"search\" method=\"get\"><input name=\"q\" id=\"q\" "
                     "size=\"60\" placeholder=\"a URL or a part of one\" value=\"" +
                     Escape(query) + "\"> <button type=\"submit\">Search</button></form>";
  if (r.is_null()) return Layout("Search", "Search", body);
  body += "<p id=\"matches\">" + Text(r["matches"]) + " pages match" +
          (r["matches"].get<uint64_t>() > r["rows"].size()
               ? "; the first " + std::to_string(r["rows"].size()) + " are shown"
               : "") +
          ".</p>";
  for (const Json& p : r["rows"]) {
    body += "<section class=\"match\"><h2>" + PageLink(p) + "</h2><table>";
    const auto row = [&](std::string_view label, const std::string& value) {
      body += "<tr><th>" + std::string(label) + "</th><td>" + value + "</td></tr>";
    };
    row("state", "<span class=\"standing\">" + Text(p["state"]) + "</span>");
    row("status", Text(p["http_status"]));
    row("crawls", Text(p["crawls"]) + (p["crawls"].get<uint64_t>() > 0
                                           ? ", last " + Time(p["last_crawl_ms"])
                                           : ""));
    if (!p["failure"].is_null()) {
      const Json& f = p["failure"];
      row("failure", Text(f["kind"]) + ": " + Text(f["detail"]) + " (" + Text(f["attempts"]) +
                         " attempts, " + Time(f["failed_ms"]) + ")");
    }
    if (!p["fetch"].is_null()) {
      const Json& f = p["fetch"];
      row("last fetch", Text(f["title"]) + " &middot; " + Text(f["content_type"]) + " &middot; " +
                            Bytes(f["wire_bytes"]) + " in " + Text(f["fetch_ms"]) + " ms");
    }
    row("links", "<span class=\"links-out\">" + Text(p["out_links"]) + "</span> out, " +
                     "<span class=\"links-in\">" + Text(p["in_links"]) + "</span> in");
    row("found from", Text(p["referrer"]));
    std::string ranks;
    for (const auto& [name, score] : p["ranks"].items()) {
      ranks += (ranks.empty() ? "" : ", ") + Escape(name) + " " + Text(score);
    }
    row("ranks", ranks.empty() ? "none stored" : ranks);
    const Json& robots = p["robots"];
    row("robots.txt", robots.is_null()
                          ? std::string("none kept for its origin")
                          : (robots["allowed"].get<bool>() ? "allowed" : "disallowed") +
                                std::string(" by ") +
                                (robots["rule"].is_null() ? "no rule" : Text(robots["rule"])) +
                                " (" + Text(robots["origin"]) + ")");
    body += "</table></section>";
  }
  return Layout("Search", "Search", body);
}

std::string BrokenPage(const Json& b) {
  std::string body = "<p>" + Text(b["broken"]) +
                     " pages answered 4xx or 5xx (crawled, or failed for good after their "
                     "retries), most linked first. <a href=\"broken.csv\" download>Every one "
                     "as CSV</a> (a line per linking page).</p><table class=\"sortable\" "
                     "id=\"broken\"><thead><tr><th>url</th><th>status</th><th>state</th>"
                     "<th>linked from</th><th>linking pages</th></tr></thead><tbody>";
  for (const Json& r : b["rows"]) {
    std::string from;
    for (const Json& l : r["referrers"]) from += (from.empty() ? "" : "<br>") + PageLink(l);
    body += "<tr>" + Cell(r["url"], PageLink(r)) + Cell(r["http_status"]) + Cell(r["state"]) +
            Cell(r["referrer_count"]) + Cell(Json(from.empty() ? "" : "x"), from) + "</tr>";
  }
  body += "</tbody></table>";
  return Layout("Broken links", "Broken links", body);
}

std::string HostPage(const Json& h) {
  std::string body = "<table>";
  for (const char* key : {"pages", "crawled_pages", "failed_pages", "fetches", "failures",
                          "delay_ms", "crawl_delay_ms", "page_limit", "group"}) {
    body += std::string("<tr><th>") + key + "</th><td>" + Text(h[key]) + "</td></tr>";
  }
  body += "<tr><th>received</th><td>" + Bytes(h["wire_bytes"]) + "</td></tr>";
  body += "<tr><th>held until</th><td id=\"held\">" + Time(h["hold_until_ms"]) +
          (h["held"].get<bool>() ? " (held now)" : "") + "</td></tr></table>";
  body += "<p><a href=\"failures?host=" + Escape(h["host"].get<std::string>()) +
          "\">Its failures</a></p><h2>robots.txt as kept</h2>";
  if (h["robots"].empty()) body += "<p class=\"note\">None kept (not fetched yet, or a front end "
                                    "that fetches its own).</p>";
  for (const Json& r : h["robots"]) {
    body += "<h3>" + Text(r["origin"]) + "/robots.txt</h3><p>status " + Text(r["status"]) +
            ", fetched " + Time(r["fetched_ms"]) + ", kept until " + Time(r["expires_ms"]) +
            (r["usable"].get<bool>() ? "" : "; unusable: " + Text(r["detail"])) +
            (r["crawl_delay_ms"].is_null() ? "" : "; Crawl-delay " + Text(r["crawl_delay_ms"]) + " ms") +
            "</p><pre class=\"robots\">";
    if (r["rules"].empty()) body += "(no rule: everything allowed)\n";
    for (const Json& rule : r["rules"]) {
      body += std::string(rule["allow"].get<bool>() ? "Allow: " : "Disallow: ") + Text(rule["pattern"]) + "\n";
    }
    for (const Json& s : r["sitemaps"]) body += "Sitemap: " + Text(s) + "\n";
    body += "</pre>";
  }
  return Layout("Host " + h["host"].get<std::string>(), "Hosts", body);
}

std::string ErrorPage(std::string_view title, std::string_view message) {
  return Layout(title, "", "<p class=\"error\">" + Escape(message) + "</p>");
}

}  // namespace crawlrank::dashboard
