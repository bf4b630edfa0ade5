"""crawlrank_serve, the URLFrontier server: a real server process on 127.0.0.1 and a gRPC
client from the Python stubs the build generates (protoc + grpc_python_plugin).

The stubs' folder comes from CRAWLRANK_FRONTIER_PY_DIR (ctest sets it), else from
<build>/proto/python beside CRAWLRANK_TOOLS_DIR; without them, or without python3-grpcio,
or without the server (CRAWLRANK_BUILD_SERVER=OFF), every test here skips.
"""
from __future__ import annotations

import base64
import concurrent.futures
import contextlib
import json
import pathlib
import re
import shutil
import signal
import subprocess
import time

import pytest

from serve_client import SERVER, Server, load_api
from tool_runner import run


@pytest.fixture(scope="module")
def api(bin_dir):
    """(pb2, pb2_grpc, grpc) of the URLFrontier schema."""
    return load_api(bin_dir)


@pytest.fixture
def serve(bin_dir, api, tmp_path):
    """serve(*args) starts a server over tmp_path/db; each is stopped after the test."""
    servers = []

    def start(*args, db=tmp_path / "db"):
        servers.append(Server(bin_dir, api, db, *args))
        return servers[-1]

    yield start
    for server in servers:
        with contextlib.suppress(Exception):
            server.stop(signal.SIGKILL)


def db_stats(bin_dir, db):
    return json.loads(run(bin_dir, "page_db_stats", db, "--json").stdout)


def code_of(excinfo):
    return excinfo.value.code().name


# ---- PutURLs

def test_a_discovered_url_is_added_once_and_skipped_after(serve):
    server = serve("--delay", 0)
    acks = server.put(server.discovered("http://a.test/1", "first"),
                      server.discovered("http://a.test/1", "again"),
                      server.discovered("http://a.test/2"))
    # The ID is echoed; an item without one is acked by its URL.
    assert acks == [("first", "OK"), ("again", "SKIPPED"), ("http://a.test/2", "OK")]
    assert server.put(server.discovered("http://a.test/2")) == [("http://a.test/2", "SKIPPED")]


def test_of_clients_discovering_one_url_at_once_exactly_one_gets_ok(serve):
    server = serve()
    urls = [f"http://a.test/{i}" for i in range(50)]

    def put_all(_):
        return server.put(*[server.discovered(u) for u in urls])

    with concurrent.futures.ThreadPoolExecutor(4) as pool:
        acks = [ack for acks in pool.map(put_all, range(4)) for ack in acks]
    assert sorted(u for u, status in acks if status == "OK") == sorted(urls)
    assert len(acks) == 4 * len(urls)


def test_a_discovered_url_names_its_source_by_url_path(serve, bin_dir, tmp_path):
    server = serve("--delay", 0)
    # StormCrawler's url.path: the chain of pages that led here, the last one linking.
    server.put(server.discovered("http://a.test/child",
                                 url_path=["http://a.test/", "http://a.test/parent"]))
    stats = db_stats(bin_dir, tmp_path / "db")
    assert (stats["pages"], stats["links"], stats["max_depth"]) == (2, 1, 1)


def test_a_bad_url_ends_the_stream_with_invalid_argument_naming_field_and_url(serve, api):
    server = serve()
    with pytest.raises(api[2].RpcError) as bad:
        server.put(server.discovered("http://a.test/ok"), server.discovered("no scheme here"))
    assert code_of(bad) == "INVALID_ARGUMENT"
    assert "URLItem.discovered.info.url" in bad.value.details()
    assert "no scheme here" in bad.value.details()
    # What came before the bad item was written (and acknowledged) first.
    assert [i.url for i in server.get()] == ["http://a.test/ok"]
    with pytest.raises(api[2].RpcError) as other_crawl:
        item = server.discovered("http://a.test/3")
        item.discovered.info.crawlID = "another"
        server.put(item)
    assert code_of(other_crawl) == "INVALID_ARGUMENT"
    assert "crawlID" in other_crawl.value.details() and "http://a.test/3" in other_crawl.value.details()


# ---- GetURLs and acknowledgements

