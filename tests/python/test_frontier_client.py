"""crawlrank.frontier.Client against a real crawlrank_serve on 127.0.0.1: the calls a
crawler makes, batches past the server's cap, steering, a token, and a server killed and
restarted under a client that keeps calling."""

from __future__ import annotations

import json
import math
import os
import shutil
import signal
import subprocess
import threading
import time

import pytest

from frontier_sites import SERVER, require_server, start_server as start

pytestmark = pytest.mark.needs_crawlrank


@pytest.fixture
def frontier(bin_dir, tmp_path):
    """(server process, address); the server is killed after the test."""
    require_server(bin_dir)
    procs = []

    def serve(*args, address="127.0.0.1:0"):
        proc, where = start(bin_dir, tmp_path / "db", address, *args)
        procs.append(proc)
        return proc, where

    yield serve
    for proc in procs:
        if proc.poll() is None:
            proc.kill()
        proc.communicate()


def client(address, **kw):
    from crawlrank.frontier import Client
    return Client(address, **kw)


def test_a_crawler_discovers_gets_and_reports(frontier):
    _, address = frontier("--delay", 0, "--per-host", 2)
    with client(address) as c:
        assert c.discover(["http://a.test/", "http://b.test/", "http://a.test/"]) == [
            "ok", "ok", "skipped"]
        handed = c.get_urls(10, lease=60)
        assert sorted(h.url for h in handed) == ["http://a.test/", "http://b.test/"]
        assert {h.key for h in handed} == {"a.test", "b.test"}
        assert all(h.depth == 0 for h in handed)
        assert c.get_urls(10) == []  # both leased
        c.crawled("http://a.test/", links=["http://a.test/x", "http://c.test/"],
                  content_hash=0xfeed)
        c.failed("http://b.test/", "timed out")
        assert c.status("http://a.test/")["state"] == "crawled"
        assert c.status("http://b.test/")["state"] == "retrying"
        assert c.status("http://a.test/x")["state"] == "queued"
        assert c.status("http://nowhere.test/") is None
        stats = c.stats()
        assert stats["size"] == 3 and stats["crawled"] == 1 and stats["in_process"] == 0
        assert c.count_urls() == 4 and c.count_urls(key="a.test") == 2
        # One queue only, as many as its politeness lets out at once (2).
        c.discover(["http://a.test/y", "http://a.test/z"])
        assert len(c.get_urls(10, key="a.test")) == 2
        c.failed("http://c.test/", "refused", retryable=False)
        assert c.status("http://c.test/")["state"] == "failed"
        with pytest.raises(ValueError):
            c.get_urls(0)


def test_a_url_handed_out_names_the_page_that_found_it(frontier):
    """Issue #42: `crawlrank.referrer` (HandedOut.referrer): the page whose link found the
    URL first; a seed has none."""
    _, address = frontier("--delay", 0, "--per-host", 4)
    with client(address) as c:
        c.discover(["http://a.test/"])
        [seed] = c.get_urls(10)
        assert seed.referrer == ""
        c.crawled(seed.url, links=["http://a.test/x", "http://b.test/"])
        c.discover(["http://a.test/x"], source="http://b.test/")  # a later linker
        found = {h.url: h.referrer for h in c.get_urls(10)}
        assert found == {"http://a.test/x": "http://a.test/", "http://b.test/": "http://a.test/"}


def test_payloads_and_priorities_travel_with_the_urls(frontier):
    _, address = frontier("--delay", 0, "--per-host", 10)
    with client(address) as c:
        assert c.discover(["http://a.test/1", "http://a.test/2", "http://a.test/3"],
                          source="http://a.test/", payloads=[b"", b"\x00two", b"three"],
                          priorities=[0, 5, 0]) == ["ok"] * 3
        handed = c.get_urls(10, key="a.test")
        assert (handed[0].url, handed[0].payload, handed[0].priority) == (
            "http://a.test/2", b"\x00two", 5)  # its tier first
        # The rest, and the source page the links created, by score.
        assert {(h.url, h.payload, h.priority) for h in handed[1:]} == {
            ("http://a.test/3", b"three", 0), ("http://a.test/1", b"", 0),
            ("http://a.test/", b"", 0)}
        with pytest.raises(ValueError):
            c.discover(["http://a.test/4"], payloads=[])


def test_link_scores_order_a_link_score_crawl_and_kinds_file_failures(frontier, bin_dir,
                                                                      tmp_path):
    _, address = frontier("--delay", 0, "--per-host", 10, "--score-mode", "link-score")
    with client(address) as c:
        c.discover(["http://a.test/"])
        [front] = c.get_urls(1)
        c.crawled(front.url, links=[("http://a.test/low", 0.1), "http://a.test/none",
                                    ("http://a.test/high", 0.9)], content_score=0.25)
        c.discover(["http://a.test/mid"], source=front.url, scores=[0.5])
        assert [h.url for h in c.get_urls(10, key="a.test")] == [
            "http://a.test/high", "http://a.test/mid", "http://a.test/low",
            "http://a.test/none"]
        c.failed("http://a.test/none", "lookup failed", kind="dns", retryable=False)
    failed = json.loads(subprocess.run(
        [str(bin_dir / "page_db_failed"), str(tmp_path / "db"), "--json"],
        capture_output=True, text=True, check=True).stdout)
    assert [(f["url"], f["kind"]) for f in failed] == [("http://a.test/none", "dns")]
    front_page = json.loads(subprocess.run(
        [str(bin_dir / "page_db_dump"), "info", str(tmp_path / "db"), "--json"],
        capture_output=True, text=True, check=True).stdout.splitlines()[0])
    assert (front_page["url"], front_page["content_score"]) == ("http://a.test/", 0.25)


