"""Several crawler processes share one crawlrank serve (real processes, 127.0.0.1 only):
each page is fetched once, each host stays polite across all of them, a fetcher killed
with SIGKILL loses nothing (its leases come back), and so does a frontier killed and
restarted under them. The crawlers are tests/python/frontier_fetcher.py over
crawlrank.frontier.Client; the sites are crawl_site.CrawlSite, named a.test, b.test and
c.test (each links to the next one's /elsewhere.html, a 404)."""

from __future__ import annotations

import json
import os
import pathlib
import signal
import subprocess
import sys
import time

import pytest

from frontier_sites import (PAGES, all_clients_start_together, client_env, expected_paths,
                            require_server, start_server, three_sites)
from tool_runner import run

pytestmark = pytest.mark.needs_crawlrank

FETCHER = pathlib.Path(__file__).with_name("frontier_fetcher.py")


def fetcher(env, address, hosts, log, *args):
    return subprocess.Popen([sys.executable, str(FETCHER), address, json.dumps(hosts), str(log),
                             *map(str, args)], env=env, stderr=subprocess.PIPE, text=True)


def events(log):
    return [json.loads(line) for line in pathlib.Path(log).read_text().splitlines()]


@pytest.fixture
def setup(bin_dir, tmp_path):
    require_server(bin_dir)
    env = client_env()
    procs = []
    yield env, procs
    for proc in procs:
        if proc.poll() is None:
            proc.kill()
        proc.communicate()


def crawl_command(bin_dir, address, names, *args):
    """`crawlrank crawl --frontier ADDRESS` from each site's /gen/0.html, its names resolved
    to 127.0.0.1 (--allow-private), with `args` after."""
    resolve = [arg for name in names for arg in ("--resolve", f"{name}:127.0.0.1")]
    return [str(part) for part in (
        bin_dir / "crawlrank", "crawl", "--frontier", address,
        *[f"http://{name}/gen/0.html" for name in names], "--allow-private", *args, *resolve)]


def seed(address, hosts):
    from crawlrank.frontier import Client
    with Client(address) as c:
        assert c.discover([f"http://{name}/gen/0.html" for name in hosts]) == ["ok"] * 3


def test_two_fetchers_fetch_each_page_once_and_keep_each_host_polite(setup, bin_dir, tmp_path):
    env, procs = setup
    delay = 0.3
    server, address = start_server(bin_dir, tmp_path / "db", "127.0.0.1:0", "--delay",
                                   delay, "--per-host", 1)
    procs.append(server)
    with three_sites() as (hosts, sites):
        seed(address, hosts)
        logs = [tmp_path / f"fetcher{i}.jsonl" for i in range(2)]
        workers = [fetcher(env, address, hosts, log) for log in logs]
        procs.extend(workers)
        for w in workers:
            assert w.wait(timeout=120) == 0, w.stderr.read()
        for name, site in sites.items():
            paths = site.paths()
            assert sorted(paths) == sorted(expected_paths()), name  # each exactly once
    got = [e for log in logs for e in events(log) if e["event"] == "got"]
    assert len({e["pid"] for e in got}) == 2, "both fetchers took part"
    # Consecutive hand-outs of one host, across both processes: at least the delay apart
    # (less 50 ms for the time a URL takes to reach its fetcher).
    for name in hosts:
        times = sorted(e["time"] for e in got if f"//{name}/" in e["url"])
        assert len(times) == 2 * PAGES + 1
        gaps = [b - a for a, b in zip(times, times[1:])]
        assert min(gaps) >= delay - 0.05, (name, min(gaps))
    assert server.poll() is None
    server.send_signal(signal.SIGTERM)
    assert server.wait(timeout=30) == 0
    stats = json.loads(run(bin_dir, "page_db_stats", tmp_path / "db", "--json").stdout)
    assert stats["crawled_pages"] == 3 * (2 * PAGES + 1)
    # The graph: each /gen/ page links to its children, its /private/ page and the next
    # site's /elsewhere.html: 15 pages x 2 + 14 children, per site.
    assert stats["links"] == 3 * (2 * PAGES + PAGES - 1)
    assert "no damage found" in run(bin_dir, "page_db_check", tmp_path / "db").stdout