def test_get_urls_hands_out_and_a_known_item_makes_the_page_crawled(serve, bin_dir, tmp_path):
    server = serve("--delay", 0)
    server.put(server.discovered("http://a.test/page"))
    [info] = server.get()
    assert (info.url, info.key, info.crawlID) == ("http://a.test/page", "a.test", "DEFAULT")
    assert list(info.metadata["depth"].values) == ["0"]
    assert server.get() == []  # leased: nothing else is due, an empty stream
    assert server.put(server.known(info.url, crawlrank_status="200")) == [(info.url, "OK")]
    stats = db_stats(bin_dir, tmp_path / "db")
    assert (stats["crawled_pages"], stats["queued"], stats["in_flight"]) == (1, 0, 0)
    reply = server.stub.GetStats(server.pb.QueueWithinCrawlParams())
    assert (reply.size, reply.inProcess, reply.counts["completed"], reply.crawlID) == (
        0, 0, 1, "DEFAULT")
    code, err = server.stop()
    # Drained, then the crawl's ranks (--no-rank-at-exit: none): the ranks every front end
    # leaves (crawl_end.h), the default blend's PageRank and the display rank.
    assert code == 0 and err.splitlines()[-4:] == [
        "crawlrank_serve: SIGTERM: draining",
        "crawlrank_serve: computing the crawl's ranks (a second signal skips it)",
        "crawlrank_serve: ranked the score mode's pagerank rank: "
        f"{tmp_path / 'db' / 'ranks' / 'pagerank.rank'}",
        f"crawlrank_serve: ranked 1 pages in {err.split(' pages in ')[-1].split(' s:')[0]} s: "
        f"{tmp_path / 'db' / 'ranks' / 'display.rank'}"]
    assert (tmp_path / "db" / "ranks" / "display.rank").exists()
    assert (tmp_path / "db" / "ranks" / "pagerank.rank").exists()


def test_progress_lines_and_no_rank_at_exit(serve, tmp_path):
    server = serve("--delay", 0, "--progress", 0.2, "--no-rank-at-exit")
    server.put(server.discovered("http://a.test/"), server.discovered("http://b.test/"))
    [handed] = server.get()[:1]
    server.put(server.known(handed.url, crawlrank_status="200"))
    time.sleep(0.7)
    code, err = server.stop()
    assert code == 0
    progress = [line for line in err.splitlines() if " crawled, " in line]
    assert progress, err
    # Both URLs were handed out (one a host), one reported: the other stays leased.
    assert re.fullmatch(r"crawlrank_serve: 1 crawled, 0 failed, queue 0, in flight 1, "
                        r"retrying 0, hosts 2, [\d.]+ pages/s", progress[-1]), progress[-1]
    assert err.splitlines()[-1] == "crawlrank_serve: SIGTERM: draining"
    assert not (tmp_path / "db" / "ranks" / "display.rank").exists()


def test_a_url_not_acknowledged_comes_back_after_delay_requestable(serve):
    server = serve("--delay", 0)
    server.put(server.discovered("http://a.test/slow"))
    assert [i.url for i in server.get(delay=1)] == ["http://a.test/slow"]
    assert server.get(delay=1) == []
    time.sleep(1.3)
    assert [i.url for i in server.get(delay=1)] == ["http://a.test/slow"]


def test_a_failed_fetch_is_reported_with_the_metadata_convention(serve, bin_dir, tmp_path):
    server = serve("--delay", 0)
    server.put(server.discovered("http://a.test/gone"))
    [info] = server.get()
    acks = server.put(server.known(info.url, crawlrank_failure="DNS: no such host",
                                   crawlrank_retryable="false"))
    assert acks == [(info.url, "OK")]
    stats = db_stats(bin_dir, tmp_path / "db")
    assert (stats["failed"], stats["crawled_pages"]) == (1, 0)


def test_scores_and_the_failure_kind_travel_in_the_metadata(serve, bin_dir, tmp_path):
    server = serve("--delay", 0)
    server.put(server.discovered("http://a.test/"))
    server.put(server.discovered("http://a.test/hot", url_path="http://a.test/",
                                 crawlrank_link_score="0.75"),
               server.discovered("http://a.test/cold", url_path="http://a.test/"),
               server.known("http://a.test/", crawlrank_content_score="0.5"),
               server.known("http://a.test/cold", crawlrank_failure="no answer",
                            crawlrank_failure_kind="timeout", crawlrank_retryable="false"))
    server.stop()
    pages = {p["url"]: p for p in map(json.loads, run(
        bin_dir, "page_db_dump", "info", tmp_path / "db", "--json").stdout.splitlines())}
    assert (pages["http://a.test/hot"]["link_score"], pages["http://a.test/"]["content_score"]) == (
        0.75, 0.5)
    failed = json.loads(run(bin_dir, "page_db_failed", tmp_path / "db", "--json").stdout)
    assert [(f["url"], f["kind"]) for f in failed] == [("http://a.test/cold", "timeout")]


