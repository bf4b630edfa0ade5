"""How fresh a stored rank is (issue #24): the graph a rank file records (pages, links,
crawled pages), what `page_db_top`, `crawlrank crawl` and `page_db_upgrade` say of it, and
a rank file of format version 1 (tests/data/rank-v1/pagerank.rank: PageRank of 3 pages and
4 links, scores 0.4 0.2 0.3, made 2025-11-25T19:46:40Z, written byte by byte from
docs/format.md by a throwaway program; RankStoreTest builds one the same way in C++).

The expected counts come from the pages the tests write, not from the tools."""

from __future__ import annotations

import json
import pathlib
import re
import shutil

import pytest

from crawl_site import CrawlSite
from tool_runner import run

ISO_UTC = r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ"

# Crawled pages and their links: ids in order of first appearance (a.test/ 0, /1 1, /2 2).
GRAPH = [("http://a.test/", ["http://a.test/1", "http://a.test/2"]),
         ("http://a.test/1", ["http://a.test/2"]),
         ("http://a.test/2", ["http://a.test/"])]
MORE = [("http://a.test/3", ["http://a.test/", "http://a.test/4"])]


def add(db: pathlib.Path, crawled: list[tuple[str, list[str]]]) -> None:
    import crawlrank

    with crawlrank.PageDb(str(db)) as page_db:
        for url, links in crawled:
            page_db.add(crawlrank.CrawledPage(url, links))


def pages_links_crawled(crawled: list[tuple[str, list[str]]]) -> tuple[int, int, int]:
    urls = {u for url, links in crawled for u in [url, *links]}
    return len(urls), sum(len(links) for _, links in crawled), len(crawled)


@pytest.mark.needs_crawlrank
def test_top_says_how_fresh_the_rank_is_and_warns_when_the_graph_changed(bin_dir, tmp_path):
    db = tmp_path / "db"
    add(db, GRAPH)
    run(bin_dir, "page_db_rank", db)
    p, l, c = pages_links_crawled(GRAPH)
    top = run(bin_dir, "page_db_top", db)
    assert len(top.stdout.splitlines()) == p  # the list alone on stdout
    assert re.fullmatch(rf"ranked {ISO_UTC} over {p} pages, {l} links, {c} crawled; the graph "
                        rf"now has {p} pages, {l} links, {c} crawled\n", top.stderr), top.stderr

    add(db, MORE)
    p2, l2, c2 = pages_links_crawled(GRAPH + MORE)
    top = run(bin_dir, "page_db_top", db, "-n", 2)
    lines = top.stderr.splitlines()
    assert re.fullmatch(rf"ranked {ISO_UTC} over {p} pages, {l} links, {c} crawled; the graph "
                        rf"now has {p2} pages, {l2} links, {c2} crawled", lines[0]), lines
    assert lines[1] == (f"warning: the graph has changed since this rank ({p2 - p} more pages, "
                        f"{l2 - l} more links, {c2 - c} more crawled): rank again with "
                        f"`crawlrank rank {db} --algo pagerank`")
    assert len(lines) == 2 and len(top.stdout.splitlines()) == 2


@pytest.mark.needs_crawlrank
def test_a_version_1_rank_file_is_read_with_its_crawled_count_unknown(bin_dir, data_dir,
                                                                      tmp_path):
    db = tmp_path / "db"
    add(db, GRAPH)
    p, l, c = pages_links_crawled(GRAPH)
    rank_file = db / "ranks" / "pagerank.rank"
    rank_file.parent.mkdir()
    shutil.copy(data_dir / "rank-v1" / "pagerank.rank", rank_file)
    top = run(bin_dir, "page_db_top", db)
    assert [line.split()[1:] for line in top.stdout.splitlines()] == [
        ["http://a.test/", "0.4"], ["http://a.test/2", "0.3"], ["http://a.test/1", "0.2"]]
    assert top.stderr == (f"ranked 2025-11-25T19:46:40Z over {p} pages, {l} links, crawled count "
                          f"unknown (rank file version 1); the graph now has {p} pages, {l} "
                          f"links, {c} crawled\n")
    # page_db_upgrade names it and leaves it as it is.
    before = rank_file.read_bytes()
    out = run(bin_dir, "page_db_upgrade", db).stdout
    assert f"{rank_file}: rank file version 1, read as it is" in out, out
    assert rank_file.read_bytes() == before
    # The next rank writes version 2, with the graph's counters.
    run(bin_dir, "page_db_rank", db)
    assert rank_file.read_bytes()[8] == 2
    assert "rank file version 1" not in run(bin_dir, "page_db_upgrade", db).stdout
    assert f"{l} links, {c} crawled; the graph" in run(bin_dir, "page_db_top", db).stderr


def test_crawl_summary_prints_the_rank_it_made(bin_dir, tmp_path):
    with CrawlSite(pages=6, robots=None) as site:
        seed = f"http://{site.host}/gen/0.html"
        common = (seed, "--allow-private", "--quiet", "--delay", "0", "--same-host", "--deny",
                  "/private/")
        text = run(bin_dir, "crawlrank", "crawl", tmp_path / "text.db", *common).stdout
        summary = json.loads(run(bin_dir, "crawlrank", "crawl", tmp_path / "json.db", *common,
                                 "--json").stdout)
    # Each of the 6 pages (crawl_site.gen_page) links to its children inside the tree (1-2,
    # 3-4, 5), to its private page (denied) and to one page on another host: 6 crawled,
    # 6 + 6 + 1 pages, 5 + 6 + 6 links.
    ranked = summary["ranked"]
    assert (ranked["pages"], ranked["links"], ranked["crawled"]) == (13, 17, 6), ranked
    assert ranked["now"] == {"pages": 13, "links": 17, "crawled": 6}
    assert not ranked["changed"] and re.fullmatch(ISO_UTC, ranked["created"])
    assert re.search(rf"^ranked {ISO_UTC} over 13 pages, 17 links, 6 crawled; the graph now has "
                     r"13 pages, 17 links, 6 crawled$", text, re.M), text
    assert "warning" not in text
