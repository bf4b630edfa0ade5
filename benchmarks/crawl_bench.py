#!/usr/bin/python3
"""`crawlrank crawl` against Scrapy 2.8 and GNU Wget2 on local documentation sites
(docs/benchmarks.md, "Built-in crawler against Scrapy and Wget2").

Each site is the HTML manual of a Debian package (installed with apt-get when missing),
served by one nginx (two workers, sendfile, keep-alive) on a loopback address of its own,
port 8080, so that every site is a host of its own for the crawlers' politeness. The three
crawlers start from every site's index page, stay on the seeds' hosts, keep 16 requests
in flight in all and per host, wait no delay between requests and obey robots.txt:

  crawlrank  build-release/tools/crawlrank crawl DB SEEDS --same-host --delay 0
             --per-host 16 --concurrency 16 --allow-private (a fresh DB every run)
  scrapy     benchmarks/crawl_bench_spider.py (CrawlSpider + LinkExtractor)
  wget2      wget2 -r -l inf --max-threads=16 -e robots=on, saving into a fresh
             directory, rejecting the suffixes that Scrapy's LinkExtractor ignores
             (images, style sheets, scripts, archives), so that all three follow the same
             kind of link

The contenders run in turn, in an order rotated every round. For each run:
  wall       seconds of the crawling process, start-up and exit included
  cpu        user + system seconds of the process (wait4), its children included
  rss        its peak resident set (MiB)
  html       the 200 answers with Content-Type text/html in nginx's access log: the
             server's count of the pages, the same for all three
  requests   every request of the run in the access log (robots.txt included)
  nginx cpu  user + system seconds of nginx's processes during the run
The table gives medians; each ratio is taken within a round, then the median of those.

    /usr/bin/python3 benchmarks/crawl_bench.py [--runs N] [--sites python,postgresql,cmake]
        [--build build-release] [--contenders crawlrank,crawlrank-gumbo,scrapy,wget2]
        [--keep-db DIR] [--serve] [--warc]

--keep-db copies the last crawlrank DB to DIR (for page_db_rank or a profile); --serve
only starts the sites and waits (for profiling a crawl by hand). crawlrank-gumbo is
crawlrank with --parser gumbo (every page through Gumbo's DOM); --warc makes both keep
WARC files.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

# name: (document root, Debian package, loopback address)
SITES = {
    "python": ("/usr/share/doc/python3.11/html", "python3.11-doc", "127.0.0.2"),
    "postgresql": ("/usr/share/doc/postgresql-doc-15/html", "postgresql-doc-15", "127.0.0.3"),
    "cmake": ("/usr/share/doc/cmake-data/html", "cmake-doc", "127.0.0.4"),
    "libstdcxx": ("/usr/share/doc/gcc-12-base/libstdc++", "libstdc++-12-doc", "127.0.0.5"),
    # Rust's whole manual; benchmarks/scrapy_site_bench.py crawls its std pages only.
    "rust": ("/usr/share/doc/rust-doc/html", "rust-doc", "127.0.0.6"),
}
PORT = 8080
# What Scrapy's LinkExtractor skips by default that these sites link to.
WGET2_REJECT = ("css,js,png,jpg,jpeg,gif,svg,ico,woff,woff2,ttf,eot,pdf,zip,bz2,gz,xz,tar,"
                "7z,rar,mp3,mp4,webm,ogg,ps,eps")


def ensure_sites(names: list[str]) -> None:
    missing = sorted({SITES[n][1] for n in names if not Path(SITES[n][0]).is_dir()})
    if missing:
        sudo = [] if os.geteuid() == 0 else ["sudo"]
        subprocess.run([*sudo, "apt-get", "install", "-y", *missing], check=True)


class Nginx:
    """One nginx, master and two workers, serving each site on its own address."""

    LOG_FORMAT = ('$msec $server_addr $status "$sent_http_content_type" $body_bytes_sent '
                  '"$request_uri"')

    def __init__(self, names: list[str], tmp: Path) -> None:
        self.dir = tmp / "nginx"
        self.dir.mkdir()
        self.log = self.dir / "access.log"
        servers = "".join(
            f"  server {{ listen {SITES[n][2]}:{PORT}; root {SITES[n][0]}; index index.html; }}\n"
            for n in names)
        temp_paths = "".join(f"  {kind}_temp_path {self.dir}/{kind};\n"
                             for kind in ("client_body", "proxy", "fastcgi", "uwsgi", "scgi"))
        conf = self.dir / "nginx.conf"
        conf.write_text(
            f"daemon off;\nmaster_process on;\nworker_processes 2;\npid {self.dir}/nginx.pid;\n"
            f"error_log {self.dir}/error.log warn;\nevents {{ worker_connections 1024; }}\n"
            f"http {{\n  include /etc/nginx/mime.types;\n  default_type application/octet-stream;\n"
            f"  sendfile on;\n  tcp_nopush on;\n  keepalive_requests 1000000;\n{temp_paths}"
            f"  log_format bench '{self.LOG_FORMAT}';\n  access_log {self.log} bench;\n"
            f"{servers}}}\n")
        self.proc = subprocess.Popen(["nginx", "-c", str(conf), "-p", str(self.dir), "-e",
                                      str(self.dir / "error.log")])
        for _ in range(100):
            if self.log.exists() and len(self.pids()) >= 3:
                break
            time.sleep(0.05)
        else:
            raise SystemExit(f"nginx did not start: {(self.dir / 'error.log').read_text()}")

    def pids(self) -> list[int]:
        try:
            children = Path(f"/proc/{self.proc.pid}/task/{self.proc.pid}/children").read_text()
        except OSError:
            return []
        return [self.proc.pid, *map(int, children.split())]

    def cpu_seconds(self) -> float:
        ticks = 0
        for pid in self.pids():
            fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
            ticks += int(fields[11]) + int(fields[12])  # utime, stime
        return ticks / os.sysconf("SC_CLK_TCK")

    def log_size(self) -> int:
        return self.log.stat().st_size

    def count(self, offset: int) -> dict:
        with open(self.log, "rb") as f:
            f.seek(offset)
            lines = f.read().decode("utf-8", "replace").splitlines()
        html, urls, first, last = 0, set(), None, None
        line_re = re.compile(r'^(\S+) (\S+) (\d+) "([^"]*)" \d+ "(.*)"$')
        for line in lines:
            m = line_re.match(line)
            if not m:
                continue
            t = float(m[1])
            first = t if first is None else first
            last = t
            if m[3] == "200" and m[4].startswith("text/html"):
                html += 1
                urls.add((m[2], m[5]))
        return {"requests": len(lines), "html": html, "html_unique": len(urls),
                "server_span": (last - first) if lines else 0.0}

    def close(self) -> None:
        self.proc.send_signal(signal.SIGQUIT)
        self.proc.wait(timeout=30)


def run_measured(cmd: list[str], stdout=subprocess.DEVNULL, ok=(0,)) -> tuple[float, object, int]:
    start = time.perf_counter()
    proc = subprocess.Popen(cmd, stdout=stdout, stderr=subprocess.PIPE)
    # Read stderr while waiting, so that a chatty crawler never blocks on the pipe.
    err = proc.stderr.read()
    _, status, usage = os.wait4(proc.pid, 0)
    wall = time.perf_counter() - start
    proc.returncode = os.waitstatus_to_exitcode(status)
    if proc.returncode not in ok:
        raise SystemExit(f"{cmd[:3]} exited {proc.returncode}:\n{err.decode()[-3000:]}")
    return wall, usage, proc.returncode


def crawlrank_cmd(args, seeds: list[str], work: Path, parser: str = "streaming"
                  ) -> tuple[list[str], Path]:
    out = work / "crawlrank.json"
    warc = ["--warc", str(work / "warc")] if args.warc else []
    return ([str(ROOT / args.build / "tools" / "crawlrank"), "crawl", str(work / "db"), *seeds,
             "--allow-private", "--same-host", "--delay", "0", "--per-host", "16",
             "--concurrency", "16", "--quiet", "--json", "--parser", parser, *warc], out)


def crawlrank_gumbo_cmd(args, seeds: list[str], work: Path) -> tuple[list[str], Path]:
    return crawlrank_cmd(args, seeds, work, parser="gumbo")


def scrapy_cmd(args, seeds: list[str], work: Path) -> tuple[list[str], Path]:
    out = work / "scrapy.json"
    return (["/usr/bin/python3", str(ROOT / "benchmarks" / "crawl_bench_spider.py"),
             "--stats", str(out), *seeds], None)


def wget2_cmd(args, seeds: list[str], work: Path) -> tuple[list[str], Path]:
    return (["wget2", "-r", "-l", "inf", "--max-threads=16", "-e", "robots=on", "-q",
             "--reject", WGET2_REJECT, "-P", str(work / "wget2"), *seeds], None)


CONTENDERS = {"crawlrank": crawlrank_cmd, "crawlrank-gumbo": crawlrank_gumbo_cmd,
              "scrapy": scrapy_cmd, "wget2": wget2_cmd}


def run_one(args, name: str, nginx: Nginx, seeds: list[str], work: Path) -> dict:
    shutil.rmtree(work, ignore_errors=True)
    work.mkdir()
    cmd, json_out = CONTENDERS[name](args, seeds, work)
    offset, cpu0 = nginx.log_size(), nginx.cpu_seconds()
    # Wget2 exits 8 when the server answered an error, as it does for the 404s of links
    # that the manuals get wrong.
    ok = (0, 8) if name == "wget2" else (0,)
    if json_out is not None:
        with open(json_out, "w") as f:
            wall, usage, _ = run_measured(cmd, stdout=f, ok=ok)
    else:
        wall, usage, _ = run_measured(cmd, ok=ok)
    time.sleep(0.2)  # the last log lines
    row = {"wall": wall, "cpu": usage.ru_utime + usage.ru_stime, "user": usage.ru_utime,
           "sys": usage.ru_stime, "rss_mib": usage.ru_maxrss / 1024,
           "nginx_cpu": nginx.cpu_seconds() - cpu0, **nginx.count(offset)}
    if name.startswith("crawlrank"):
        summary = json.loads(json_out.read_text())
        row["own_pages"] = summary.get("pages")
        row["own_html"] = summary.get("html_pages")
        row["tree_parsed"] = summary.get("tree_parsed_pages", 0)
        shutil.rmtree(args.last_db, ignore_errors=True)
        shutil.copytree(work / "db", args.last_db)
    row["pages_per_s"] = row["html"] / wall
    row["cpu_ms_per_page"] = 1000 * row["cpu"] / max(row["html"], 1)
    return row


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--sites", default="python,postgresql,cmake")
    parser.add_argument("--contenders", default="crawlrank,scrapy,wget2")
    parser.add_argument("--build", default="build-release")
    parser.add_argument("--keep-db", default="")
    parser.add_argument("--serve", action="store_true")
    parser.add_argument("--warc", action="store_true",
                        help="crawlrank keeps what it fetches as WARC (--warc DIR)")
    args = parser.parse_args()
    # SIGTERM (and SIGINT, ignored in a background job) stop nginx on the way out.
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))
    names = args.sites.split(",")
    contenders = args.contenders.split(",")
    ensure_sites(names)
    seeds = [f"http://{SITES[n][2]}:{PORT}/index.html" for n in names]
    with tempfile.TemporaryDirectory(prefix="crawl_bench.") as tmp:
        args.last_db = Path(args.keep_db) if args.keep_db else Path(tmp) / "last_db"
        nginx = Nginx(names, Path(tmp))
        try:
            if args.serve:
                print(" ".join(seeds), flush=True)
                nginx.proc.wait()
                return
            runs: dict[str, list[dict]] = {c: [] for c in contenders}
            for r in range(args.runs):
                order = contenders[r % len(contenders):] + contenders[:r % len(contenders)]
                for name in order:
                    row = run_one(args, name, nginx, seeds, Path(tmp) / "work")
                    runs[name].append(row)
                    print(f"# round {r + 1} {name}: " + json.dumps(
                        {k: round(v, 3) if isinstance(v, float) else v for k, v in row.items()}),
                        file=sys.stderr, flush=True)
        finally:
            nginx.close()
        report(runs, names, args.runs)
        if "crawlrank" in runs:
            check_pagerank(args)


def check_pagerank(args) -> None:
    """PageRank of the last crawlrank DB against networkx on the graph it recorded (every
    page of the DB a node, external pages never fetched included)."""
    import networkx as nx

    tools = ROOT / args.build / "tools"
    db = str(args.last_db)
    subprocess.run([str(tools / "page_db_rank"), db, "--tolerance", "1e-10",
                    "--max-iterations", "1000"], check=True, capture_output=True)
    out = subprocess.run([str(tools / "page_db_dump"), "info", db, "--json", "--rank",
                          "pagerank"], check=True, capture_output=True, text=True).stdout
    ours = {row["index"]: row["pagerank"] for row in map(json.loads, out.splitlines())}
    links = subprocess.run([str(tools / "page_db_dump"), "links", db], check=True,
                           capture_output=True, text=True).stdout
    graph = nx.DiGraph()
    graph.add_nodes_from(ours)
    graph.add_edges_from(tuple(map(int, line.split())) for line in links.splitlines())
    theirs = nx.pagerank(graph, alpha=0.85, tol=1e-13, max_iter=1000)
    l1 = sum(abs(ours[i] - theirs[i]) for i in ours)
    print(f"pagerank of the last crawlrank DB: {graph.number_of_nodes()} pages, "
          f"{graph.number_of_edges()} links, L1 distance to networkx {l1:.2e}")


def report(runs: dict[str, list[dict]], names: list[str], n: int) -> None:
    med = {c: {k: statistics.median(r[k] for r in rows) for k in rows[0]
               if isinstance(rows[0][k], (int, float))} for c, rows in runs.items()}
    print(f"# sites {','.join(names)}; median of {n} runs each, run in turn")
    print(f"{'crawler':15} {'html':>6} {'requests':>8} {'wall s':>7} {'pages/s':>8} "
          f"{'cpu s':>7} {'cpu ms/page':>11} {'rss MiB':>7} {'nginx cpu s':>11}")
    for c, m in med.items():
        print(f"{c:15} {m['html']:6.0f} {m['requests']:8.0f} {m['wall']:7.2f} "
              f"{m['pages_per_s']:8.1f} {m['cpu']:7.2f} {m['cpu_ms_per_page']:11.3f} "
              f"{m['rss_mib']:7.1f} {m['nginx_cpu']:11.2f}")
    if "crawlrank" not in runs:
        return
    for other in runs:
        if other == "crawlrank":
            continue
        pairs = list(zip(runs["crawlrank"], runs[other]))
        speed = statistics.median(a["pages_per_s"] / b["pages_per_s"] for a, b in pairs)
        cpu = statistics.median(a["cpu_ms_per_page"] / b["cpu_ms_per_page"] for a, b in pairs)
        print(f"crawlrank / {other}: pages/s x{speed:.2f}, cpu per page x{cpu:.3f} "
              f"(medians of {len(pairs)} per-round ratios)")


if __name__ == "__main__":
    main()