def test_bad_scores_and_kinds_are_refused_naming_the_field(serve, api):
    server = serve("--delay", 0)
    for item in (server.discovered("http://a.test/a", crawlrank_link_score="nan"),
                 server.known("http://a.test/b", crawlrank_content_score="high"),
                 server.known("http://a.test/c", crawlrank_failure="x",
                              crawlrank_failure_kind="gremlins")):
        with pytest.raises(api[2].RpcError) as bad:
            server.put(item)
        assert code_of(bad) == "INVALID_ARGUMENT"
        [name] = item.discovered.info.metadata if item.HasField("discovered") else [
            n for n in item.known.info.metadata if n != "crawlrank.failure"]
        assert name in bad.value.details()


def test_get_urls_hands_out_at_most_the_per_host_limit_of_a_queue(serve):
    server = serve("--delay", 0, "--per-host", 2)
    server.put(*[server.discovered(f"http://busy.test/{i}") for i in range(5)],
               server.discovered("http://quiet.test/"))
    keys = sorted(i.key for i in server.get(per_queue=10))
    assert keys == ["busy.test", "busy.test", "quiet.test"]
    assert server.get(per_queue=10) == []  # both of busy.test's slots are out


def test_a_client_key_other_than_the_host_groups_hosts_under_one_budget(serve, api):
    # StormCrawler partitioned by IP: two hosts on one address share one URL in flight.
    server = serve("--delay", 0, "--per-host", 1)
    items = [server.discovered(u) for u in ("http://a.test/", "http://b.test/", "http://c.test/")]
    items[0].discovered.info.key = items[1].discovered.info.key = "10.0.0.1"
    items[2].discovered.info.key = "c.test"  # its own host key: no group
    assert [status for _, status in server.put(*items)] == ["OK"] * 3
    first = [i.url for i in server.get()]
    assert len(first) == 2 and "http://c.test/" in first
    assert server.get() == []  # the other of a.test and b.test waits for the shared slot
    assert [i.key for i in server.get(key="a.test") + server.get(key="b.test")] == []
    (grouped,) = [u for u in first if u != "http://c.test/"]
    server.put(server.known(grouped))
    (second,) = [i.url for i in server.get()]
    assert {grouped, second} == {"http://a.test/", "http://b.test/"}
    too_long = server.discovered("http://d.test/")
    too_long.discovered.info.key = "k" * 1025
    with pytest.raises(api[2].RpcError) as bad:
        server.put(too_long)
    assert code_of(bad) == "INVALID_ARGUMENT" and "URLItem.discovered.info.key" in bad.value.details()


def test_payload_and_priority_come_back_with_the_url_and_survive_a_restart(serve, api):
    server = serve("--delay", 0, "--per-host", 10)
    payload = bytes(range(256)) * 3
    items = [server.discovered("http://a.test/low"),
             server.discovered("http://a.test/high", crawlrank_payload=base64.b64encode(
                 payload).decode(), crawlrank_priority="7"),
             server.discovered("http://a.test/neg", crawlrank_priority="-2")]
    assert [status for _, status in server.put(*items)] == ["OK"] * 3
    # Found again with other extras: a known URL keeps what it has.
    server.put(server.discovered("http://a.test/low", crawlrank_priority="99"))
    server.stop()
    again = serve("--delay", 0, "--per-host", 10)
    handed = again.get()
    assert [i.url for i in handed] == ["http://a.test/high", "http://a.test/low",
                                       "http://a.test/neg"]
    meta = {i.url: dict((k, list(v.values)) for k, v in i.metadata.items()) for i in handed}
    assert base64.b64decode(meta["http://a.test/high"]["crawlrank.payload"][0]) == payload
    assert meta["http://a.test/high"]["crawlrank.priority"] == ["7"]
    assert "crawlrank.payload" not in meta["http://a.test/low"]
    assert "crawlrank.priority" not in meta["http://a.test/low"]
    assert meta["http://a.test/neg"]["crawlrank.priority"] == ["-2"]
    for name, value in (("crawlrank_payload", "not base64!"), ("crawlrank_priority", "1.5"),
                        ("crawlrank_priority", "2147483648"),
                        ("crawlrank_payload", base64.b64encode(b"x" * (2**20 + 1)).decode())):
        with pytest.raises(api[2].RpcError) as bad:
            again.put(again.discovered("http://b.test/", **{name: value}))
        assert code_of(bad) == "INVALID_ARGUMENT"
        assert name.replace("_", ".") in bad.value.details()


def test_get_urls_with_a_key_hands_out_that_queue_only(serve):
    server = serve("--delay", 0, "--per-host", 2)
    server.put(*[server.discovered(f"http://a.test/{i}") for i in range(3)],
               server.discovered("http://b.test/"))
    handed = server.get(key="a.test", per_queue=5)
    assert [i.key for i in handed] == ["a.test", "a.test"]  # its --per-host 2, no more
    assert server.get(key="a.test") == []
    assert server.get(key="unknown.test") == []
    assert [i.url for i in server.get(key="b.test")] == ["http://b.test/"]
    server.put(server.known(handed[0].url))
    assert len(server.get(key="a.test")) == 1


