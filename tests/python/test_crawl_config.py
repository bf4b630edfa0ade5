"""The crawl's stored configuration, as a person meets it on the command line: a resumed
crawl keeps its scope and delays, the reading tools apply them, given options override and
are stored, --show-config and --reset-config, and a format version 4 DB carried over."""

from __future__ import annotations

import json
import pathlib
import shutil
import socket
import subprocess

import pytest

from crawl_site import CrawlSite

QUIET = ("--allow-private", "--quiet", "--json", "--max-retries", "0", "--retry-delay", "0.1")


def dead_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def crawl(bin_dir: pathlib.Path, db: pathlib.Path, *args: object,
          expect: int = 0) -> subprocess.CompletedProcess:
    proc = subprocess.run([str(bin_dir / "crawlrank"), "crawl", str(db), *map(str, args)],
                          capture_output=True, text=True, timeout=120)
    assert proc.returncode == expect, f"exit {proc.returncode}\n{proc.stdout}\n{proc.stderr}"
    return proc


def stats(bin_dir: pathlib.Path, db: pathlib.Path) -> dict:
    out = subprocess.run([str(bin_dir / "page_db_stats"), str(db), "--json"],
                         capture_output=True, text=True, check=True).stdout
    return json.loads(out)


def test_a_resumed_crawl_keeps_its_scope_and_the_tools_apply_it(bin_dir, tmp_path):
    db = tmp_path / "site.db"
    other = f"127.0.0.2:{dead_port()}"  # another host, which nobody answers on
    with CrawlSite(pages=15, other_host=other) as site:
        seed = f"http://{site.host}/gen/0.html"
        first = crawl(bin_dir, db, seed, "--same-host", "--delay", "0", "--max-pages", "4", *QUIET)
        assert first.stderr == ""  # a new DB: nothing stored to speak of
        # Resumed with nothing but the DB: the scope and the delay are the stored ones.
        crawl(bin_dir, db, "--max-pages", "0", *QUIET)
        hits = {hit.path for hit in site.hits}
    summary_stats = stats(bin_dir, db)
    assert summary_stats["config"]["scope"] == "same-host"
    assert summary_stats["config"]["scope_hosts"] == ["127.0.0.1"]
    assert summary_stats["config"]["delay_ms"] == "0"
    # Every page of the site, none elsewhere: the other host would have failed as
    # unreachable; the only failures are the pages robots.txt keeps out.
    assert {f"/gen/{n}.html" for n in range(15)} <= hits
    assert {k for k in summary_stats if k.startswith("failed_")} == {"failed_robots-disallowed"}
    assert summary_stats["crawl_finished"] is True
    assert summary_stats["queued"] == 0
    assert summary_stats["out_of_scope"] == 1  # other/elsewhere.html, linked from every page
    assert summary_stats["hosts"] == 1 and summary_stats["hosts_seen"] == 2
    schedule = json.loads(subprocess.run(
        [str(bin_dir / "page_db_schedule"), str(db), "--json"], capture_output=True, text=True,
        check=True).stdout)
    assert schedule["next"] == [] and schedule["stats"]["finished"] is True


def test_given_options_override_the_stored_ones_and_say_so(bin_dir, tmp_path):
    db = tmp_path / "site.db"
    with CrawlSite(pages=3) as site:
        seed = f"http://{site.host}/gen/0.html"
        crawl(bin_dir, db, seed, "--same-host", "--delay", "0", "--deny", "/private/", *QUIET)
        resumed = crawl(bin_dir, db, *QUIET)
        assert resumed.stderr == f"resumed with the configuration stored in {db} (--show-config " \
                                 "prints it; an option given overrides it)\n"
        changed = crawl(bin_dir, db, "--delay", "0.25", "--deny", "/a/", "--deny", "/b/", *QUIET)
        assert changed.stderr == (f"changed the configuration stored in {db}: delay_ms 0 -> 250; "
                                  "deny /private/ -> /a/, /b/\n")
    config = stats(bin_dir, db)["config"]
    assert config["delay_ms"] == "250" and config["deny"] == ["/a/", "/b/"]

    # --show-config: what a run would use, the given options marked; nothing is written.
    shown = crawl(bin_dir, db, "--show-config", "--max-depth", "2").stdout
    assert f"configuration of {db} (stored unless marked):\n" in shown
    assert "  max_depth: 2  (given now)\n" in shown
    assert "  delay_ms: 250\n" in shown
    assert "  scope: same-host\n" in shown
    assert "  template_links: 0\n" in shown
    undone = crawl(bin_dir, db, "--show-config", "--no-template-links").stdout
    assert "  template_links: 0  (given now)\n" in undone
    assert stats(bin_dir, db)["config"]["max_depth"] == "0"

    # --reset-config forgets it: the defaults and what is given replace it.
    # (The site is gone by now: the pages the reset lets in fail, and the run exits 1.)
    reset = crawl(bin_dir, db, "--reset-config", "--delay", "0", *QUIET, expect=1)
    assert reset.stderr.startswith(f"cleared the configuration stored in {db}\n")
    config = stats(bin_dir, db)["config"]
    assert config["scope"] == "any" and config["deny"] == [] and config["delay_ms"] == "0"


