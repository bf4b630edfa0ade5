"""The native Scrapy scheduler case by case (scrapy_cases.py crawls a small site built for
it), checked against the server's log, the spider's callbacks, Scrapy's stats and the
PageDB."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

import pytest

pytestmark = pytest.mark.needs_crawlrank

HERE = Path(__file__).resolve().parent


@pytest.fixture(scope="module")
def crawl(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("cases")
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([os.environ["CRAWLRANK_PYTHON_DIR"],
                                                       str(HERE)]))
    proc = subprocess.run(["/usr/bin/python3", str(HERE / "scrapy_cases.py"), str(tmp / "db"),
                           str(tmp / "out.json")], env=env, capture_output=True, text=True,
                          timeout=300)
    assert proc.returncode == 0, proc.stderr[-4000:]
    result = json.loads((tmp / "out.json").read_text())
    result["stderr"] = proc.stderr
    result["db"] = tmp / "db"
    return result


def test_callbacks_kwargs_and_meta_survive_the_queue(crawl):
    assert crawl["seen"]["b"] == [1, "kept"]
    assert crawl["stats"]["finish_reason"] == "finished"


def test_each_page_is_fetched_once_and_priority_goes_first(crawl):
    gets = [entry[1] for entry in crawl["log"] if entry[0] == "GET"]
    # /a twice: the seed, then the dont_filter request (memory queue); /503 twice (Scrapy's
    # one retry); everything else once, /b despite its duplicate and the redirect. /drop
    # at least twice: Twisted also retries a request whose reused connection dropped.
    drops = gets.count("/drop")
    assert drops >= 2, gets
    assert sorted(p for p in gets if p != "/drop") == sorted(
        ["/a", "/a", "/b", "/low", "/high", "/lambda", "/redirect", "/404", "/503", "/503",
         "/boom", "/after-boom", "/copied", "/chain/0", "/chain/1", "/chain/2"])
    queued = [p for p in gets if p in ("/b", "/low", "/high", "/redirect", "/404")]
    assert queued[0] == "/high", gets  # priority 5 before every priority-0 page
    assert crawl["seen"].get("again") is True


def test_memory_queue_takes_what_the_db_cannot_keep(crawl):
    stats, stderr = crawl["stats"], crawl["stderr"]
    assert [e for e in crawl["log"] if e[0] == "POST"] == [["POST", "/form", "q=1"]]
    assert stats["crawlrank/memory/not_get"] == 1
    assert stats["crawlrank/memory/dont_filter"] == 1
    assert stats["crawlrank/memory/unserializable"] == 1
    assert stderr.count("cannot serialise") == 1  # warned once
    assert crawl["seen"]["lambda"] is True
    assert stats["crawlrank/duplicates"] >= 2  # /b#dup, and the redirect's target /b


def test_outcomes_are_recorded_in_the_page_db(crawl):
    import crawlrank as cr

    base = crawl["base"]
    with cr.PageDb(str(crawl["db"]), read_only=True) as db:
        status = {p: db.find_url(base + p).http_status
                  for p in ("/a", "/b", "/404", "/redirect", "/boom", "/after-boom")}
        assert status == {"/a": 200, "/b": 200, "/404": 404, "/redirect": 302, "/boom": 200,
                          "/after-boom": 200}
        assert db.find_url(base + "/copied").http_status == 200
        # Each hop of the chain went through the queue; Scrapy dropped the third after two
        # redirects, and the scheduler failed it once nothing was in progress (the crawl
        # would otherwise have waited for its lease to expire).
        assert [db.find_url(f"{base}/chain/{i}").http_status for i in range(3)] == [302, 302, 0]
        assert crawl["stats"]["crawlrank/failed/lost"] == 1
        # A callback that raised still reports its page, with the links it yielded first.
        boom = db.find_url(base + "/boom")
        with db.snapshot() as snap:
            assert [snap.find_id(int(t)).url for t in snap.links(boom.id)] == [base + "/after-boom"]
        redirect = db.find_url(base + "/redirect")
        with db.snapshot() as snap:
            assert [snap.find_id(int(t)).url for t in snap.links(redirect.id)] == [base + "/b"]
        for path in ("/503", "/drop"):
            record = db.find_url(base + path)
            assert not record.crawled, path
        view = cr.Scheduler.inspect(db)
        assert view["stats"]["failed"] == 3 and view["stats"]["finished"]  # /503, /drop, /chain/2
        assert db.info()["url_profile"] == "w3lib/1"


def test_the_crawl_stores_its_configuration(crawl):
    import crawlrank as cr

    with cr.PageDb(str(crawl["db"]), read_only=True) as db:
        config = db.config()
    # From the project's settings (CONCURRENT_REQUESTS_PER_DOMAIN, the default delay), the
    # scheduler's own defaults for the rest.
    assert config["per_host"] == "1" and config["delay_ms"] == "0"
    assert config["score"] == "blend" and config["scope"] == "any"
    assert config["max_retries"] == "0"


def test_keyword_scores_reach_the_page_db(crawl):
    """KeywordScorer: /b's anchor text has one of the two keywords ("special"), its URL
    none; its body has both ("Special", "page"). /low has neither."""
    import crawlrank as cr

    base = crawl["base"]
    with cr.PageDb(str(crawl["db"]), read_only=True) as db:
        b, low = db.find_url(base + "/b"), db.find_url(base + "/low")
        assert (b.link_score, b.content_score) == (0.5, 1.0)
        assert (low.link_score, low.content_score) == (0.0, 0.0)
        assert crawl["seen"]["b"] == [1, "kept"]


def test_keyword_scorer_alone():
    from scrapy import Request
    from scrapy.exceptions import NotConfigured
    from scrapy.http import HtmlResponse
    from scrapy.settings import Settings

    from crawlrank.scrapy import KeywordScorer, SchedulerSettings

    scorer = KeywordScorer(["Event loop", "asyncio", "coroutine"])
    assert scorer.keywords == {"event", "loop", "asyncio", "coroutine"}
    page = HtmlResponse("http://h.test/", body=b"<html><head><title>coroutine</title></head>"
                        b"<body>The asyncio EVENT queue</body></html>")
    assert scorer.content_score(page) == 0.5  # asyncio, event; the title is not the body
    link = Request("http://h.test/loop.html", meta={"link_text": "about coroutines"})
    assert scorer.link_score(page, link) == 0.25  # "loop" from the URL; "coroutines" differs
    settings = SchedulerSettings.from_settings(Settings({
        "CRAWLRANK_SCORER": "crawlrank.scrapy.KeywordScorer", "CRAWLRANK_KEYWORDS": "a,b"}))
    assert settings.content_scorer.__self__.keywords == {"a", "b"}
    with pytest.raises(NotConfigured, match="CRAWLRANK_KEYWORDS"):
        SchedulerSettings.from_settings(Settings({"CRAWLRANK_SCORER": "crawlrank.scrapy.KeywordScorer"}))


def test_an_unknown_crawlrank_option_is_named():
    from scrapy.exceptions import NotConfigured
    from scrapy.settings import Settings

    from crawlrank.scrapy import SchedulerSettings

    settings = SchedulerSettings.from_settings(Settings({"CRAWLRANK_OPTIONS": {"no_such": 1}}))
    with pytest.raises(NotConfigured, match="CRAWLRANK_OPTIONS: unknown scheduler option 'no_such'"):
        settings.scheduler_options()
    assert SchedulerSettings.from_settings(Settings({"CRAWLRANK_OPTIONS": {"hold_ms": 7}})
                                           ).scheduler_options().hold_ms == 7


def test_the_graph_is_ranked_once_more_when_the_spider_closes(crawl):
    import crawlrank

    # Too few pages for a re-rank during the crawl (rerank_min_new_pages): the stored rank
    # is the one made at close, over the whole graph.
    assert crawl["stderr"].count("crawlrank: ranked (blend and the display rank) at close in ") == 1
    with crawlrank.PageDb(str(crawl["db"]), read_only=True) as db:
        rank = db.load_rank("pagerank")
        with db.snapshot() as snap:
            now = snap.counters
    assert rank.graph is not None
    assert (rank.graph.pages, rank.graph.edges, rank.graph.crawled_pages) == (
        now.pages, now.edges, now.crawled_pages)
    assert rank.pages == now.pages and now.crawled_pages > 0


def test_rank_at_close_is_a_setting():
    from scrapy.exceptions import NotConfigured
    from scrapy.settings import Settings

    from crawlrank.scrapy import SchedulerSettings

    assert SchedulerSettings.from_settings(Settings()).rank_at_close is True
    for value, expected in ((False, False), ("0", False), ("False", False), ("on", True)):
        settings = Settings({"CRAWLRANK_RANK_AT_CLOSE": value})
        assert SchedulerSettings.from_settings(settings).rank_at_close is expected, value
    with pytest.raises(NotConfigured, match="CRAWLRANK_RANK_AT_CLOSE='maybe'"):
        SchedulerSettings.from_settings(Settings({"CRAWLRANK_RANK_AT_CLOSE": "maybe"}))


# ---- Scrapy's conventions: its scheduler's stats, request_dropped, settings


def scheduler_balance(stats: dict, left: int) -> None:
    """Scrapy's scheduler stats add up: what was enqueued was dequeued or is still queued,
    in all, in memory and in the PageDB ("disk")."""
    assert stats["scheduler/enqueued"] == stats["scheduler/dequeued"] + left
    assert stats["scheduler/enqueued"] == (stats["scheduler/enqueued/memory"]
                                           + stats["scheduler/enqueued/disk"])
    assert stats["scheduler/dequeued"] == (stats["scheduler/dequeued/memory"]
                                           + stats["scheduler/dequeued/disk"])
    # Every request the engine took from the scheduler went through the downloader, whose
    # own middleware (DownloaderStats) counts it.
    assert stats["scheduler/dequeued"] == stats["downloader/request_count"]


def test_scrapy_scheduler_stats_balance_at_close(crawl):
    stats = crawl["stats"]
    scheduler_balance(stats, crawl["at_close"]["len"])
    assert crawl["at_close"]["len"] == 0  # the crawl finished: nothing left
    # The memory queue took the POST, the dont_filter request, the unpicklable one and
    # Scrapy's retries (RetryMiddleware's own count), and served them all.
    memory = sum(stats[f"crawlrank/memory/{why}"]
                 for why in ("not_get", "dont_filter", "unserializable"))
    assert stats["crawlrank/retried"] == stats["retry/count"] == 2  # /503 and /drop
    assert stats["scheduler/enqueued/memory"] == memory + 2 == stats["scheduler/dequeued/memory"]


def test_a_duplicate_is_dropped_as_scrapy_drops_it(crawl):
    base = crawl["base"]
    # /b#dup is /b (the fragment does not count); the redirect from /redirect leads to /b,
    # which the crawl has by then. Scrapy's engine sent request_dropped for each.
    assert crawl["dropped"] == [base + "/b#dup", base + "/b"]
    assert crawl["stats"]["dupefilter/filtered"] == 2
    assert crawl["stats"]["crawlrank/duplicates"] == 2


@pytest.fixture(scope="module")
def cut_short(tmp_path_factory):
    """The same crawl stopped by CRAWLRANK_MAX_PAGES with pages still queued, a page the
    PageDB refuses by a pattern, and the PageDB's own retries of the failures."""
    tmp = tmp_path_factory.mktemp("cut")
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([os.environ["CRAWLRANK_PYTHON_DIR"],
                                                       str(HERE)]))
    extra = {"CRAWLRANK_MAX_PAGES": 6,
             "CRAWLRANK_OPTIONS": {"hold_ms": 1, "max_retries": 1, "deny": ["/low$"]}}
    proc = subprocess.run(["/usr/bin/python3", str(HERE / "scrapy_cases.py"), str(tmp / "db"),
                           str(tmp / "out.json"), json.dumps(extra)], env=env,
                          capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr[-4000:]
    result = json.loads((tmp / "out.json").read_text())
    result["db"] = tmp / "db"
    return result


def test_scrapy_scheduler_stats_balance_with_pages_left(cut_short):
    import crawlrank as cr

    stats, left = cut_short["stats"], cut_short["at_close"]["len"]
    assert stats["finish_reason"] == "finished"
    scheduler_balance(stats, left)
    with cr.PageDb(str(cut_short["db"]), read_only=True) as db:
        view = cr.Scheduler.inspect(db)["stats"]
    # What is left is what the PageDB still holds: queued, or waiting for a retry.
    assert left == view["queued"] + view["retrying"] > 0
    # /low was accepted, then refused by the PageDB's deny pattern: never enqueued.
    assert stats["crawlrank/refused"] == view["filtered"] == 1
    assert not any(entry[1] == "/low" for entry in cut_short["log"])


def test_a_misspelled_setting_names_the_closest_one(caplog):
    from scrapy.settings import Settings

    from crawlrank.scrapy import SchedulerSettings

    SchedulerSettings.from_settings(Settings({"CRAWLRANK_MAX_PAGE": 5, "CRAWLRANK_SCORE": "opic",
                                              "CRAWLRANK_XYZZY_QUUX": 1}))
    warnings = sorted(r.getMessage() for r in caplog.records if r.levelname == "WARNING")
    assert warnings == [
        "crawlrank: CRAWLRANK_MAX_PAGE is not a setting of crawlrank.scrapy and is ignored: "
        "did you mean CRAWLRANK_MAX_PAGES?",
        "crawlrank: CRAWLRANK_XYZZY_QUUX is not a setting of crawlrank.scrapy and is ignored "
        "(docs/python.md lists them)"]


def crawler_with(settings: dict):
    from scrapy import Spider
    from scrapy.utils.test import get_crawler

    return get_crawler(Spider, settings)


NATIVE = {"SCHEDULER": "crawlrank.scrapy.Scheduler",
          "SPIDER_MIDDLEWARES": {"crawlrank.scrapy.LinkGraphMiddleware": 1000},
          "DOWNLOADER_MIDDLEWARES": {"crawlrank.scrapy.ErrorMiddleware": 100}}


@pytest.mark.parametrize("change, message", [
    ({"SPIDER_MIDDLEWARES": {}, "DOWNLOADER_MIDDLEWARES": {}},
     "crawlrank.scrapy.Scheduler needs its middlewares: add "
     "'crawlrank.scrapy.LinkGraphMiddleware': 1000 to SPIDER_MIDDLEWARES; and add "
     "'crawlrank.scrapy.ErrorMiddleware': 100 to DOWNLOADER_MIDDLEWARES"),
    ({"DOWNLOADER_MIDDLEWARES": {}},
     "crawlrank.scrapy.Scheduler needs its middlewares: add "
     "'crawlrank.scrapy.ErrorMiddleware': 100 to DOWNLOADER_MIDDLEWARES"),
    ({"SPIDER_MIDDLEWARES": {"crawlrank.scrapy.LinkGraphMiddleware": 10}},
     "give 'crawlrank.scrapy.LinkGraphMiddleware' the highest number in SPIDER_MIDDLEWARES"),
])
def test_a_missing_middleware_fails_in_from_crawler(change, message):
    """from_crawler, which the engine calls before it opens the spider, reads the
    middlewares from the settings: one message names every setting to change."""
    from scrapy.exceptions import NotConfigured

    from crawlrank.scrapy import Scheduler

    with pytest.raises(NotConfigured) as error:
        Scheduler.from_crawler(crawler_with({**NATIVE, **change}))
    assert message in str(error.value)
    assert Scheduler.from_crawler(crawler_with(NATIVE)) is not None


def test_jobdir_holds_the_page_db_unless_one_is_set(tmp_path):
    from scrapy.settings import Settings

    from crawlrank.scrapy import SchedulerSettings

    job = tmp_path / "job"
    settings = SchedulerSettings.from_settings(Settings({"JOBDIR": str(job)}))
    assert settings.page_db == str(job / "crawlrank.db") and job.is_dir()
    settings = SchedulerSettings.from_settings(Settings({"JOBDIR": str(job),
                                                         "CRAWLRANK_PAGE_DB": "mine.crawlrank"}))
    assert settings.page_db == "mine.crawlrank"
    assert SchedulerSettings.from_settings(Settings()).page_db is None  # <spider>.crawlrank


def _open_scheduler(tmp_path, settings: dict):
    """crawlrank's Scheduler opened on a crawler whose engine is built but not started,
    with the middlewares it needs: the calls the engine makes can then be made by hand."""
    from scrapy import Spider
    from scrapy.core.engine import ExecutionEngine
    from scrapy.crawler import Crawler

    from crawlrank.scrapy import Scheduler

    crawler = Crawler(Spider, {
        "SPIDER_MIDDLEWARES": {"crawlrank.scrapy.LinkGraphMiddleware": 1000},
        "DOWNLOADER_MIDDLEWARES": {"crawlrank.scrapy.ErrorMiddleware": 100},
        "CRAWLRANK_PAGE_DB": str(tmp_path / "db"), "CRAWLRANK_RANK_AT_CLOSE": False,
        "DOWNLOAD_DELAY": 0, "REQUEST_FINGERPRINTER_IMPLEMENTATION": "2.7", **settings})
    crawler.spider = crawler._create_spider("leases")
    crawler.engine = ExecutionEngine(crawler, lambda _: None)
    scheduler = Scheduler.from_crawler(crawler)
    scheduler.open(crawler.spider)
    return scheduler


@pytest.mark.parametrize("settings, handed_out", [
    # Scrapy's downloader keeps 2 requests per host on the wire: 2 more pages may be scraped.
    ({"CONCURRENT_REQUESTS_PER_DOMAIN": 2}, 4),
    # crawlrank's limit is below the downloader's: the leases are the only bound.
    ({"CONCURRENT_REQUESTS_PER_DOMAIN": 2, "CRAWLRANK_PER_HOST": 1}, 1),
    # One politeness key for several host names, several downloader slots: the same.
    ({"CONCURRENT_REQUESTS_PER_DOMAIN": 2, "CRAWLRANK_HOST_KEY": "domain"}, 2),
])
def test_pages_being_scraped_leave_the_downloader_its_requests(tmp_path, settings, handed_out):
    # Issue #25: a page is leased until its callback is done, so with long pages the pages
    # being scraped held every lease of the host and Scrapy's downloader idled.
    from scrapy import Request

    scheduler = _open_scheduler(tmp_path, settings)
    try:
        for i in range(10):
            assert scheduler.enqueue_request(Request(f"http://h.test/{i}.html"))
        out = []
        while (request := scheduler.next_request()) is not None:
            out.append(request)
        assert len(out) == handed_out
        per_host = settings.get("CRAWLRANK_PER_HOST", settings["CONCURRENT_REQUESTS_PER_DOMAIN"])
        assert scheduler.db.config()["per_host"] == str(per_host)  # stored as given
        assert scheduler.has_pending_requests()
    finally:
        scheduler.close("finished")


def test_a_link_seen_again_is_a_duplicate_without_a_second_canonicalisation(tmp_path):
    from scrapy import Request

    import crawlrank

    scheduler = _open_scheduler(tmp_path, {})
    try:
        assert scheduler.enqueue_request(Request("http://h.test/a.html?b=1&a=2"))
        scheduler._reports.flush()  # the page is in the DB now, no longer pending
        calls = []
        real = crawlrank.canonicalize_url
        crawlrank.canonicalize_url = lambda *args: calls.append(args) or real(*args)
        try:
            for _ in range(3):
                assert not scheduler.enqueue_request(Request("http://h.test/a.html?b=1&a=2"))
            # Another spelling of the same page: canonicalised once, found in the DB.
            assert not scheduler.enqueue_request(Request("http://h.test/a.html?a=2&b=1"))
        finally:
            crawlrank.canonicalize_url = real
        assert calls == [("http://h.test/a.html?a=2&b=1", "w3lib")]
        assert scheduler.stats.get_value("crawlrank/duplicates") == 4
    finally:
        scheduler.close("finished")