def test_a_fetcher_killed_with_sigkill_loses_nothing(setup, bin_dir, tmp_path):
    env, procs = setup
    lease = 2
    server, address = start_server(bin_dir, tmp_path / "db", "127.0.0.1:0", "--delay", 0,
                                   "--per-host", 2)
    procs.append(server)
    with three_sites() as (hosts, sites):
        seed(address, hosts)
        doomed_log = tmp_path / "doomed.jsonl"
        doomed = fetcher(env, address, hosts, doomed_log, "--lease", lease, "--batch", 6)
        procs.append(doomed)
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:  # kill it once it has done some and holds some
            seen = events(doomed_log) if doomed_log.exists() else []
            held = ({e["url"] for e in seen if e["event"] == "got"}
                    - {e["url"] for e in seen if e["event"] == "sent"})
            if sum(e["event"] == "done" for e in seen) >= 5 and len(held) >= 3:
                break
            time.sleep(0.002)
        os.kill(doomed.pid, signal.SIGKILL)
        doomed.wait()
        before = events(doomed_log)
        of = lambda event: {e["url"] for e in before if e["event"] == event}  # noqa: E731
        unsent, unacked = of("got") - of("sent"), of("got") - of("done")
        assert unsent, "killed while it held URLs it had not reported"
        killed_at = time.time()
        survivor_log = tmp_path / "survivor.jsonl"
        survivor = fetcher(env, address, hosts, survivor_log, "--lease", lease)
        procs.append(survivor)
        assert survivor.wait(timeout=120) == 0, survivor.stderr.read()
        for name, site in sites.items():
            assert set(site.paths()) == expected_paths(), name  # every page, at least once
    after = events(survivor_log)
    # What the killed fetcher held came back to the survivor, once its lease ran out.
    # (a report sent but not acknowledged may have landed: then it is not handed out again).
    regained = {e["url"]: e["time"] for e in after if e["event"] == "got" and e["url"] in unacked}
    assert unsent <= set(regained) <= unacked
    assert all(t >= killed_at - 0.1 for t in regained.values())
    from crawlrank.frontier import Client
    with Client(address) as c:
        stats = c.stats()
        assert stats["size"] == 0 and stats["crawled"] == 3 * (2 * PAGES + 1)


def test_a_frontier_killed_and_restarted_under_its_fetchers_loses_nothing(setup, bin_dir,
                                                                           tmp_path):
    env, procs = setup
    server, address = start_server(bin_dir, tmp_path / "db", "127.0.0.1:0", "--delay", 0.05,
                                   "--per-host", 1)
    procs.append(server)
    with three_sites() as (hosts, sites):
        seed(address, hosts)
        log = tmp_path / "fetcher.jsonl"
        worker = fetcher(env, address, hosts, log, "--lease", 3)
        procs.append(worker)
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            if log.exists() and sum(e["event"] == "done" for e in events(log)) >= 10:
                break
            time.sleep(0.005)
        server.kill()  # SIGKILL: no draining
        server.wait()
        done_before = {e["url"] for e in events(log) if e["event"] == "done"}
        time.sleep(0.5)
        restarted, _ = start_server(bin_dir, tmp_path / "db", address, "--delay", 0.05,
                                    "--per-host", 1)
        procs.append(restarted)
        assert worker.wait(timeout=120) == 0, worker.stderr.read()
        for name, site in sites.items():
            assert set(site.paths()) == expected_paths(), name
    from crawlrank.frontier import Client
    with Client(address) as c:
        assert c.stats()["crawled"] == 3 * (2 * PAGES + 1)
        # Every report acknowledged before the kill is there.
        assert all(c.status(url)["state"] == "crawled" for url in done_before)
    restarted.send_signal(signal.SIGTERM)
    assert restarted.wait(timeout=30) == 0
    assert "no damage found" in run(bin_dir, "page_db_check", tmp_path / "db").stdout


def test_two_crawlrank_crawls_through_one_frontier(setup, bin_dir, tmp_path):
    """`crawlrank crawl --frontier`: the built-in crawler as a client, twice at once. Each
    obeys robots.txt (which it fetches itself: its cache lives in its process), so the
    /private/ pages are never fetched; every other page once."""
    env, procs = setup
    server, address = start_server(bin_dir, tmp_path / "db", "127.0.0.1:0", "--delay", 0.1,
                                   "--per-host", 1)
    procs.append(server)
    with three_sites(page_delay=0.1) as (hosts, sites):  # each crawl busy with its own
        command = crawl_command(bin_dir, address, list(hosts), "--json", "--quiet",
                                "--concurrency", 2)
        with all_clients_start_together(server, address, 2):
            crawls = [subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                       text=True) for _ in range(2)]
        procs.extend(crawls)
        summaries = []
        for crawl in crawls:
            out, err = crawl.communicate(timeout=120)
            assert crawl.returncode == 0, err
            summaries.append(json.loads(out))
        for name, site in sites.items():
            paths = [p for p in site.paths() if p != "/robots.txt"]
            assert sorted(paths) == sorted(
                p for p in expected_paths() if not p.startswith("/private/")), name
            assert 1 <= site.paths().count("/robots.txt") <= 2
    assert all(s["finished"] and s["frontier"] == address for s in summaries)
    assert sum(s["pages"] for s in summaries) == 3 * (PAGES + 1)
    assert all(s["pages"] > 0 for s in summaries), "both took part"
    from crawlrank.frontier import Client
    with Client(address) as c:
        stats = c.stats()
        assert stats["crawled"] == 3 * (PAGES + 1)
        assert stats["failed"] == 3 * PAGES  # the /private/ pages, robots-disallowed
    failed = json.loads(subprocess.run(
        [str(bin_dir / "page_db_failed"), str(tmp_path / "db"), "--json"], capture_output=True,
        text=True, check=True).stdout)
    # The kind each crawler files (crawlrank.failure_kind), as page_db_failed shows it.
    assert {f["kind"] for f in failed} == {"robots-disallowed"}
    # Bad use: no DB and no frontier; a scope of its own.
    usage = subprocess.run([str(bin_dir / "crawlrank"), "crawl"], capture_output=True, text=True)
    assert usage.returncode == 2 and "--frontier" in usage.stderr
    scoped = subprocess.run(command + ["--same-host"], capture_output=True, text=True)
    assert scoped.returncode == 2 and "the server's" in scoped.stderr


