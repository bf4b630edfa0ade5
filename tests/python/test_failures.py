"""Failures through the Python bindings (issue #23): failed(kind=...), PageDb.failed_pages
on a read-only PageDb beside the writer, Scheduler.requeue, and the front ends' kinds of
download errors. Expectations are the documented list of kinds and the retry rules."""

from __future__ import annotations

import pytest

pytestmark = pytest.mark.needs_crawlrank

DOCUMENTED_KINDS = (
    "other", "timeout", "connect", "dns", "tls", "connection", "http-4xx", "http-5xx",
    "robots-disallowed", "robots-unreachable", "private-address", "too-large", "protocol",
    "redirect-limit", "bad-url")


@pytest.fixture()
def cr():
    import crawlrank

    return crawlrank


def fail_all(scheduler, **report):
    for request in scheduler.next(100):
        scheduler.failed(request.url, request.lease, **report)


def test_failure_kinds_are_the_documented_list(cr):
    assert cr.FAILURE_KINDS == DOCUMENTED_KINDS


def test_failures_are_kept_listed_and_requeued(cr, tmp_path):
    path = str(tmp_path / "db")
    clock = cr.ManualClock(10_000)
    with cr.PageDb(path) as db, cr.Scheduler(db, clock=clock, delay_ms=0, max_retries=0,
                                             per_host=10) as scheduler:
        scheduler.add_seeds(["http://a.example/1", "http://a.example/2", "http://b.example/"])
        for request in scheduler.next(10):
            if request.url == "http://b.example/":
                scheduler.failed(request.url, request.lease, http_status=503, reason="HTTP 503")
            else:
                scheduler.failed(request.url, request.lease, kind="timeout", reason="timed out")
        with pytest.raises(cr.InvalidArgumentError, match="no-such-kind"):
            scheduler.failed("http://a.example/1", 0, kind="no-such-kind")
        # A reader in the same process, as a tool beside a crawl would be.
        with cr.PageDb(path, read_only=True) as reader:
            pages = reader.failed_pages()
            assert [(p.url, p.kind, p.http_status, p.attempts, p.failed_ms) for p in pages] == [
                ("http://a.example/1", "timeout", 0, 1, 10_000),
                ("http://a.example/2", "timeout", 0, 1, 10_000),
                ("http://b.example/", "http-5xx", 503, 1, 10_000)]
            assert pages[0].detail == "timed out"
            assert [p.url for p in reader.failed_pages(kind="http-5xx")] == ["http://b.example/"]
            assert len(reader.failed_pages(host="a.example")) == 2
            assert reader.failed_pages(kind="timeout", host="b.example") == []
            with pytest.raises(cr.InvalidArgumentError):
                reader.failed_pages(kind="Timeout")
        assert scheduler.requeue(kind="timeout", url_regex="2$") == 1
        assert scheduler.stats().failed == 2 and scheduler.stats().queued == 1
        [again] = scheduler.next(10)
        assert again.url == "http://a.example/2"
        scheduler.crawled(cr.CrawledPage(again.url), again.lease)
        assert scheduler.requeue(urls=["http://B.example/"]) == 1
        assert scheduler.requeue() == 1  # the last one left
        assert scheduler.stats().failed == 0
        with pytest.raises(cr.InvalidArgumentError, match=r'URL pattern "\("'):
            scheduler.requeue(url_regex="(")


def test_front_ends_file_download_errors_by_kind():
    from crawlrank._frontend import failure_kind

    import crawlrank

    assert failure_kind("TimeoutError") == "timeout"
    assert failure_kind("DNSLookupError") == "dns"
    assert failure_kind("ConnectionRefusedError") == "connect"
    assert failure_kind("ResponseNeverReceived") == "connection"
    assert failure_kind("IgnoreRequest") is None  # filed as "other"
    from crawlrank import _frontend

    assert set(_frontend._KIND_OF_ERROR.values()) <= set(crawlrank.FAILURE_KINDS)