def test_an_inactive_frontier_hands_out_nothing(serve):
    server = serve("--delay", 0)
    server.put(server.discovered("http://a.test/"))
    server.stub.SetActive(server.pb.Active(state=False))
    assert server.stub.GetActive(server.pb.Local()).state is False
    assert server.get() == []
    server.stub.SetActive(server.pb.Active(state=True))
    assert len(server.get()) == 1


# ---- PutDiscovered

def test_put_discovered_acks_each_batch_in_order_and_caps_its_size(serve, api):
    server = serve()
    pb = server.pb
    batch = pb.DiscoveredBatch(ID="b1", items=[server.info("http://a.test/1"),
                                               server.info("http://a.test/1"),
                                               server.info("http://b.test/")])
    [ack] = server.stub.PutDiscovered(iter([batch]))
    assert ack.ID == "b1"
    assert [pb.AckMessage.Status.Name(s) for s in ack.statuses] == ["OK", "SKIPPED", "OK"]
    big = pb.DiscoveredBatch(ID="big", items=[server.info(f"http://c.test/{i}")
                                              for i in range(1001)])
    with pytest.raises(api[2].RpcError) as refused:
        list(server.stub.PutDiscovered(iter([big])))
    assert code_of(refused) == "RESOURCE_EXHAUSTED"


# ---- the rest of the API

def test_node_and_crawl_listing(serve):
    server = serve()
    assert list(server.stub.ListCrawls(server.pb.Local()).values) == ["DEFAULT"]
    assert list(server.stub.ListNodes(server.pb.Empty()).values) == [server.address]


def crawl_three_hosts(server):
    """a.test/1 crawled, a.test/2 failed for good, a.test/3 leased, b.test/ queued,
    c.test/ queued behind a block."""
    server.put(*[server.discovered(u) for u in (
        "http://a.test/1", "http://a.test/2", "http://a.test/3", "http://b.test/",
        "http://c.test/")])
    server.stub.BlockQueueUntil(server.pb.BlockQueueParams(key="c.test",
                                                           time=int(time.time()) + 3600))
    handed = {i.url for i in server.get(delay=600)}
    assert handed == {"http://a.test/1", "http://a.test/2", "http://a.test/3", "http://b.test/"}
    assert server.put(server.known("http://a.test/1"),
                      server.known("http://a.test/2", crawlrank_failure="refused",
                                   crawlrank_retryable="false"),
                      server.known("http://b.test/", crawlrank_failure="timed out")) == [
        ("http://a.test/1", "OK"), ("http://a.test/2", "OK"), ("http://b.test/", "OK")]


def test_list_queues_pages_through_the_active_hosts(serve):
    server = serve("--delay", 0, "--per-host", 4)
    crawl_three_hosts(server)
    server.put(*[server.discovered(f"http://d.test/{i}") for i in range(3)])
    page = server.stub.ListQueues(server.pb.Pagination())
    # Most queued first: d.test (3 queued), a.test (one handed out). c.test is blocked:
    # inactive; b.test's only page waits for its retry: listed once it is due.
    assert (list(page.values), page.total, page.start, page.size, page.crawlID) == (
        ["d.test", "a.test"], 2, 0, 2, "DEFAULT")
    every = server.stub.ListQueues(server.pb.Pagination(include_inactive=True))
    assert list(every.values) == ["d.test", "c.test", "a.test"] and every.total == 3
    second = server.stub.ListQueues(server.pb.Pagination(include_inactive=True, start=1, size=1))
    assert (list(second.values), second.total, second.start, second.size) == (
        ["c.test"], 3, 1, 1)


def test_count_and_list_urls_filter_by_queue_and_substring(serve):
    server = serve("--delay", 0, "--per-host", 4)
    crawl_three_hosts(server)
    count = lambda **kw: server.stub.CountURLs(server.pb.CountUrlParams(**kw)).value  # noqa: E731
    assert count() == 5
    assert count(key="a.test") == 3
    assert count(filter="TEST/", ignoreCase=True) == 5 and count(filter="TEST/") == 0
    items = list(server.stub.ListURLs(server.pb.ListUrlParams(key="a.test")))
    states = {i.known.info.url: list(i.known.info.metadata["crawlrank.state"].values)[0]
              for i in items}
    assert states == {"http://a.test/1": "crawled", "http://a.test/2": "failed",
                      "http://a.test/3": "leased"}
    done = {i.known.info.url: i.known.refetchable_from_date for i in items}
    assert done["http://a.test/1"] == 0 and done["http://a.test/2"] == 0
    assert done["http://a.test/3"] >= int(time.time()) + 590  # its lease ends then
    # start and size page through the matches, in discovery order.
    window = server.stub.ListURLs(server.pb.ListUrlParams(start=1, size=2))
    assert [i.known.info.url for i in window] == ["http://a.test/2", "http://a.test/3"]