def test_discover_sends_more_than_one_batch(frontier):
    _, address = frontier()
    from crawlrank.frontier import MAX_BATCH
    urls = [f"http://h{i % 7}.test/{i}" for i in range(2 * MAX_BATCH + 5)]
    with client(address) as c:
        assert c.discover(urls + urls[:3]) == ["ok"] * len(urls) + ["skipped"] * 3
        assert c.count_urls() == len(urls)
        assert c.discover([]) == []


def test_steering_a_queue(frontier):
    _, address = frontier("--delay", 0, "--per-host", 10)
    with client(address) as c:
        c.discover([f"http://a.test/{i}" for i in range(4)] + ["http://b.test/"])
        c.set_limit("a.test", 1)
        assert sorted(h.url for h in c.get_urls(10, key="a.test")) == ["http://a.test/0"]
        c.block("b.test", time.time() + 3600)
        assert c.get_urls(10, key="b.test") == []
        c.block("b.test", 0)
        assert [h.url for h in c.get_urls(10, key="b.test")] == ["http://b.test/"]
        assert c.delete_queue("a.test") == 4
        assert c.count_urls() == 1
        assert c.purge(0) == 1 and c.count_urls() == 0
        c.set_delay(2)
        c.set_active(False)
        c.discover(["http://d.test/"])
        assert c.get_urls(10) == []
        c.set_active(True)
        assert [h.url for h in c.get_urls(10)] == ["http://d.test/"]


def test_a_token_goes_with_every_call(frontier):
    import grpc
    _, address = frontier("--token", "s3cret")
    with client(address, token="s3cret") as c:
        assert c.discover(["http://a.test/"]) == ["ok"]
    with client(address, token="wrong") as c:
        with pytest.raises(grpc.RpcError) as refused:
            c.stats()
        assert refused.value.code() == grpc.StatusCode.UNAUTHENTICATED


def test_a_client_waits_out_a_server_killed_and_restarted(frontier):
    proc, address = frontier("--delay", 0)
    with client(address, retry_for=30) as c:
        assert c.discover(["http://a.test/", "http://b.test/"]) == ["ok", "ok"]
        os.kill(proc.pid, signal.SIGKILL)
        proc.wait()

        # The same port, 1.5 s later: the calls below wait for it.
        def restart():
            time.sleep(1.5)
            frontier("--delay", 0, address=address)

        thread = threading.Thread(target=restart)
        thread.start()
        started = time.monotonic()
        assert c.discover(["http://c.test/"]) == ["ok"]
        waited = time.monotonic() - started
        thread.join()
        assert waited >= 1.0
        # What was acknowledged before the kill is there.
        assert c.count_urls() == 3
    with client(address, retry_for=0) as c:
        assert c.stats()["size"] == 3


def test_a_fetchers_refetch_date_brings_a_page_back_then_and_survives_a_restart(frontier):
    """StormCrawler's status updater sends its scheduler's next-fetch date with every report
    (refetchable_from_date). With revisits off (the server's default), a dated page comes
    back as a revisit at that date and not before, across a restart; a report without a
    date ends it."""
    import datetime
    proc, address = frontier("--delay", 0, "--no-rank-at-exit")
    with client(address) as c:
        c.discover(["http://a.test/", "http://b.test/"])
        assert sorted(h.url for h in c.get_urls(10)) == ["http://a.test/", "http://b.test/"]
        date = time.time() + 3
        c.crawled("http://a.test/", refetchable_from=date)
        c.crawled("http://b.test/")
        assert c.status("http://a.test/")["refetchable_from"] == math.ceil(date)
        assert c.status("http://b.test/")["refetchable_from"] == 0
        assert c.status("http://a.test/")["state"] == "crawled"
        assert c.get_urls(10) == []
        with pytest.raises(ValueError, match="time zone"):
            c.crawled("http://b.test/", refetchable_from=datetime.datetime(2030, 1, 1))
        # Milliseconds where seconds belong: the server names the field and the URL.
        import grpc
        with pytest.raises(grpc.RpcError, match="refetchable_from_date of .*b.test.*9999"):
            c.crawled("http://b.test/", refetchable_from=date * 1000)
    proc.terminate()
    proc.communicate()
    _, address = frontier("--delay", 0, "--no-rank-at-exit", address=address)
    with client(address) as c:
        assert c.status("http://a.test/")["refetchable_from"] == math.ceil(date)
        handed = []
        while not handed and time.time() < date + 10:
            handed = c.get_urls(10)
            if time.time() < date - 0.05:  # (a second's rounding aside) nothing before it
                assert handed == []
            time.sleep(0.1)
        assert time.time() >= date - 0.05
        assert [h.url for h in handed] == ["http://a.test/"]
        later = datetime.datetime.now(datetime.timezone.utc) + datetime.timedelta(days=1)
        c.crawled("http://a.test/", refetchable_from=later)
        assert c.status("http://a.test/")["refetchable_from"] == math.ceil(later.timestamp())
        c.crawled("http://a.test/")  # a report without a date: done
        assert c.status("http://a.test/")["refetchable_from"] == 0
        time.sleep(0.5)
        assert c.get_urls(10) == []