def test_crawlrank_crawls_killed_at_random_points_lose_nothing(setup, bin_dir, tmp_path):
    """Two `crawlrank crawl --frontier` SIGKILLed one after the other at random moments
    (seeded; the seed is printed), then a third: the crawl completes, each page crawled
    once in the server's count, and the PageDB checks clean."""
    import random
    seed_value = int(os.environ.get("CRAWLRANK_TEST_SEED", time.time_ns() % 1_000_000))
    print(f"seed {seed_value} (CRAWLRANK_TEST_SEED={seed_value} repeats this run)")
    rng = random.Random(seed_value)
    env, procs = setup
    server, address = start_server(bin_dir, tmp_path / "db", "127.0.0.1:0", "--delay", 0,
                                   "--per-host", 1)
    procs.append(server)
    from crawlrank.frontier import Client
    with three_sites(page_delay=0.25) as (hosts, sites):  # 2 s of fetching a host at least
        names = list(hosts)
        command = crawl_command(bin_dir, address, names, "--json", "--quiet", "--concurrency", 3,
                                "--lease", 2)
        for _ in range(2):
            doomed = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
            procs.append(doomed)
            time.sleep(rng.uniform(0.2, 0.7))
            doomed.kill()
            doomed.communicate()
            with Client(address) as c:
                assert c.stats()["size"] > 0, "killed before the crawl was over"
        last = subprocess.run(command, capture_output=True, text=True, timeout=120)
        assert last.returncode == 0, last.stderr
        assert json.loads(last.stdout)["finished"]
        for name, site in sites.items():  # every page at least once (a kill may repeat one)
            assert {p for p in site.paths() if p != "/robots.txt"} == {
                p for p in expected_paths() if not p.startswith("/private/")}, name
    with Client(address) as c:
        stats = c.stats()
        assert (stats["size"], stats["crawled"], stats["failed"]) == (
            0, 3 * (PAGES + 1), 3 * PAGES)
    server.terminate()
    assert server.wait(timeout=30) == 0
    run(bin_dir, "page_db_check", tmp_path / "db")