def test_get_url_status_says_where_a_url_stands(serve, api):
    server = serve("--delay", 0, "--per-host", 4)
    crawl_three_hosts(server)

    def status(url, key=""):
        item = server.stub.GetURLStatus(server.pb.URLStatusRequest(url=url, key=key))
        return (list(item.known.info.metadata["crawlrank.state"].values), item.known.info.key,
                item.known.refetchable_from_date)

    assert status("http://a.test/1") == (["crawled"], "a.test", 0)
    state, key, when = status("http://b.test/")
    assert (state, key) == (["retrying"], "b.test") and when >= int(time.time())
    assert status("http://C.TEST:80/", key="c.test")[0] == ["queued"]  # canonicalised
    for url, key in (("http://nowhere.test/", ""), ("http://a.test/1", "b.test")):
        with pytest.raises(api[2].RpcError) as missing:
            server.stub.GetURLStatus(server.pb.URLStatusRequest(url=url, key=key))
        assert code_of(missing) == "NOT_FOUND"
    with pytest.raises(api[2].RpcError) as bad:
        server.stub.GetURLStatus(server.pb.URLStatusRequest(url="not a url"))
    assert code_of(bad) == "INVALID_ARGUMENT" and "URLStatusRequest.url" in bad.value.details()


# ---- removals and limits

def test_delete_queue_removes_every_url_of_a_host_for_good(serve, api, bin_dir, tmp_path):
    server = serve("--delay", 0, "--per-host", 4)
    crawl_three_hosts(server)
    # a.test: 1 crawled, 2 failed, 3 handed out: one was not done yet.
    removed = server.stub.DeleteQueue(server.pb.QueueWithinCrawlParams(key="a.test"))
    assert removed.value == 1
    count = lambda **kw: server.stub.CountURLs(server.pb.CountUrlParams(**kw)).value  # noqa: E731
    assert count(key="a.test") == 0 and count() == 2
    with pytest.raises(api[2].RpcError) as gone:
        server.stub.GetURLStatus(server.pb.URLStatusRequest(url="http://a.test/3"))
    assert code_of(gone) == "NOT_FOUND"
    # The late report of a removed URL is taken; found again, it stays removed.
    assert server.put(server.known("http://a.test/3")) == [("http://a.test/3", "OK")]
    assert server.put(server.discovered("http://a.test/1")) == [("http://a.test/1", "SKIPPED")]
    assert server.put(server.discovered("http://a.test/new")) == [("http://a.test/new", "OK")]
    assert [i.url for i in server.get(key="a.test")] == ["http://a.test/new"]
    stats = server.stub.GetStats(server.pb.QueueWithinCrawlParams())
    assert stats.counts["removed"] == 3
    for key, field in (("", "QueueWithinCrawlParams.key"),):
        with pytest.raises(api[2].RpcError) as bad:
            server.stub.DeleteQueue(server.pb.QueueWithinCrawlParams(key=key))
        assert code_of(bad) == "INVALID_ARGUMENT" and field in bad.value.details()
    assert server.stop()[0] == 0
    check = run(bin_dir, "page_db_check", tmp_path / "db")
    assert "no damage found" in check.stdout
    assert db_stats(bin_dir, tmp_path / "db")["removed"] == 3


def test_delete_crawl_removes_everything_and_purge_takes_the_older_urls(serve, api):
    server = serve("--delay", 0, "--per-host", 4)
    server.put(*[server.discovered(f"http://a.test/old{i}") for i in range(3)])
    server.put(server.discovered("http://b.test/old"))
    time.sleep(1.1)  # creation times are kept to the second
    server.put(server.discovered("http://a.test/new"))
    items = {i.known.info.url: i.creation_date
             for i in server.stub.ListURLs(server.pb.ListUrlParams())}
    assert items["http://a.test/new"] > items["http://a.test/old0"] > 0
    assert abs(items["http://a.test/new"] - time.time()) < 5
    # Created more than 1 day ago: none. 0 days: every URL created before now.
    purge = server.stub.PurgeURLs
    assert purge(server.pb.PurgeUrlParams(key="a.test", days=1)).value == 0
    assert purge(server.pb.PurgeUrlParams(key="a.test", days=0)).value == 4
    assert purge(server.pb.PurgeUrlParams(days=10**9)).value == 0  # before 1970: nothing
    assert [i.known.info.url for i in server.stub.ListURLs(server.pb.ListUrlParams())] == [
        "http://b.test/old"]
    assert server.stub.DeleteCrawl(server.pb.DeleteCrawlMessage(value="DEFAULT")).value == 1
    assert server.stub.CountURLs(server.pb.CountUrlParams()).value == 0
    assert server.get() == []
    with pytest.raises(api[2].RpcError) as other:
        server.stub.DeleteCrawl(server.pb.DeleteCrawlMessage(value="another"))
    assert code_of(other) == "INVALID_ARGUMENT" and "DeleteCrawlMessage.value" in other.value.details()


