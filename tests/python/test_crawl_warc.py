"""`crawlrank crawl --warc DIR` (issue 27): every exchange kept as WARC 1.1, bodies as the
server sent them, read back by the tests' own reader (warc_reader.py, which checks every
block and payload digest) and compared with what a server the test starts on 127.0.0.1
logged and sent. Then Ctrl-C and kill -9 in the middle of a crawl: only whole records.
"""

from __future__ import annotations

import collections
import gzip
import http.server
import json
import os
import pathlib
import random
import shutil
import signal
import subprocess
import threading
import time
import zlib

import pytest

from crawl_site import CrawlSite
from doc_site import DocSite
from local_server import LocalServer, reply
from warc_reader import read_warc

brotli = pytest.importorskip("brotli", reason="python3-brotli (scripts/install-deps.sh)")
zstandard = pytest.importorskip("zstandard", reason="python3-zstandard (scripts/install-deps.sh)")

LOCAL = ("--allow-private", "--quiet", "--json", "--same-host", "--delay", "0")


def page(name: str) -> bytes:
    """A page whose one link (to /from-NAME) is found only if its body was decoded."""
    return (f"<html><head><title>page {name} \u00e9t\u00e9</title></head><body>"
            f"<p>{'text ' * 200}</p><a href=\"/from-{name}\">next</a></body></html>").encode()


def raw_deflate(data: bytes) -> bytes:
    c = zlib.compressobj(wbits=-15)
    return c.compress(data) + c.flush()


# path -> (Content-Encoding, how the body is encoded)
ENCODED = {
    "/gzip": ("gzip", gzip.compress),
    "/deflate": ("deflate", zlib.compress),
    "/raw-deflate": ("deflate", raw_deflate),
    "/br": ("br", brotli.compress),
    "/zstd": ("zstd", lambda b: zstandard.ZstdCompressor().compress(b)),
    "/gzip-br": ("gzip, br", lambda b: brotli.compress(gzip.compress(b))),
}
BOMB = gzip.compress(b"\0" * (4 << 20))  # 4 MiB of zeros in about 4 KB


