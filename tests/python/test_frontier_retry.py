"""Frontier clients that survive (issue #41, part 4): crawlrank's clients of a URLFrontier
server (`crawlrank crawl --frontier`, `crawlrank.frontier.Client`; the Scrapy scheduler's
remote mode uses the latter) send a batch again when the server acks it FAIL or is away,
give up only after the documented wait, and name at once an address that is not a
URLFrontier server.

The server here is the test's own: gRPC's generic handlers over the schema's messages, so
that it can answer FAIL as a real server does when its write fails."""

from __future__ import annotations

import http.server
import socket
import subprocess
import threading
import time
from concurrent import futures

import pytest

from crawl_site import CrawlSite
from local_server import LocalServer

pytestmark = pytest.mark.needs_crawlrank


def dead_address() -> str:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return f"127.0.0.1:{s.getsockname()[1]}"


class FlakyFrontier:
    """Hands out `url` once; acks the first `fails` PutURLs streams FAIL, item by item, and
    the rest OK. `streams` keeps the items of each PutURLs stream as (kind, url) pairs."""

    def __init__(self, url: str, host: str, fails: int) -> None:
        import grpc
        from crawlrank import _urlfrontier_pb2 as pb

        self.pb, self.url, self.host, self.fails = pb, url, host, fails
        self.streams: list[list[tuple[str, str]]] = []
        self.handed = self.done = False
        self.lock = threading.Lock()
        unary, stream = grpc.unary_unary_rpc_method_handler, grpc.unary_stream_rpc_method_handler
        handlers = {
            "GetStats": unary(self.get_stats, pb.QueueWithinCrawlParams.FromString,
                              pb.Stats.SerializeToString),
            "GetURLs": stream(self.get_urls, pb.GetParams.FromString,
                              pb.URLInfo.SerializeToString),
            "PutURLs": grpc.stream_stream_rpc_method_handler(
                self.put_urls, pb.URLItem.FromString, pb.AckMessage.SerializeToString),
            "SetDelay": unary(lambda request, context: pb.Empty(),
                              pb.QueueDelayParams.FromString, pb.Empty.SerializeToString),
        }
        self.server = grpc.server(futures.ThreadPoolExecutor(max_workers=8))
        self.server.add_generic_rpc_handlers(
            (grpc.method_handlers_generic_handler("urlfrontier.URLFrontier", handlers),))
        self.address = f"127.0.0.1:{self.server.add_insecure_port('127.0.0.1:0')}"

    def get_stats(self, request, context):
        with self.lock:
            return self.pb.Stats(size=0 if self.done else 1)

    def get_urls(self, request, context):
        with self.lock:
            if self.handed:
                return
            self.handed = True
        yield self.pb.URLInfo(url=self.url, key=self.host)

    def put_urls(self, items, context):
        got = []
        with self.lock:
            failing = self.fails > 0
            self.fails -= 1
        for item in items:
            kind = "known" if item.HasField("known") else "discovered"
            info = item.known.info if kind == "known" else item.discovered.info
            got.append((kind, info.url))
            status = self.pb.AckMessage.FAIL if failing else self.pb.AckMessage.OK
            yield self.pb.AckMessage(ID=info.url, status=status)
        with self.lock:
            self.streams.append(got)
            if not failing and ("known", self.url) in got:
                self.done = True

    def __enter__(self) -> FlakyFrontier:
        self.server.start()
        return self

    def __exit__(self, *exc) -> None:
        self.server.stop(0)


def test_the_builtin_crawler_sends_a_report_acked_fail_again(bin_dir, tmp_path):
    with CrawlSite(pages=3) as site:
        url = f"http://{site.host}/gen/0.html"
        with FlakyFrontier(url, "127.0.0.1", fails=2) as server:
            proc = subprocess.run(
                [str(bin_dir / "crawlrank"), "crawl", "--frontier", server.address,
                 "--allow-private", "--quiet", "--json"],
                capture_output=True, text=True, timeout=120)
            assert proc.returncode == 0, proc.stderr
    reports = [items for items in server.streams if ("known", url) in items]
    # The same report three times: twice acked FAIL (1 s, then 2 s later), then OK; the
    # page's links before the page each time.
    assert len(reports) == 3 and reports[0] == reports[1] == reports[2], server.streams
    assert reports[0][-1] == ("known", url) and len(reports[0]) > 1
    assert [hit.path for hit in site.hits].count("/gen/0.html") == 1  # fetched once