def test_set_crawl_limit_caps_a_queue_and_survives_a_restart(serve, api):
    server = serve("--delay", 0, "--per-host", 10)
    server.put(*[server.discovered(f"http://a.test/{i}") for i in range(5)])
    server.stub.SetCrawlLimit(server.pb.CrawlLimitParams(key="a.test", limit=2))
    handed = [i.url for i in server.get()]
    assert len(handed) == 2
    assert server.put(*[server.known(url) for url in handed]) == [(u, "OK") for u in handed]
    assert server.get() == []
    server.stop()
    again = serve("--delay", 0, "--per-host", 10)
    assert again.get() == []
    again.stub.SetCrawlLimit(again.pb.CrawlLimitParams(key="a.test", limit=0))
    assert len(again.get()) == 3
    with pytest.raises(api[2].RpcError) as bad:
        again.stub.SetCrawlLimit(again.pb.CrawlLimitParams(limit=1))
    assert code_of(bad) == "INVALID_ARGUMENT" and "CrawlLimitParams.key" in bad.value.details()


def test_a_version_5_db_is_served_once_upgraded(serve, bin_dir, tmp_path):
    db = tmp_path / "db"
    shutil.copytree(pathlib.Path(__file__).parent.parent / "data" / "format-v5.db", db)
    started = subprocess.run([str(bin_dir / SERVER), str(db)], capture_output=True, text=True,
                             timeout=30)
    assert started.returncode == 1 and "page_db_upgrade" in started.stderr
    run(bin_dir, "page_db_upgrade", db)
    server = serve()
    assert server.stub.CountURLs(server.pb.CountUrlParams()).value == 10
    # Its pages date from the upgrade; the hold it was given still holds.
    created = {i.creation_date for i in server.stub.ListURLs(server.pb.ListUrlParams())}
    assert len(created) == 1 and abs(created.pop() - time.time()) < 60
    assert [i for i in server.get(key="held.example")] == []


def test_allow_deny_and_limits_given_to_the_server_are_stored_and_kept(serve, bin_dir,
                                                                       tmp_path):
    server = serve("--delay", 0, "--per-host", 10, "--allow", r"\.html$", "--deny", "/private/",
                   "--max-pages", 3)
    server.put(*[server.discovered(f"http://a.test/{path}") for path in (
        "1.html", "2.png", "private/3.html", "4.html", "5.html", "6.html")])
    handed = sorted(i.url for i in server.get())
    assert handed == ["http://a.test/1.html", "http://a.test/4.html",
                              "http://a.test/5.html"]  # 3: the limit
    server.stop()
    config = db_stats(bin_dir, tmp_path / "db")["config"]
    assert (config["allow"], config["deny"], config["max_pages"]) == (
        [r"\.html$"], ["/private/"], "3")
    # A restart without them keeps them (and returns the leases: the same three again),
    # and says so in the line every front end words alike (ResolvedConfig::Line).
    server = serve("--delay", 0, "--per-host", 10)
    server.put(server.discovered("http://b.test/7.png"))
    assert sorted(i.url for i in server.get()) == handed
    _, err = server.stop()
    assert err.splitlines()[0] == (
        f"crawlrank_serve: resumed with the configuration stored in {tmp_path / 'db'} (an "
        "option given to crawlrank serve overrides it)")


def test_block_queue_until_holds_a_host_and_zero_lets_it_go(serve):
    server = serve("--delay", 0)
    server.put(server.discovered("http://held.test/"), server.discovered("http://free.test/"))
    server.stub.BlockQueueUntil(server.pb.BlockQueueParams(key="held.test",
                                                           time=int(time.time()) + 3600))
    assert [i.url for i in server.get()] == ["http://free.test/"]
    assert server.get() == []
    server.stub.BlockQueueUntil(server.pb.BlockQueueParams(key="held.test", time=0))
    assert [i.url for i in server.get()] == ["http://held.test/"]


def test_a_block_survives_a_restart(serve):
    server = serve("--delay", 0)
    server.put(server.discovered("http://held.test/"))
    server.stub.BlockQueueUntil(server.pb.BlockQueueParams(key="held.test",
                                                           time=int(time.time()) + 3600))
    assert server.stop()[0] == 0
    again = serve("--delay", 0)
    assert again.get() == []