class CodingSite(LocalServer):
    """Serves each coding, a chunked page, a redirect, a 404, and a gzip bomb; records every
    request's path and headers, and every body exactly as sent."""

    def __init__(self) -> None:
        site = self
        self.requests: list[tuple[str, dict[str, str]]] = []
        self.sent: dict[str, bytes] = {}
        self.lock = threading.Lock()

        class Handler(http.server.BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def answer(self, status: int, body: bytes, headers: dict[str, str]) -> None:
                with site.lock:
                    site.sent[self.path] = body
                if "Transfer-Encoding" not in headers:
                    reply(self, status, body, headers)
                    return
                self.send_response(status)
                for k, v in headers.items():
                    self.send_header(k, v)
                self.end_headers()
                for part in (body[:100], body[100:1000], body[1000:]):  # three chunks, the last
                    self.wfile.write(b"%x\r\n%s\r\n" % (len(part), part))
                self.wfile.write(b"0\r\n\r\n")

            def do_GET(self):  # noqa: N802
                with site.lock:
                    site.requests.append((self.path, {k.lower(): v for k, v in self.headers.items()}))
                html = {"Content-Type": "text/html; charset=utf-8"}
                if self.path == "/robots.txt":
                    self.answer(200, b"User-agent: *\nDisallow: /private\n", {"Content-Type": "text/plain"})
                elif self.path == "/":
                    links = "".join(f'<a href="{p}">{p}</a> ' for p in
                                    [*ENCODED, "/chunked", "/moved", "/missing", "/bomb"])
                    self.answer(200, f"<html><title>home</title>{links}</html>".encode(), html)
                elif self.path in ENCODED:
                    coding, encode = ENCODED[self.path]
                    self.answer(200, encode(page(self.path[1:])), {**html, "Content-Encoding": coding})
                elif self.path == "/chunked":
                    self.answer(200, page("chunked"), {**html, "Transfer-Encoding": "chunked"})
                elif self.path == "/moved":
                    self.answer(301, b"", {"Location": "/gzip"})
                elif self.path == "/bomb":
                    self.answer(200, BOMB, {**html, "Content-Encoding": "gzip"})
                elif self.path.startswith("/from-"):
                    self.answer(200, b"<html><title>leaf</title></html>", html)
                else:
                    self.answer(404, b"not here", {"Content-Type": "text/plain"})

            def log_message(self, *args):
                pass

        super().__init__(Handler)


def crawl(bin_dir: pathlib.Path, db: pathlib.Path, *args: object) -> dict:
    proc = subprocess.run([str(bin_dir / "crawlrank"), "crawl", str(db), *map(str, args)],
                          capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    return json.loads(proc.stdout)


def warc_records(folder: pathlib.Path) -> list:
    files = sorted(folder.glob("*.warc.gz"))
    assert files, f"no WARC file in {folder}"
    records = []
    for f in files:  # each file reads whole, every digest checked, and starts with warcinfo
        in_file = read_warc(f)
        assert in_file[0].type == "warcinfo" and in_file[0].version == "WARC/1.1"
        assert in_file[0].headers["warc-filename"] == f.name
        assert all(r.headers["warc-warcinfo-id"] == in_file[0].headers["warc-record-id"]
                   for r in in_file[1:])
        records += in_file[1:]
    return records


def pairs(records: list) -> dict[str, tuple]:
    """Target URI -> (request, response); each response names its request and vice versa."""
    requests = {r.headers["warc-concurrent-to"]: r for r in records if r.type == "request"}
    out = {}
    for response in (r for r in records if r.type == "response"):
        request = requests.pop(response.headers["warc-record-id"])
        assert request.target_uri == response.target_uri
        assert response.target_uri not in out, f"{response.target_uri} archived twice"
        out[response.target_uri] = (request, response)
    assert not requests, "requests without their response"
    return out


def test_every_exchange_is_kept_as_sent_and_decoded_for_the_crawl(bin_dir, tmp_path):
    with CodingSite() as site:
        base = f"http://127.0.0.1:{site.port}"
        summary = crawl(bin_dir, tmp_path / "db", base + "/", *LOCAL, "--warc", tmp_path / "warc",
                        "--max-body", 1 << 20)
        asked = [path for path, _ in site.requests]
        sent = dict(site.sent)
        headers = dict(site.requests)
    # Every page was decoded: the link only its decoded body holds was followed.
    for name in [p[1:] for p in ENCODED] + ["chunked"]:
        assert f"/from-{name}" in asked, name
    assert "/bomb" in asked and summary["errors_by_kind"] == {"too-large": 1}, summary
    archived = pairs(warc_records(tmp_path / "warc"))
    assert sorted(u.removeprefix(base) for u in archived) == sorted(asked)
    for url, (request, response) in archived.items():
        path = url.removeprefix(base)
        assert response.headers["warc-ip-address"] == "127.0.0.1"
        assert response.headers["content-type"] == "application/http;msgtype=response"
        head, _, body = response.block.partition(b"\r\n\r\n")
        assert body == sent[path], path  # as sent: still encoded, de-chunked
        assert head.startswith(b"HTTP/1.1 ")
        assert b"transfer-encoding" not in head.lower()
        assert request.block.startswith(f"GET {path} HTTP/1.1\r\n".encode())
        assert request.block.endswith(b"\r\n\r\n")
        # What the server got is what the request record says was sent.
        request_headers = {line.split(b":", 1)[0].decode().lower(): line.split(b":", 1)[1].strip().decode()
                           for line in request.block.split(b"\r\n")[1:] if b":" in line}
        assert request_headers == headers[path], path
        assert request_headers["accept-encoding"] == "gzip, deflate, br, zstd"
    assert archived[base + "/moved"][1].block.startswith(b"HTTP/1.1 301 ")
    assert archived[base + "/missing"][1].block.startswith(b"HTTP/1.1 404 ")
    assert archived[base + "/robots.txt"][1].block.endswith(b"Disallow: /private\n")
    # The bomb failed the page, but the exchange happened and is kept as it came (4 KB).
    assert archived[base + "/bomb"][1].block.endswith(BOMB)


def test_without_warc_libcurl_decodes_and_the_crawl_is_the_same(bin_dir, tmp_path):
    """The same site crawled without --warc (libcurl decodes) and with it (crawlrank does):
    the same requests, the same outcome."""
    outcomes = []
    for warc in ([], ["--warc", tmp_path / "warc"]):
        with CodingSite() as site:
            summary = crawl(bin_dir, tmp_path / f"db{len(outcomes)}", f"http://127.0.0.1:{site.port}/",
                            *LOCAL, "--max-body", 1 << 20, *warc)
            asked = {path for path, _ in site.requests}
        outcomes.append((sorted(asked), summary["statuses"], summary["errors_by_kind"]))
        if not warc:
            assert {f"/from-{p[1:]}" for p in ENCODED} <= asked
            assert not (tmp_path / "warc").exists()
    assert outcomes[0] == outcomes[1]


def test_files_rotate_by_size_and_every_file_stands_alone(bin_dir, tmp_path):
    with CrawlSite(pages=40) as site:
        crawl(bin_dir, tmp_path / "db", f"http://127.0.0.1:{site.port}/gen/0.html", *LOCAL,
              "--warc", tmp_path / "warc", "--warc-max-size", 4000)
        asked = [h.path for h in site.log()]
    files = sorted((tmp_path / "warc").glob("crawlrank-*.warc.gz"))
    assert len(files) > 3
    assert len(asked) == 41  # robots.txt and the 40 pages
    assert sorted(pairs(warc_records(tmp_path / "warc"))) == sorted(
        f"http://127.0.0.1:{site.port}{p}" for p in asked)


@pytest.mark.parametrize("sig", [signal.SIGINT, signal.SIGKILL], ids=["ctrl-c", "kill-9"])
def test_a_stopped_crawl_leaves_whole_records_and_the_next_run_goes_on(bin_dir, tmp_path, sig):
    seed = int(os.environ.get("CRAWLRANK_TEST_SEED", random.randrange(1 << 30)))
    print(f"seed {seed} (CRAWLRANK_TEST_SEED repeats it)")
    rng = random.Random(seed)
    with CrawlSite(pages=200, page_delay=0.05) as site:
        url = f"http://127.0.0.1:{site.port}/gen/0.html"
        args = [str(bin_dir / "crawlrank"), "crawl", str(tmp_path / "db"), url, *LOCAL,
                "--concurrency", "4", "--per-host", "4", "--warc", str(tmp_path / "warc")]
        proc = subprocess.Popen(args, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        time.sleep(rng.uniform(0.4, 1.5))
        proc.send_signal(sig)
        _, err = proc.communicate(timeout=60)
        assert proc.returncode == (130 if sig == signal.SIGINT else -9), err
        assert pairs(warc_records(tmp_path / "warc")), "nothing archived before the signal"
        subprocess.run(args, check=True, capture_output=True, timeout=120)
        asked = collections.Counter(f"http://127.0.0.1:{site.port}{h.path}" for h in site.log())
    # Every file of both runs reads whole (a torn record raises), and every exchange kept
    # was one the server answered. A page is archived before its report is committed, so
    # each page is archived at least once; the only answers missing are those of the
    # transfers the signal cut off (at most --concurrency), which the next run fetched again.
    archived = collections.Counter(r.target_uri for r in warc_records(tmp_path / "warc")
                                   if r.type == "response")
    assert not archived - asked, "archived exchanges the server never answered"
    assert set(archived) == set(asked)
    assert sum((asked - archived).values()) <= 4


def test_the_same_site_archived_by_wget_has_the_same_payloads(bin_dir, tmp_path):
    """LMDB's reference, one link deep, archived by `wget --warc-file` and by crawlrank: every
    page both fetched has the same payload digest and status line in both archives."""
    docs = pathlib.Path("/usr/share/doc/lmdb-doc/html")
    if shutil.which("wget") is None or not (docs / "index.html").exists():
        pytest.skip("needs wget and lmdb-doc (scripts/install-deps.sh)")
    with DocSite(docs, extras=False) as site:
        start = f"http://127.0.0.1:{site.port}/index.html"
        subprocess.run(["wget", "-q", "-r", "-l", "1", "-P", str(tmp_path / "files"),
                        f"--warc-file={tmp_path / 'wget'}", start], check=False, timeout=120)
        crawl(bin_dir, tmp_path / "db", start, *LOCAL, "--max-depth", "1", "--warc", tmp_path / "warc")

    def responses(records: list) -> dict[str, tuple[bytes, str]]:
        return {r.target_uri: (r.block.split(b"\r\n", 1)[0], r.headers["warc-payload-digest"])
                for r in records if r.type == "response"}

    theirs = responses(read_warc(tmp_path / "wget.warc.gz"))
    ours = responses(warc_records(tmp_path / "warc"))
    both = set(theirs) & set(ours)
    assert len(both) >= 5 and len(both) >= len(ours) - 2, (sorted(theirs), sorted(ours))
    for url in both:
        assert ours[url] == theirs[url], url


def test_a_compressed_robots_txt_over_its_cap_is_obeyed_and_kept_whole(bin_dir, tmp_path):
    """robots.txt is read to its first 500 KiB (decoded). With --warc the body arrives as
    sent, so a gzip robots.txt of 700 KiB decoded must still be decoded to its first 500 KiB
    (its rules come first) and archived as sent."""
    robots = gzip.compress(b"User-agent: *\nDisallow: /private\n" + b"# filler line\n" * 50_000)
    asked = []

    class Handler(http.server.BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def do_GET(self):  # noqa: N802
            asked.append(self.path)
            if self.path == "/robots.txt":
                reply(self, 200, robots, {"Content-Type": "text/plain", "Content-Encoding": "gzip"})
            else:
                reply(self, 200, b'<html><a href="/private/x">p</a> <a href="/ok">ok</a></html>')

        def log_message(self, *args):
            pass

    with LocalServer(Handler) as site:
        base = f"http://127.0.0.1:{site.port}"
        summary = crawl(bin_dir, tmp_path / "db", base + "/", *LOCAL, "--warc", tmp_path / "warc")
    assert "/ok" in asked and "/private/x" not in asked, asked
    assert summary["robots_disallowed"] == 1, summary
    archived = pairs(warc_records(tmp_path / "warc"))
    assert archived[base + "/robots.txt"][1].block.endswith(robots)