def test_the_builtin_crawler_gives_up_after_the_wait_it_was_given(bin_dir):
    with FlakyFrontier("http://127.0.0.1:9/", "127.0.0.1", fails=1000) as server:
        start = time.monotonic()
        proc = subprocess.run(
            [str(bin_dir / "crawlrank"), "crawl", "--frontier", server.address,
             "http://127.0.0.1:9/seed", "--quiet", "--frontier-give-up", "3"],
            capture_output=True, text=True, timeout=120)
        elapsed = time.monotonic() - start
    assert proc.returncode == 1
    assert "PutURLs to the frontier at" in proc.stderr and "gave up after" in proc.stderr
    assert "acked" in proc.stderr or "FAIL" in proc.stderr, proc.stderr
    # A pause of 1 s; the next (2 s) would end past the 3 s given: it gives up then.
    assert 1 < elapsed < 10, elapsed


def test_a_web_server_is_named_as_not_a_frontier_at_once(bin_dir):
    class Page(http.server.BaseHTTPRequestHandler):
        def do_GET(self):  # noqa: N802
            self.send_response(200)
            self.end_headers()

        def log_message(self, *args):
            pass

    with LocalServer(Page) as web:
        start = time.monotonic()
        proc = subprocess.run(
            [str(bin_dir / "crawlrank"), "crawl", "--frontier", web.host, "http://a.test/",
             "--quiet"], capture_output=True, text=True, timeout=120)
        elapsed = time.monotonic() - start
        from crawlrank.frontier import Client, NotAFrontierError

        with Client(web.host) as client, pytest.raises(NotAFrontierError, match="not as a gRPC"):
            client.stats()
    assert proc.returncode == 1
    assert "answers, but not as a gRPC server" in proc.stderr, proc.stderr
    assert elapsed < 10, elapsed  # not after the calls' 60 s waits


def test_the_python_client_sends_a_batch_acked_fail_again():
    from crawlrank.frontier import Client

    url = "http://a.test/"
    with FlakyFrontier(url, "a.test", fails=2) as server, Client(server.address) as client:
        client.crawled(url, links=["http://a.test/x"])
        assert [items for items in server.streams] == [
            [("discovered", "http://a.test/x"), ("known", url)]] * 3
    with FlakyFrontier(url, "a.test", fails=1000) as server, \
            Client(server.address, retry_for=1.0) as client:
        start = time.monotonic()
        with pytest.raises(RuntimeError, match="acked FAIL.*gave up after 1 s"):
            client.crawled(url)
        assert time.monotonic() - start < 5


def test_the_python_client_waits_for_a_server_away_then_gives_up():
    import grpc
    from crawlrank.frontier import RETRY_FOR, Client

    assert RETRY_FOR == 600.0  # the documented default
    with Client(dead_address(), retry_for=1.5) as client:
        start = time.monotonic()
        with pytest.raises(grpc.RpcError) as raised:
            client.stats()
        elapsed = time.monotonic() - start
    assert raised.value.code() == grpc.StatusCode.UNAVAILABLE
    # Pauses of 0.05, 0.1, 0.2 and 0.4 s; the next (0.8 s) would end past the 1.5 s given.
    assert 0.5 < elapsed < 6, elapsed


def test_a_crawl_through_a_frontier_that_fetched_nothing_exits_1(bin_dir):
    # The one URL handed out is on 127.0.0.1, which the address guard refuses here.
    with FlakyFrontier("http://127.0.0.1:9/", "127.0.0.1", fails=0) as server:
        proc = subprocess.run(
            [str(bin_dir / "crawlrank"), "crawl", "--frontier", server.address, "--quiet"],
            capture_output=True, text=True, timeout=120)
    assert proc.returncode == 1, proc.stderr
    assert "crawlrank crawl: nothing fetched" in proc.stderr
    assert [items for items in server.streams] == [[("known", "http://127.0.0.1:9/")]]