def test_set_delay_spaces_a_hosts_hand_outs_and_the_default_is_stored(serve, bin_dir, tmp_path):
    server = serve("--delay", 0)
    server.put(*[server.discovered(f"http://slow.test/{i}") for i in range(3)],
               *[server.discovered(f"http://fast.test/{i}") for i in range(3)])
    server.stub.SetDelay(server.pb.QueueDelayParams(key="slow.test", delay_requestable=3600))

    def drain():
        urls = []
        for _ in range(6):
            for info in server.get():
                urls.append(info.url)
                server.put(server.known(info.url))
        return urls

    handed = drain()
    assert sorted(u for u in handed if "fast" in u) == [f"http://fast.test/{i}" for i in range(3)]
    assert len([u for u in handed if "slow" in u]) == 1  # then an hour to wait
    # An empty key sets the default delay, and the crawl's configuration keeps it.
    server.stub.SetDelay(server.pb.QueueDelayParams(delay_requestable=7))
    assert db_stats(bin_dir, tmp_path / "db")["config"]["delay_ms"] == "7000"


def test_set_log_level_info_logs_each_change_to_stderr(serve):
    server = serve("--delay", 0)
    server.put(server.discovered("http://a.test/"))  # at WARN (the default): no line
    server.stub.SetLogLevel(server.pb.LogLevelParams(level=server.pb.LogLevelParams.INFO))
    server.put(server.discovered("http://a.test/"), server.discovered("http://b.test/"))
    server.stub.BlockQueueUntil(server.pb.BlockQueueParams(key="b.test", time=4102444800))
    assert [i.url for i in server.get()] == ["http://a.test/"]
    server.stub.SetLogLevel(server.pb.LogLevelParams(level=server.pb.LogLevelParams.TRACE))
    server.put(server.discovered("http://c.test/"))
    assert [i.url for i in server.get()] == ["http://c.test/"]
    server.stub.SetLogLevel(server.pb.LogLevelParams(level=server.pb.LogLevelParams.ERROR))
    server.put(server.discovered("http://d.test/"))  # quiet again
    code, err = server.stop()
    lines = err.splitlines()
    assert code == 0
    # After the calls' lines: the drain's and the three of the crawl's ranks (the blend's
    # pagerank and the display rank). None before them: a new crawl has no configuration
    # stored, so nothing to resume or change (ResolvedConfig::Line).
    assert len(lines) == 12, err
    assert "SIGTERM" in lines[-4]
    # Each call's line: the program, the time (UTC, milliseconds), the call.
    stamp = r"crawlrank_serve: \d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z "
    assert all(re.match(stamp, line) for line in lines[:-4]), err
    lines = [re.sub(stamp, "", line) for line in lines[:-1]]
    assert lines[0].startswith("SetLogLevel: level INFO from ")
    assert lines[1].startswith("PutURLs: from ") and lines[1].endswith(": 1 OK, 1 SKIPPED, 0 FAIL")
    assert lines[2].startswith('BlockQueueUntil: "b.test" until 4102444800 from ')
    assert lines[3].startswith("GetURLs: 1 URLs to ")
    # TRACE: also a line for each URL handed out, before the call's own.
    assert lines[4].startswith("SetLogLevel: level TRACE from ")
    assert lines[5].startswith("PutURLs: from ")
    assert lines[6].startswith('GetURLs: handed out "http://c.test/" of "c.test" to ')
    assert lines[7].startswith("GetURLs: 1 URLs to ")  # and at ERROR, nothing more


# ---- security

def test_with_a_token_every_call_needs_it(serve, api):
    server = serve("--token", "s3cret")
    params = server.pb.QueueWithinCrawlParams()
    for metadata in ([], [("authorization", "Bearer wrong")], [("authorization", "s3cret")]):
        with pytest.raises(api[2].RpcError) as refused:
            server.stub.GetStats(params, metadata=metadata)
        assert code_of(refused) == "UNAUTHENTICATED"
        assert "s3cret" not in refused.value.details()
    with pytest.raises(api[2].RpcError) as refused:
        server.stub.DeleteCrawl(server.pb.DeleteCrawlMessage())  # checked before anything
    assert code_of(refused) == "UNAUTHENTICATED"
    assert server.stub.GetStats(params, metadata=[("authorization", "Bearer s3cret")]).crawlID == "DEFAULT"


def test_an_address_other_machines_reach_needs_a_token(bin_dir, api, tmp_path):
    for tool, args in ((SERVER, []), ("crawlrank", ["serve"])):
        proc = run(bin_dir, tool, *args, tmp_path / "db", "--listen", "0.0.0.0:0", expect=2)
        assert "--token" in proc.stderr
    assert not (tmp_path / "db").exists()


