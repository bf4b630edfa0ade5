"""The Grafana dashboard of issue 48, docs/grafana/crawlrank.json. Grafana is not in
Debian 12, so the test reads the JSON model itself: every metric a query names must be one
that `crawlrank dashboard`'s /metrics exports after a real crawl, panels must not overlap,
and the histograms the latency and size panels read must be well formed."""

from __future__ import annotations

import copy
import json
import math
import re
import subprocess
from pathlib import Path

import pytest

from dashboard_util import Dashboard, HostileSite

pytestmark = pytest.mark.needs_crawlrank

DASHBOARD_JSON = Path(__file__).resolve().parents[2] / "docs" / "grafana" / "crawlrank.json"
GRID_COLUMNS = 24

# PromQL words that are not metric names: operators, modifiers, literals.
PROMQL_KEYWORDS = {"and", "or", "unless", "bool", "offset", "by", "without", "on", "ignoring",
                   "group_left", "group_right", "inf", "nan", "atan2"}
# Clauses whose parentheses hold label names, not expressions.
LABEL_LIST = re.compile(r"\b(by|without|on|ignoring|group_left|group_right)\s*\([^)]*\)")
IDENTIFIER = re.compile(r"[A-Za-z_:][A-Za-z0-9_:]*")
LABEL_VALUES = re.compile(r"^\s*label_values\s*\((.*)\)\s*$", re.S)


def metric_names(expr: str) -> set[str]:
    """The metric names a PromQL expression (or a Grafana label_values query) names.

    String literals, label matchers `{...}`, ranges `[...]`, label lists of by/without/on
    and Grafana's `$variables` are dropped; an identifier left that is not followed by `(`
    (a function) and is not a keyword is a metric name."""
    found = LABEL_VALUES.match(expr)
    if found:
        args = found.group(1).rsplit(",", 1)
        return metric_names(args[0]) if len(args) == 2 else set()
    text = re.sub(r'"(?:[^"\\]|\\.)*"|\'(?:[^\'\\]|\\.)*\'|`[^`]*`', '""', expr)
    text = re.sub(r"\{[^}]*\}", " ", text)
    text = re.sub(r"\[[^\]]*\]", " ", text)
    text = LABEL_LIST.sub(" ", text)
    text = re.sub(r"\$\{?\w+\}?", " ", text)
    text = re.sub(r"\b\d[\w.]*(?:[eE][+-]\d+)?", " ", text)  # numbers, 1e-3, 0x10, 5m
    names = set()
    for match in IDENTIFIER.finditer(text):
        word = match.group(0)
        if word.lower() in PROMQL_KEYWORDS or re.match(r"\s*\(", text[match.end():]):
            continue
        names.add(word)
    return names


def all_panels(dashboard: dict) -> list[dict]:
    """Every panel, those inside rows included."""
    out = []
    for panel in dashboard.get("panels", []):
        out.append(panel)
        out.extend(all_panels(panel))
    return out


def queries(dashboard: dict) -> list[tuple[str, str]]:
    """(where, query) for every panel target's expr and every template variable's query."""
    out = []
    for panel in all_panels(dashboard):
        for target in panel.get("targets", []):
            if "expr" in target:
                out.append((f"panel {panel.get('title')!r}", target["expr"]))
    for variable in dashboard.get("templating", {}).get("list", []):
        if variable.get("type") != "query":
            continue
        query = variable.get("query")
        if isinstance(query, dict):
            query = query.get("query", "")
        out.append((f"variable {variable.get('name')!r}", query))
    return out


def unknown_metrics(dashboard: dict, exported: set[str]) -> list[tuple[str, str]]:
    """(where, name) for each metric a query names that /metrics does not export, and
    (where, query) for a query that names no metric at all."""
    problems = []
    for where, query in queries(dashboard):
        names = metric_names(query)
        if not names:
            problems.append((where, f"names no metric: {query}"))
        problems.extend((where, name) for name in sorted(names - exported))
    return problems


def overlaps(dashboard: dict) -> list[tuple[str, str]]:
    """Pairs of panels whose gridPos rectangles share a cell, and panels off the grid."""
    boxes = []
    for panel in all_panels(dashboard):
        pos = panel["gridPos"]
        x, y, w, h = pos["x"], pos["y"], pos["w"], pos["h"]
        boxes.append((panel.get("title"), x, y, x + w, y + h))
    bad = [(title, "off the grid") for title, x0, y0, x1, y1 in boxes
           if x0 < 0 or y0 < 0 or x1 > GRID_COLUMNS or x1 <= x0 or y1 <= y0]
    for i, (a, ax0, ay0, ax1, ay1) in enumerate(boxes):
        for b, bx0, by0, bx1, by1 in boxes[i + 1:]:
            if ax0 < bx1 and bx0 < ax1 and ay0 < by1 and by0 < ay1:
                bad.append((a, b))
    return bad


@pytest.fixture(scope="module")
def metrics(bin_dir, tmp_path_factory) -> list:
    """The metric families of /metrics after a crawl of a tiny local site."""
    parser = pytest.importorskip("prometheus_client.parser")
    db = tmp_path_factory.mktemp("grafana") / "db"
    with HostileSite() as site:
        subprocess.run([str(bin_dir / "crawlrank"), "crawl", str(db), f"http://{site.host}/",
                        "--allow-private", "--delay", "0", "--quiet", "--same-host"],
                       check=True, capture_output=True, timeout=120)
    with Dashboard(bin_dir, db) as dash:
        status, text, _ = dash.get("metrics")
    assert status == 200, text
    return list(parser.text_string_to_metric_families(text))


