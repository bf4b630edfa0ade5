"""Local sites and a crawlrank serve for the shared-frontier tests (test_frontier_crawl.py,
test_scrapy_remote.py, test_frontier_docs.py, test_frontier_client.py): three CrawlSites named a.test, b.test and c.test, each linking to
the next one's /elsewhere.html (a 404)."""

from __future__ import annotations

import contextlib
import os
import re
import select
import subprocess
import time

import pytest

from crawl_site import CrawlSite

SERVER = "crawlrank_serve"
PAGES = 7  # per site: /gen/0..6 and /private/0..6, and the next site's /elsewhere.html


def require_server(bin_dir, *modules):
    """Skips the test without the server (a build without gRPC), python3-grpcio, or any of
    `modules` (e.g. "scrapy")."""
    if not (bin_dir / SERVER).exists():
        pytest.skip(f"no {SERVER} in {bin_dir} (built without gRPC)")
    for module in ("grpc", *modules):
        pytest.importorskip(module)


def client_env():
    """The environment of a crawler process the test starts: ours, with the built crawlrank
    package (CRAWLRANK_PYTHON_DIR) first on PYTHONPATH."""
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(
        p for p in (os.environ.get("CRAWLRANK_PYTHON_DIR"), env.get("PYTHONPATH")) if p)
    return env


def start_server(bin_dir, db, address="127.0.0.1:0", *args):
    proc = subprocess.Popen([str(bin_dir / SERVER), str(db), "--listen", address,
                             *map(str, args)], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            text=True)
    ready, _, _ = select.select([proc.stdout], [], [], 30)
    line = proc.stdout.readline() if ready else ""
    if not line.startswith("listening on "):
        proc.kill()
        pytest.fail(f"{SERVER} did not start: {line!r} {proc.communicate()[1]}")
    return proc, line.split()[-1]


@contextlib.contextmanager
def three_sites(**site_args):
    """Three CrawlSites (`site_args` as CrawlSite takes them); yields
    ({name:port -> port}, {name:port -> site})."""
    with contextlib.ExitStack() as stack:
        ports = []
        sites = []
        for _ in range(3):
            site = stack.enter_context(CrawlSite(pages=PAGES, **site_args))
            sites.append(site)
            ports.append(site.port)
        names = [f"{n}.test:{port}" for n, port in zip("abc", ports)]
        for i, site in enumerate(sites):  # each links to the next one
            site.other_host = names[(i + 1) % 3]
        yield dict(zip(names, ports)), dict(zip(names, sites))


def expected_paths():
    return ({f"/gen/{n}.html" for n in range(PAGES)} | {f"/private/{n}.html" for n in range(PAGES)}
            | {"/elsewhere.html"})




@contextlib.contextmanager
def all_clients_start_together(server, address, clients):
    """Holds the frontier inactive (it hands out nothing) until `clients` crawler processes,
    started inside the `with`, have each sent it something (their seeds), as the server's
    INFO log shows by their addresses; then lets them go. So that each takes part however
    slowly the machine starts them."""
    from crawlrank.frontier import Client

    with Client(address) as c:
        c.set_active(False)
        c.set_log_level("INFO")
    yield
    peers = set()
    deadline = time.monotonic() + 120
    fd = server.stderr.fileno()  # read raw: a buffered readline could sit on a second line
    pending = b""
    while len(peers) < clients:
        assert time.monotonic() < deadline, f"only {len(peers)} of {clients} clients came"
        ready, _, _ = select.select([fd], [], [], 1)
        if not ready:
            continue
        chunk = os.read(fd, 65536)
        assert chunk, "the server ended"
        *lines, pending = (pending + chunk).split(b"\n")
        for line in lines:
            match = re.match(r"crawlrank_serve: \S+ Put(?:URLs|Discovered): .*?from (\S+?):? ",
                             line.decode(errors="replace").rstrip() + " ")
            if match:
                peers.add(match.group(1))
    with Client(address) as c:
        c.set_log_level("WARN")  # nobody reads the server's stderr from here on
        c.set_active(True)