def test_the_old_spellings_still_work_and_name_their_replacements(bin_dir, tmp_path):
    """Issue #42: --listen, --delay (seconds) and --lease replace --address, --delay-ms and
    --default-lease; the old ones work as before and say so; both at once is a usage error.
    The dashboard's --host and --port give way to --listen the same way."""
    from frontier_sites import start_server
    proc = subprocess.Popen(
        [str(bin_dir / SERVER), str(tmp_path / "db"), "--address", "127.0.0.1:0",
         "--delay-ms", "250", "--default-lease", "5", "--no-rank-at-exit"],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    assert proc.stdout.readline().startswith("listening on 127.0.0.1:")
    proc.terminate()
    _, err = proc.communicate(timeout=30)
    for old, new in (("--address", "--listen HOST:PORT"), ("--delay-ms", "--delay SECONDS"),
                     ("--default-lease", "--lease SECONDS")):
        assert f"{old} is deprecated; use {new}" in err, err
    stats = json.loads(run(bin_dir, "page_db_stats", tmp_path / "db", "--json").stdout)
    assert stats["config"]["delay_ms"] == "250"
    proc, _ = start_server(bin_dir, tmp_path / "db", "127.0.0.1:0", "--delay", 0.5,
                           "--no-rank-at-exit")
    proc.terminate()
    assert "delay_ms 250 -> 500" in proc.communicate(timeout=30)[1]
    both = run(bin_dir, SERVER, tmp_path / "db", "--delay", 1, "--delay-ms", 5, expect=2)
    assert "--delay replaces --delay-ms: give it alone" in both.stderr
    dashboard = subprocess.Popen(
        [str(bin_dir / "crawlrank_dashboard"), str(tmp_path / "db"), "--host", "127.0.0.1",
         "--port", "0"], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        assert dashboard.stdout.readline().startswith("dashboard of ")
        dashboard.terminate()
        err = dashboard.communicate(timeout=30)[1]
    finally:
        if dashboard.poll() is None:  # never left behind, whatever failed above
            dashboard.kill()
            dashboard.communicate()
    assert "--host is deprecated; use --listen HOST:PORT" in err
    assert "--port is deprecated; use --listen HOST:PORT" in err
    assert "give it alone" in run(bin_dir, "crawlrank_dashboard", tmp_path / "db", "--listen",
                                  "127.0.0.1:0", "--port", 0, expect=2).stderr
    assert "an IPv6 host goes in brackets" in run(
        bin_dir, "crawlrank_dashboard", tmp_path / "db", "--listen", "::1:0", expect=2).stderr


# ---- durability

def test_what_was_acknowledged_survives_kill_9(serve, bin_dir, tmp_path):
    server = serve("--delay", 0)
    server.put(server.discovered("http://a.test/done"), server.discovered("http://b.test/out"))
    handed = {i.url for i in server.get(delay=600)}
    assert handed == {"http://a.test/done", "http://b.test/out"}
    assert server.put(server.known("http://a.test/done")) == [("http://a.test/done", "OK")]
    server.proc.kill()  # SIGKILL, right after the ack
    server.proc.wait()
    run(bin_dir, "page_db_check", tmp_path / "db")
    again = serve("--delay", 0)
    stats = again.stub.GetStats(again.pb.QueueWithinCrawlParams())
    assert (stats.counts["completed"], stats.size) == (1, 1)
    # The lease of the URL never acknowledged died with the server: it is handed out again.
    assert [i.url for i in again.get()] == ["http://b.test/out"]
    assert again.stop()[0] == 0
    run(bin_dir, "page_db_check", tmp_path / "db")


def test_what_a_stream_had_acknowledged_survives_kill_9_mid_stream(serve, api, bin_dir,
                                                                   tmp_path):
    """Items are written a group at a time and acknowledged after each group's commit: a
    server SIGKILLed in the middle of a long stream keeps every URL it acknowledged."""
    server = serve("--delay", 0)
    items = (server.discovered(f"http://h{i % 50}.test/{i}") for i in range(20000))
    acked = []
    with pytest.raises(api[2].RpcError):
        for ack in server.stub.PutURLs(items):
            acked.append(ack.ID)
            if len(acked) == 3000:
                server.proc.kill()
    server.proc.wait()
    assert len(acked) >= 3000
    run(bin_dir, "page_db_check", tmp_path / "db")
    again = serve("--delay", 0)
    for url in acked:
        item = again.stub.GetURLStatus(again.pb.URLStatusRequest(url=url))  # NOT_FOUND: raises
        assert item.known.info.url == url

