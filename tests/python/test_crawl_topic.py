"""Topical crawls on the doc graph (issue #28, docs/benchmarks.md "Topical crawls"): the
scores benchmarks/doc_suite.py --keywords gives Python's manual for the asyncio topic, and
the harvest rates crawlrank_simulate --scores --relevant reports from them.

Independent expectations: each page's content score recomputed from an lxml parse of its
file (the share of the keyword words in its text); the graph the same with and without
keywords; every harvest curve recomputed from the fetch order the simulator writes; the
link-score order checked by the simulator against its independent replay, which reads the
same link scores."""

from __future__ import annotations

import json
import pathlib
import re
import subprocess
import urllib.parse

import pytest
from doc_graph_util import DOCS, ROOT, mention_order, python_graph, read_graph, replay, simulator

TOPIC = ROOT / "benchmarks" / "topics"
BASE = "http://python.docs.local/"


def keyword_words(path: pathlib.Path) -> set[str]:
    words = set()
    for line in path.read_text().splitlines():
        words |= {w.lower() for w in re.findall(r"\w+", line.split("#", 1)[0])}
    return words


@pytest.fixture(scope="module")
def topic(bin_dir, tmp_path_factory):
    simulate = simulator(bin_dir)
    tmp = tmp_path_factory.mktemp("topic")
    python_graph(tmp / "plain.txt")
    seeds = python_graph(tmp / "graph.txt", "--keywords", str(TOPIC / "asyncio.keywords"),
                         "--scores", str(tmp / "scores"))
    subprocess.run([str(simulate), str(tmp / "graph.txt"), "--seeds", seeds, "--name", "asyncio",
                    "--modes", "topical,link-score,breadth-first,ppr,blend", "--replay", "oracle,topic-oracle",
                    "--scores", str(tmp / "scores"), "--relevant", str(TOPIC / "asyncio.relevant"),
                    "--json-file", str(tmp / "out.json"), "--orders-dir", str(tmp / "orders")],
                   check=True, capture_output=True, timeout=300)
    return tmp, json.loads((tmp / "out.json").read_text()), seeds.split(",")


def test_keywords_leave_the_graph_as_it_was(topic):
    tmp, _, _ = topic
    assert (tmp / "graph.txt").read_text() == (tmp / "plain.txt").read_text()


def test_content_scores_are_the_keyword_share_of_each_pages_text(topic):
    import lxml.html

    tmp, _, _ = topic
    keywords = keyword_words(TOPIC / "asyncio.keywords")
    got = {}
    for line in (tmp / "scores").read_text().splitlines():
        fields = line.split()
        if line.startswith("#") or len(fields) != 2:
            continue
        got[fields[0]] = float(fields[1])
    text_nodes = "//text()[not(parent::script) and not(parent::style)]"
    checked = 0
    for path in sorted(DOCS.glob("library/a*.html")) + [DOCS / "index.html"]:
        tree = lxml.html.fromstring(path.read_bytes().decode("utf-8", "replace"))
        words = {w.lower() for w in re.findall(r"\w+", " ".join(tree.xpath(text_nodes)))}
        expected = len(keywords & words) / len(keywords)
        url = BASE + urllib.parse.quote(str(path.relative_to(DOCS)))
        assert got.get(url, 0.0) == pytest.approx(expected, abs=1e-5), url
        checked += 1
    assert checked > 20
    # The topic's own pages score high, and every score is a share.
    assert got[BASE + "library/asyncio-task.html"] >= 0.75
    assert all(0 < v <= 1 for v in got.values())


def test_harvest_curves_are_the_relevant_share_of_each_fetch_order(topic):
    tmp, result, _ = topic
    assert result["graph"]["reachable"] == 526
    for mode in result["modes"]:
        order = (tmp / "orders" / f"{mode['mode']}.txt").read_text().split()
        relevant = [url.startswith(BASE + "library/asyncio") for url in order]
        assert sum(relevant) == 17
        reachable = result["graph"]["reachable"]
        expected = []
        for k in range(1, 101):
            n = int(reachable * k / 100 + 0.5)  # llround of a positive value
            expected.append(sum(relevant[:n]) / n)
        assert mode["harvest_curve"] == pytest.approx(expected, abs=1e-6), mode["mode"]
        assert mode["harvest_auc"] == pytest.approx(sum(expected) / 100, abs=1e-6)
        assert mode["anomalies"] == [], mode["mode"]


def test_best_first_on_link_scores_finds_the_topic_before_breadth_first(topic):
    _, result, _ = topic
    modes = {m["mode"]: m for m in result["modes"]}
    # The simulator replayed link-score from the same scores file (no anomaly above).
    assert modes["link-score"]["harvest_curve"][9] > modes["breadth-first"]["harvest_curve"][9]
    assert modes["link-score"]["harvest_auc"] > modes["breadth-first"]["harvest_auc"]


def test_topical_is_best_first_with_better_ties(topic):
    """The topical mode keeps best-first's key and breaks its ties (docs/scheduler.md,
    "Topical crawls"): after the first 2% of the crawl it never harvests less than
    best-first on link scores."""
    _, result, _ = topic
    modes = {m["mode"]: m for m in result["modes"]}
    topical, best_first = modes["topical"]["harvest_curve"], modes["link-score"]["harvest_curve"]
    print("topical", topical[:10], modes["topical"]["harvest_auc"])
    print("link-score", best_first[:10], modes["link-score"]["harvest_auc"])
    assert all(t >= b - 1e-9 for t, b in zip(topical[2:], best_first[2:]))
    assert modes["topical"]["harvest_auc"] >= modes["link-score"]["harvest_auc"] - 1e-9


def test_the_topic_oracle_fetches_the_relevant_pages_first_among_those_discovered(topic):
    """The topic oracle (sim_orders.h) is the greedy reference for harvest: replayed here
    from its definition, the relevant pages first among those discovered, then discovery
    order, one page at a time (the doc graph's batch)."""
    tmp, result, seeds = topic
    edges, g = read_graph(tmp / "graph.txt")
    relevant = {u: 1.0 if u.startswith(BASE + "library/asyncio") else 0.0 for u in g}
    expected = replay(g, mention_order(edges), seeds, relevant.get, lambda u, v: None)
    got = (tmp / "orders" / "topic-oracle.txt").read_text().split()
    assert got == expected
    # It fetches the 17 pages as soon as each is discovered, and no order harvests more
    # over the whole crawl here.
    modes = {m["mode"]: m for m in result["modes"]}
    oracle_auc = modes["topic-oracle"]["harvest_auc"]
    print({name: m["harvest_auc"] for name, m in modes.items()})
    assert all(m["harvest_auc"] <= oracle_auc + 1e-9 for m in modes.values())
    # A reference, never the baseline the others are measured against.
    assert "topic-oracle" not in (result["best_baseline"], result["best_baseline_by_pr10"])
