"""examples/scrapy_project works as its documentation says: each shell block of
examples/scrapy_project/README.md, and the README's "Scrapy in three steps" from its `cd`
on, is read out of the file and run as written (in a copy of the project, from the directory
the block names), against a small site this test serves on 127.0.0.1.

Only the placeholders are replaced: `https://your.site/` by the local site, `../../build/...`
and `/path/to/frontera` by the package, tools and Frontera this suite was given. `python3`
and `scrapy` are Debian's (/usr/bin first on PATH)."""

from __future__ import annotations

import http.server
import os
import re
import shutil
import subprocess
from pathlib import Path

import pytest

from local_server import LocalServer

pytestmark = pytest.mark.needs_crawlrank

ROOT = Path(__file__).resolve().parents[2]
EXAMPLE_README = ROOT / "examples" / "scrapy_project" / "README.md"

# The site: four pages that link to each other, and one link to a page that answers 404.
PAGES = {
    "/": '<a href="/a.html">a</a> <a href="/b.html">b</a> <a href="/gone.html">gone</a>',
    "/a.html": '<a href="/b.html">b</a> <a href="/c.html">c</a>',
    "/b.html": '<a href="/">home</a>',
    "/c.html": '<a href="/a.html">a</a> <a href="https://elsewhere.test/">away</a>',
}


class SiteHandler(http.server.BaseHTTPRequestHandler):
    log: list[str] = []

    def do_GET(self):  # noqa: N802
        SiteHandler.log.append(self.path)
        links = PAGES.get(self.path)
        status = 200 if links is not None else 404
        title = self.path if links is not None else "not found"
        body = f"<html><head><title>{title}</title></head><body>{links or ''}</body></html>"
        data = body.encode()
        self.send_response(status)
        self.send_header("Content-Type", "text/html")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def log_message(self, *args):
        pass


def shell_blocks(text: str) -> list[str]:
    """The ```sh blocks of a Markdown text, in order."""
    return re.findall(r"^```sh\n(.*?)^```", text, flags=re.S | re.M)


def example_blocks() -> dict[str, str]:
    """examples/scrapy_project/README.md's shell blocks, by the heading above each."""
    text = EXAMPLE_README.read_text()
    out = {}
    for section in re.split(r"^## ", text, flags=re.M)[1:]:
        heading = section.splitlines()[0]
        for block in shell_blocks(section):
            out[heading] = block
    return out


def readme_three_steps() -> str:
    """The README's "Scrapy in three steps" block, from its `cd` on (the lines before it
    install and build)."""
    text = (ROOT / "README.md").read_text()
    section = text.split("## Scrapy in three steps", 1)[1]
    block = shell_blocks(section)[0]
    return block[block.index("cd examples/scrapy_project"):]