def test_the_built_in_crawler_scrapy_and_a_python_client_share_one_frontier(setup, bin_dir,
                                                                           tmp_path):
    """One frontier, three kinds of crawler at once: `crawlrank crawl --frontier`, a Scrapy
    process in remote mode and the Python fetcher. The sites have no robots.txt, so that
    all three fetch the same pages: each page once in all, and no two requests to a host
    closer than half the delay (the sites' arrival times carry each client's own latency
    between hand-out and request; without politeness across processes they would be
    milliseconds apart)."""
    pytest.importorskip("scrapy")
    env, procs = setup
    delay = 0.4
    server, address = start_server(bin_dir, tmp_path / "db", "127.0.0.1:0", "--delay",
                                   delay, "--per-host", 1)
    procs.append(server)
    with three_sites(robots=None) as (hosts, sites):
        names = list(hosts)
        seeds = [f"http://{name}/gen/0.html" for name in names]
        crawl = subprocess.Popen(
            crawl_command(bin_dir, address, names, "--json", "--quiet", "--concurrency", 2),
            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        spider = subprocess.Popen(
            ["/usr/bin/python3", str(pathlib.Path(__file__).with_name("scrapy_remote.py")),
             address, json.dumps(hosts), str(tmp_path / "spider.json"), *seeds],
            env=env, stderr=subprocess.PIPE, text=True)
        python = fetcher(env, address, hosts, tmp_path / "fetcher.jsonl", "--batch", 2)
        procs.extend([crawl, spider, python])
        out, err = crawl.communicate(timeout=180)
        assert crawl.returncode == 0, err
        assert spider.wait(timeout=180) == 0, spider.stderr.read()[-3000:]
        assert python.wait(timeout=180) == 0, python.stderr.read()
        for name, site in sites.items():
            log = [h for h in site.log() if h.path != "/robots.txt"]
            assert sorted(h.path for h in log) == sorted(expected_paths()), name
            times = sorted(h.time for h in log)
            assert min(b - a for a, b in zip(times, times[1:])) >= delay / 2, name
    fetched = {
        "crawlrank crawl": json.loads(out)["pages"],
        "scrapy": len(json.loads((tmp_path / "spider.json").read_text())["seen"]),
        "python": sum(e["event"] == "done" for e in events(tmp_path / "fetcher.jsonl")),
    }
    assert sum(fetched.values()) == 3 * (2 * PAGES + 1), fetched


def test_a_crawl_through_a_frontier_logs_each_pages_referrer(setup, bin_dir, tmp_path):
    """Issue #42: the referrer travels with the URL handed out (`crawlrank.referrer`), so
    `crawlrank crawl --frontier --log` names it as a local crawl does (it logged none
    before): the seeds none, every other page the one whose link found it first."""
    env, procs = setup
    server, address = start_server(bin_dir, tmp_path / "db", "127.0.0.1:0", "--delay", 0,
                                   "--per-host", 1, "--no-rank-at-exit")
    procs.append(server)
    log = tmp_path / "fetches.jsonl"
    with three_sites() as (hosts, sites):
        names = list(hosts)
        seeds = [f"http://{name}/gen/0.html" for name in names]
        done = subprocess.run(crawl_command(bin_dir, address, names, "--quiet", "--log", log),
                              capture_output=True, text=True, timeout=120)
        assert done.returncode == 0, done.stderr
    server.terminate()
    assert server.wait(timeout=30) == 0
    rows = {row["url"]: row for row in map(json.loads, run(
        bin_dir, "page_db_dump", "info", tmp_path / "db", "--json").stdout.splitlines())}
    by_hash = {row["hash"]: url for url, row in rows.items()}
    lines = events(log)
    assert {line["url"] for line in lines} >= set(seeds)
    for line in lines:
        expected = by_hash.get(rows[line["url"]]["discovered_from"])
        assert line["referrer"] == expected, line
    assert sum(line["referrer"] is not None for line in lines) > len(seeds)


def test_a_crawl_through_a_frontier_killed_keeps_its_log_but_the_last_seconds(setup, bin_dir,
                                                                               tmp_path):
    """docs/crawler.md: a killed crawl loses only its last seconds of log. With --frontier
    too (one run loop for both since issue #42: the log is flushed at each progress
    report): killed after 4.5 s of fetching, the log has a line for each page of its first
    1.5 s at least."""
    env, procs = setup
    # A second between two requests to a host: the crawl lasts well past the kill.
    server, address = start_server(bin_dir, tmp_path / "db", "127.0.0.1:0", "--delay", 1,
                                   "--per-host", 1, "--no-rank-at-exit")
    procs.append(server)
    log = tmp_path / "fetches.jsonl"
    with three_sites() as (hosts, sites):
        crawler = subprocess.Popen(crawl_command(bin_dir, address, list(hosts), "--quiet",
                                                 "--log", log),
                                   stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        procs.append(crawler)
        started = time.monotonic()
        fetched_early = 0
        while time.monotonic() - started < 4.5 and crawler.poll() is None:
            if time.monotonic() - started < 1.5:  # fetched well before the last report
                fetched_early = sum(len([p for p in site.paths() if p != "/robots.txt"])
                                    for site in sites.values())
            time.sleep(0.05)
        assert crawler.poll() is None, "the crawl ended before it could be killed"
        crawler.kill()
        crawler.communicate()
    assert fetched_early > 0
    assert log.exists() and len(events(log)) >= fetched_early, (fetched_early, log.read_text())


def test_a_crawl_through_a_frontier_ends_when_the_servers_max_pages_is_reached(setup, bin_dir,
                                                                                tmp_path):
    """A frontier whose crawl-wide --max-pages is reached is over with pages still queued:
    its crawlers end (they waited for an empty queue before), and so does Scrapy's remote
    mode, which reads the same counts."""
    env, procs = setup
    server, address = start_server(bin_dir, tmp_path / "db", "127.0.0.1:0", "--delay", 0,
                                   "--max-pages", 4)
    procs.append(server)
    with three_sites() as (hosts, _):
        crawl = subprocess.run(crawl_command(bin_dir, address, list(hosts), "--json", "--quiet"),
                               capture_output=True, text=True, timeout=120)
    assert crawl.returncode == 0, crawl.stderr
    summary = json.loads(crawl.stdout)
    assert summary["finished"] and 0 < summary["pages"] <= 4, summary
    from crawlrank.frontier import Client
    with Client(address) as c:
        stats = c.stats()
    assert stats["crawled"] == summary["pages"], stats
    assert stats["size"] > 0 and stats["finished"] == stats["nodes"] == 1, stats