# ---- TLS

def make_certificates(folder):
    """A CA, a server certificate for 127.0.0.1 and localhost, and a client certificate,
    each signed by the CA (openssl, EC P-256, valid one day)."""
    if shutil.which("openssl") is None:
        pytest.skip("no openssl to make test certificates")

    def openssl(*args):
        subprocess.run(["openssl", *args], cwd=folder, check=True, capture_output=True)

    key = ["-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes"]
    openssl("req", "-x509", *key, "-keyout", "ca.key", "-out", "ca.pem", "-days", "1",
            "-subj", "/CN=crawlrank test CA")
    (folder / "server.ext").write_text("subjectAltName=IP:127.0.0.1,DNS:localhost\n")
    for name, ext in (("server", ["-extfile", "server.ext"]), ("client", [])):
        openssl("req", *key, "-keyout", f"{name}.key", "-out", f"{name}.csr",
                "-subj", f"/CN=crawlrank test {name}")
        openssl("x509", "-req", "-in", f"{name}.csr", "-CA", "ca.pem", "-CAkey", "ca.key",
                "-CAcreateserial", "-out", f"{name}.pem", "-days", "1", *ext)
    return folder


def test_tls_encrypts_and_client_certificates_admit_clients(frontier, tmp_path):
    import grpc
    pki = make_certificates(tmp_path)
    tls = ("--tls-cert", pki / "server.pem", "--tls-key", pki / "server.key")
    first, address = frontier(*tls)
    with client(address, tls_ca=pki / "ca.pem") as c:
        assert c.discover(["http://a.test/"]) == ["ok"]
    with client(address, retry_for=0, timeout=5) as plain:  # no TLS: no answer
        with pytest.raises(grpc.RpcError) as refused:
            plain.stats()
        assert refused.value.code() == grpc.StatusCode.UNAVAILABLE
    first.terminate()
    first.wait()
    # Mutual TLS: a client without a certificate of the CA gets nowhere.
    _, mutual = frontier(*tls, "--tls-client-ca", pki / "ca.pem")
    with client(mutual, tls_ca=pki / "ca.pem", tls_cert=pki / "client.pem",
                tls_key=pki / "client.key") as c:
        assert c.count_urls() == 1
    with client(mutual, tls_ca=pki / "ca.pem", retry_for=0, timeout=5) as anonymous:
        with pytest.raises(grpc.RpcError) as refused:
            anonymous.count_urls()
        assert refused.value.code() == grpc.StatusCode.UNAVAILABLE
    with pytest.raises(ValueError):
        client(mutual, tls_cert=pki / "client.pem")


def test_tls_settings_that_cannot_work_are_refused(bin_dir, tmp_path):
    if not (bin_dir / SERVER).exists():
        pytest.skip(f"no {SERVER} in {bin_dir}")
    pki = make_certificates(tmp_path)

    def serve(*args):
        return subprocess.run([str(bin_dir / SERVER), str(tmp_path / "db"), *map(str, args)],
                              capture_output=True, text=True, timeout=30)

    tls = ("--tls-cert", pki / "server.pem", "--tls-key", pki / "server.key")
    # Another machine could reach it, and TLS alone does not say who may call.
    wide = serve("--listen", "0.0.0.0:0", *tls)
    assert wide.returncode == 2 and "--tls-client-ca" in wide.stderr
    half = serve("--listen", "127.0.0.1:0", "--tls-cert", pki / "server.pem")
    assert half.returncode == 2 and "go together" in half.stderr
    lone_ca = serve("--listen", "127.0.0.1:0", "--tls-client-ca", pki / "ca.pem")
    assert lone_ca.returncode == 2 and "needs --tls-cert" in lone_ca.stderr
    missing = serve("--listen", "127.0.0.1:0", "--tls-cert", tmp_path / "none.pem",
                    "--tls-key", pki / "server.key")
    assert missing.returncode == 1 and "none.pem" in missing.stderr
    not_pem = serve("--listen", "127.0.0.1:0", "--tls-cert", pki / "server.ext",
                    "--tls-key", pki / "server.key")
    assert not_pem.returncode == 1 and "not a PEM file" in not_pem.stderr