def test_a_new_scope_replaces_the_stored_hosts(bin_dir, tmp_path):
    db = tmp_path / "site.db"
    with CrawlSite(pages=2) as site:
        crawl(bin_dir, db, f"http://{site.host}/gen/0.html", "--same-host", "--delay", "0", *QUIET)
        # The other host does not resolve: the run fetched nothing, and exits 1 saying so.
        widened = crawl(bin_dir, db, "--scope", "any", *QUIET, expect=1)
    assert widened.stderr == (f"changed the configuration stored in {db}: scope same-host -> any; "
                              "scope_hosts 127.0.0.1 -> (none)\n"
                              "crawlrank crawl: nothing fetched: every page it tried failed "
                              "(errors above)\n")
    config = stats(bin_dir, db)["config"]
    assert config["scope"] == "any" and config["scope_hosts"] == []
    usage = crawl(bin_dir, db, "--scope", "planet", expect=2)
    assert "unknown scope \"planet\"" in usage.stderr


def test_show_config_of_a_db_that_does_not_exist_creates_nothing(bin_dir, tmp_path):
    db = tmp_path / "none.db"
    shown = crawl(bin_dir, db, "--show-config", "--delay", "0", "--template-links").stdout
    assert shown.startswith(f"nothing stored in {db}; a run would use:\n")
    assert "  template_links: 1  (given now)\n" in shown
    assert "  delay_ms: 0  (given now)\n" in shown
    assert "  max_pages: 0  (default)\n" in shown
    assert not db.exists()


def test_upgrade_of_a_version_4_db_adds_an_empty_configuration(bin_dir, data_dir, tmp_path):
    db = tmp_path / "v4.db"
    shutil.copytree(data_dir / "format-v4.db", db)
    before = stats(bin_dir, db)
    assert before["format_version"] == 4 and before["config"] == {}
    refused = crawl(bin_dir, db, *QUIET, expect=1)
    assert "page_db_upgrade" in refused.stderr
    upgraded = subprocess.run([str(bin_dir / "page_db_upgrade"), str(db)], capture_output=True,
                              text=True, check=True)
    assert upgraded.stdout == "format version 4 -> 10\n"
    subprocess.run([str(bin_dir / "page_db_check"), str(db)], check=True, capture_output=True)
    after = stats(bin_dir, db)
    assert after["format_version"] == 10 and after["config"] == {}
    for key in ("pages", "crawled_pages", "links", "queued", "failed"):
        assert after[key] == before[key], key


def test_a_pattern_re2_refuses_is_a_usage_error_and_never_stored(bin_dir, tmp_path):
    db = tmp_path / "site.db"
    usage = crawl(bin_dir, db, "http://127.0.0.1:9/", "--deny", "/(?!en/)", *QUIET, expect=2)
    assert usage.stderr.startswith('crawlrank crawl: --deny: URL pattern "/(?!en/)": '
                                   "invalid perl operator: (?!")
    assert not db.exists()  # refused before the DB is opened
    usage = crawl(bin_dir, db, "http://127.0.0.1:9/", "--allow", "(a)\\1", *QUIET, expect=2)
    assert "--allow: URL pattern" in usage.stderr and "\\1" in usage.stderr


@pytest.mark.needs_crawlrank
def test_a_stored_pattern_re2_refuses_stops_the_resume_until_replaced(bin_dir, tmp_path):
    import crawlrank

    db = tmp_path / "site.db"
    with CrawlSite(pages=3) as site:
        seed = f"http://{site.host}/gen/0.html"
        crawl(bin_dir, db, seed, "--delay", "0", "--max-pages", "1", *QUIET)
        # What an older crawlrank, on std::regex, could have stored: a look-ahead.
        with crawlrank.PageDb(str(db)) as handle:
            handle.write_config({**handle.config(), "deny": "/private/\n/(?!gen/)"})
        stopped = crawl(bin_dir, db, *QUIET, expect=1)
        assert (f'configuration stored in "{db}": configuration key deny: '
                'URL pattern "/(?!gen/)": invalid perl operator: (?!') in stopped.stderr
        assert "--reset-config" in stopped.stderr
        # The reading tools that apply the configuration say the same, and nothing ran.
        refused = subprocess.run([str(bin_dir / "page_db_stats"), str(db)], capture_output=True,
                                 text=True)
        assert refused.returncode == 1 and 'URL pattern "/(?!gen/)"' in refused.stderr
        dump = subprocess.run([str(bin_dir / "page_db_dump"), "info", str(db)],
                              capture_output=True, text=True, check=True).stdout
        assert sum(line.split(" ")[6] != "0" for line in dump.splitlines()) == 1
        # Given again, the list replaces the stored one, and the crawl goes on.
        replaced = crawl(bin_dir, db, "--deny", "/private/", "--max-pages", "0", *QUIET)
        assert "deny /private/, /(?!gen/) -> /private/" in replaced.stderr
    assert stats(bin_dir, db)["config"]["deny"] == ["/private/"]
    assert stats(bin_dir, db)["crawled_pages"] > 1