@pytest.fixture(scope="module")
def exported(metrics) -> set[str]:
    """Every name /metrics exports: sample names (a histogram's _bucket, _sum, _count; a
    counter's _total) and family names."""
    names = {family.name for family in metrics}
    names |= {sample.name for family in metrics for sample in family.samples}
    return names


@pytest.fixture(scope="module")
def dashboard() -> dict:
    return json.loads(DASHBOARD_JSON.read_text())


def samples_of(metrics, name: str) -> list:
    return [s for family in metrics for s in family.samples if s.name == name]


def test_every_metric_named_is_exported(dashboard, exported):
    assert {"crawlrank_fetch_duration_seconds_bucket",
            "crawlrank_response_size_bytes_bucket"} <= exported
    named = set().union(*(metric_names(q) for _, q in queries(dashboard)))
    assert "crawlrank_fetch_duration_seconds_bucket" in named
    assert unknown_metrics(dashboard, exported) == []


def test_a_metric_that_does_not_exist_is_caught(dashboard, exported):
    broken = copy.deepcopy(dashboard)
    target = next(p for p in all_panels(broken) if p.get("targets"))["targets"][0]
    target["expr"] = "rate(crawlrank_no_such_metric[1m])"
    assert ("crawlrank_no_such_metric" in
            [name for _, name in unknown_metrics(broken, exported)])
    # A misspelt name without the prefix, and a variable over a missing metric, too.
    target["expr"] = 'sum by (kind) (rate(crawlrnk_fetch_failures_total{node=~"$node"}[5m]))'
    assert [name for _, name in unknown_metrics(broken, exported)] == \
        ["crawlrnk_fetch_failures_total"]
    target["expr"] = "vector(1)"
    assert len(unknown_metrics(broken, exported)) == 1
    target["expr"] = dashboard["panels"][0]["targets"][0]["expr"]
    node = next(v for v in broken["templating"]["list"] if v["name"] == "node")
    node["query"] = "label_values(crawlrank_nodes, node)"
    assert [name for _, name in unknown_metrics(broken, exported)] == ["crawlrank_nodes"]


def test_metric_names_are_read_from_promql():
    assert metric_names('histogram_quantile(0.99, sum by (le) (rate('
                        'crawlrank_fetch_duration_seconds_bucket{node=~"$node"}[5m])))') == \
        {"crawlrank_fetch_duration_seconds_bucket"}
    assert metric_names("sum without (kind) (irate(a_total[$__rate_interval])) / on (node) "
                        "group_left b + ignoring(x) c offset 5m > bool 1e3") == \
        {"a_total", "b", "c"}
    assert metric_names('count({__name__="x"}) and up') == {"up"}
    assert metric_names("label_values(crawlrank_pages, node)") == {"crawlrank_pages"}
    assert metric_names("label_values(node)") == set()


def test_the_panels_are_laid_out_and_named(dashboard):
    panels = all_panels(dashboard)
    assert len(panels) >= 8
    ids = [p.get("id") for p in panels]
    assert None not in ids and len(set(ids)) == len(ids), ids
    assert all(isinstance(p.get("title"), str) and p["title"].strip() for p in panels)
    assert overlaps(dashboard) == []
    exprs = [q for _, q in queries(dashboard)]
    assert any("histogram_quantile" in q and "crawlrank_fetch_duration_seconds_bucket" in q
               for q in exprs)
    for panel in panels:
        if panel.get("type") != "row":
            assert panel.get("targets"), panel["title"]
            assert panel["datasource"]["uid"] == "${datasource}", panel["title"]
            assert panel["fieldConfig"]["defaults"].get("unit"), panel["title"]


def test_the_templating_picks_a_prometheus_source_and_nodes(dashboard):
    variables = {v["name"]: v for v in dashboard["templating"]["list"]}
    assert variables["datasource"]["type"] == "datasource"
    assert variables["datasource"]["query"] == "prometheus"
    node = variables["node"]
    assert node["type"] == "query" and node["includeAll"] and node["allValue"] == ".*"
    assert node["query"] == "label_values(crawlrank_pages, node)"
    # A PageDB alone exports no node label: the filter must match an absent label.
    assert re.fullmatch(node["allValue"], "")
    for where, query in queries(dashboard):
        for selector in re.findall(r"\{([^}]*)\}", query):
            assert 'node=~"$node"' in selector, (where, query)


def test_the_histograms_agree_with_the_counters(metrics):
    fetches = sum(s.value for s in samples_of(metrics, "crawlrank_pages_fetched_total"))
    assert fetches >= 4  # /, /evil, /q, /missing
    totals = {
        "crawlrank_fetch_duration_seconds":
            samples_of(metrics, "crawlrank_fetch_seconds_total")[0].value,
        "crawlrank_response_size_bytes":
            samples_of(metrics, "crawlrank_received_bytes_total")[0].value,
    }
    for name, total in totals.items():
        [count] = samples_of(metrics, name + "_count")
        [total_sum] = samples_of(metrics, name + "_sum")
        buckets = sorted(((float(s.labels["le"]), s.value)
                          for s in samples_of(metrics, name + "_bucket")))
        assert len(buckets) >= 2 and math.isinf(buckets[-1][0]), buckets
        bounds = [le for le, _ in buckets]
        assert len(set(bounds)) == len(bounds), bounds
        values = [value for _, value in buckets]
        assert values == sorted(values), (name, buckets)
        assert buckets[-1][1] == count.value, (name, buckets, count)
        # Every fetch of `crawlrank crawl` carries its details, so each is in the histogram.
        assert count.value == fetches, (name, count, fetches)
        assert total_sum.value == pytest.approx(total), name