def run_block(block: str, tmp_path: Path, site: LocalServer) -> subprocess.CompletedProcess:
    """Runs `block` with bash from a copy of the repository's example (tmp_path stands for
    the repository root), its placeholders replaced."""
    root = tmp_path / "repo"
    if not root.exists():
        shutil.copytree(ROOT / "examples" / "scrapy_project",
                        root / "examples" / "scrapy_project")
    frontera = os.environ.get("CRAWLRANK_FRONTERA_DIR", "")
    script = (block.replace("https://your.site/", f"http://{site.host}/")
              .replace("../../build/python", os.environ["CRAWLRANK_PYTHON_DIR"])
              .replace("../../build/tools", os.environ.get("CRAWLRANK_TOOLS_DIR", "/nonexistent"))
              .replace("/path/to/frontera", frontera))
    env = {k: v for k, v in os.environ.items()
           if k not in ("PYTHONPATH", "SCRAPY_SETTINGS_MODULE", "SCRAPY_PROJECT")}
    env["PATH"] = "/usr/bin:/bin:" + env.get("PATH", "")
    proc = subprocess.run(["bash", "-e", "-c", script], cwd=root, env=env,
                          capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, f"{script}\n{proc.stdout[-2000:]}\n{proc.stderr[-4000:]}"
    return proc


def stat(stderr: str, name: str) -> int:
    """A number from the stats Scrapy dumps at close (0 when absent)."""
    found = re.findall(rf"'{re.escape(name)}': (\d+)", stderr)
    assert len(found) <= 1, found
    return int(found[0]) if found else 0


def top_urls(stdout: str) -> list[str]:
    """The URLs of page_db_top's lines (hash url score) in a block's output."""
    rows = [line.split() for line in stdout.splitlines()]
    return [row[1] for row in rows
            if len(row) == 3 and re.fullmatch(r"[0-9a-f]{16}", row[0])]


def page_db(tmp_path: Path, name: str) -> Path:
    return tmp_path / "repo" / "examples" / "scrapy_project" / name


def crawled(db: Path) -> dict[str, int]:
    import crawlrank

    with crawlrank.PageDb(str(db), read_only=True) as pdb, pdb.snapshot() as snap:
        return {r.url: r.http_status for r in snap.records() if r.crawled}


def expected(site: LocalServer) -> dict[str, int]:
    """The pages a crawl of the site records: the four pages and the 404."""
    out = {f"http://{site.host}{path}": 200 for path in PAGES}
    out[f"http://{site.host}/gone.html"] = 404
    return out


def test_the_documents_have_the_blocks_this_test_runs():
    blocks = example_blocks()
    assert set(blocks) == {"Through crawlrank's scheduler", "Through Frontera"}
    for block in [*blocks.values(), readme_three_steps()]:
        assert block.split("\n", 1)[0].split("#")[0].strip() == "cd examples/scrapy_project", block
        assert "https://your.site/" in block
    assert "python " not in blocks["Through Frontera"]  # Debian has python3 only


def test_native_scheduler_project_as_documented(tmp_path):
    if not os.environ.get("CRAWLRANK_TOOLS_DIR"):
        pytest.skip("CRAWLRANK_TOOLS_DIR is not set: the block lists pages with a tool")
    SiteHandler.log = []
    with LocalServer(SiteHandler) as site:
        proc = run_block(example_blocks()["Through crawlrank's scheduler"], tmp_path, site)
        assert "'finish_reason': 'finished'" in proc.stderr
        db = page_db(tmp_path, "site.crawlrank")
        assert crawled(db) == expected(site)
        # One item per page the spider saw; HttpErrorMiddleware kept the 404 from it.
        assert stat(proc.stderr, "item_scraped_count") == len(PAGES)
        # The tool lists the crawled pages: four and the 404 (fewer than the ten asked).
        assert sorted(top_urls(proc.stdout)) == sorted(expected(site))
        served = sorted(p for p in SiteHandler.log if p != "/robots.txt")
        assert served == sorted([*PAGES, "/gone.html"])  # each page once
        # Again: nothing left to crawl, and the log says why, in one line.
        SiteHandler.log = []
        proc = run_block(example_blocks()["Through crawlrank's scheduler"], tmp_path, site)
        assert [p for p in SiteHandler.log if p != "/robots.txt"] == []
        assert proc.stderr.count("has no page to crawl") == 1
        assert ("crawlrank: the PageDB site.crawlrank has no page to crawl: all 5 pages are "
                "crawled") in proc.stderr


def test_readme_three_steps_as_documented(tmp_path):
    if not os.environ.get("CRAWLRANK_TOOLS_DIR"):
        pytest.skip("CRAWLRANK_TOOLS_DIR is not set: the README ranks with a tool")
    SiteHandler.log = []
    with LocalServer(SiteHandler) as site:
        proc = run_block(readme_three_steps(), tmp_path, site)
        assert "'finish_reason': 'finished'" in proc.stderr
        assert crawled(page_db(tmp_path, "site.crawlrank")) == expected(site)
        # page_db_top lists the pages by PageRank: ten asked, five in the DB (the external
        # link is not followed: the spider keeps to its host, so it is not a page).
        assert sorted(top_urls(proc.stdout)) == sorted(expected(site))


def test_frontera_project_as_documented(tmp_path):
    frontera_dir = os.environ.get("CRAWLRANK_FRONTERA_DIR")
    if not frontera_dir:
        pytest.skip("CRAWLRANK_FRONTERA_DIR is not set (the block puts Frontera on the path)")
    SiteHandler.log = []
    with LocalServer(SiteHandler) as site:
        proc = run_block(example_blocks()["Through Frontera"], tmp_path, site)
        assert "'finish_reason': 'finished'" in proc.stderr
        db = page_db(tmp_path, "site-frontera.crawlrank")
        assert crawled(db) == expected(site)
        # The 404 reaches the spider (HttpErrorMiddleware is off) and gives no item.
        assert stat(proc.stderr, "item_scraped_count") == len(PAGES)
        assert sorted(SiteHandler.log) == sorted([*PAGES, "/gone.html"])  # each once
        # Frontera's manager prints no banner at INFO.
        assert "Frontier Manager" not in proc.stderr
        # add_seeds put the start URL in the PageDB first: the start request was no new seed.
        assert stat(proc.stderr, "frontera/seeds_count") == 0


def test_two_example_spiders_with_other_start_urls_share_a_frontier(bin_dir, tmp_path):
    """Issue #41: the example spider through one crawlrank serve, two processes, each
    started on another site (-a start_url): pages of both sites reach both processes, so a
    rule made of a process's own start URL dropped links (12 of 28 pages of the second
    site). Every page of both sites is fetched, each once."""
    from frontier_sites import client_env, require_server, start_server

    require_server(bin_dir, "scrapy")
    root = tmp_path / "repo"
    shutil.copytree(ROOT / "examples" / "scrapy_project", root)
    server, address = start_server(bin_dir, tmp_path / "db", "127.0.0.1:0", "--delay", 0,
                                   "--per-host", 2, "--allow", r"^http://127\.0\.0\.1:")
    env = {k: v for k, v in client_env().items()
           if k not in ("SCRAPY_SETTINGS_MODULE", "SCRAPY_PROJECT")}
    try:
        SiteHandler.log = []
        with LocalServer(SiteHandler) as one, LocalServer(SiteHandler) as two:
            logs = [tmp_path / f"spider{i}.log" for i in range(2)]
            procs = [subprocess.Popen(
                ["/usr/bin/python3", "-m", "scrapy", "crawl", "site", "-a",
                 f"start_url=http://{site.host}/", "-s", f"CRAWLRANK_FRONTIER={address}",
                 "-s", "LOG_LEVEL=INFO"], cwd=root, env=env, stderr=log.open("w"))
                for site, log in zip((one, two), logs)]
            for proc, log in zip(procs, logs):
                assert proc.wait(timeout=300) == 0, log.read_text()[-3000:]
        # Both processes' requests went to one handler class: its log has both sites' pages,
        # each site's once (robots.txt aside, which each process asks for itself).
        fetched = sorted(p for p in SiteHandler.log if p != "/robots.txt")
        assert fetched == sorted([*PAGES, "/gone.html"] * 2), SiteHandler.log
        for log in logs:
            assert "allowed_domains" not in log.read_text()  # the example sets none
    finally:
        server.kill()
        server.communicate()
