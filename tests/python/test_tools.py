"""The page_db_* tools: golden output on the shipped example, round trips, exit codes.

The tools come from the build tree named by $CRAWLRANK_TOOLS_DIR (ctest sets it).
"""

from __future__ import annotations

import json
import os
import pathlib
import random
import shutil
import struct
import subprocess
import tempfile
import time

import pytest

from tool_runner import run

ROOT = pathlib.Path(__file__).resolve().parents[2]
EXAMPLE = ROOT / "examples" / "small-web.links"
GOLDEN = ROOT / "tests" / "golden"
TOOLS = (
    "page_db_check",
    "page_db_compact",
    "page_db_dump",
    "page_db_find",
    "page_db_links",
    "page_db_load",
    "page_db_path",
    "page_db_rank",
    "page_db_stats",
    "page_db_top",
)


@pytest.fixture(scope="module")
def example_db(bin_dir: pathlib.Path, tmp_path_factory: pytest.TempPathFactory) -> pathlib.Path:
    db = tmp_path_factory.mktemp("example") / "db"
    run(bin_dir, "page_db_load", db, EXAMPLE)
    return db


def example_edges() -> set[tuple[str, str]]:
    edges = set()
    for line in EXAMPLE.read_text().splitlines():
        if line and not line.startswith("#"):
            src, dst = line.split()
            edges.add((src, dst))
    return edges


def dump_pages(bin_dir: pathlib.Path, db: pathlib.Path) -> dict[int, str]:
    out = run(bin_dir, "page_db_dump", "info", db).stdout
    return {int(f[1]): f[2] for f in (line.split() for line in out.splitlines())}


def test_dump_matches_golden(bin_dir, example_db):
    assert run(bin_dir, "page_db_dump", "info", example_db, "--header").stdout == \
        (GOLDEN / "small-web.info").read_text()
    assert run(bin_dir, "page_db_dump", "links", example_db).stdout == \
        (GOLDEN / "small-web.links").read_text()


def test_dumped_links_are_the_input_links(bin_dir, example_db):
    url_of = dump_pages(bin_dir, example_db)
    dumped = set()
    for line in run(bin_dir, "page_db_dump", "links", example_db).stdout.splitlines():
        src, dst = map(int, line.split())
        dumped.add((url_of[src], url_of[dst]))
    assert dumped == example_edges()
    assert len(url_of) == len({u for edge in example_edges() for u in edge})


def test_dump_json_has_every_field(bin_dir, example_db):
    lines = run(bin_dir, "page_db_dump", "info", example_db, "--json").stdout.splitlines()
    first = json.loads(lines[0])
    assert first["index"] == 0 and first["url"] == "http://shop.example.com/"
    assert {"hash", "depth", "discovered_from", "link_score", "status"} <= first.keys()
    links = run(bin_dir, "page_db_dump", "links", example_db, "--json").stdout.splitlines()
    assert len(links) == len(example_edges())
    assert set(json.loads(links[0])) == {"from", "to"}


@pytest.mark.parametrize("columns", [[], ["--all"]])
def test_dump_load_dump_is_identical(bin_dir, example_db, tmp_path, columns):
    dump = (run(bin_dir, "page_db_dump", "info", example_db, "--header", *columns).stdout
            + run(bin_dir, "page_db_dump", "links", example_db).stdout)
    (tmp_path / "dump.txt").write_text(dump)
    copy = tmp_path / "copy"
    run(bin_dir, "page_db_load", copy, tmp_path / "dump.txt")
    again = (run(bin_dir, "page_db_dump", "info", copy, "--header", *columns).stdout
             + run(bin_dir, "page_db_dump", "links", copy).stdout)
    assert again == dump


def test_load_from_stdin_of_index_pairs(bin_dir, tmp_path):
    db = tmp_path / "db"
    run(bin_dir, "page_db_load", db, stdin="0 1\n1\t2\n\n# comment\n2 0\n5 1\n2 0\n")
    pages = dump_pages(bin_dir, db)
    assert pages == {i: f"http://graph.invalid/{i}" for i in range(6)}
    links = run(bin_dir, "page_db_dump", "links", db).stdout
    assert links == "0 1\n1 2\n2 0\n5 1\n"


def test_find(bin_dir, example_db):
    out = run(bin_dir, "page_db_find", example_db, "wiki/(Page|Trust)").stdout
    assert out == (GOLDEN / "small-web.find").read_text()
    assert run(bin_dir, "page_db_find", example_db, "^ftp:").stdout == ""


def test_links_of_a_page(bin_dir, example_db):
    url = "https://wiki.example.edu/wiki/PageRank"
    out = run(bin_dir, "page_db_links", example_db, url).stdout
    assert out == (GOLDEN / "small-web.page-links").read_text()
    edges = example_edges()
    lines = [line.split() for line in out.splitlines()]
    assert lines[0][0] == "page" and lines[0][2] == url
    assert {f[2] for f in lines if f[0] == "in"} == {s for s, d in edges if d == url}
    assert {f[2] for f in lines if f[0] == "out"} == {d for s, d in edges if s == url}
    # The same page named by its hash.
    assert run(bin_dir, "page_db_links", example_db, lines[0][1]).stdout == out


def test_discovery_path(bin_dir, example_db):
    out = run(bin_dir, "page_db_path", example_db, "e003787a96845974").stdout
    assert out == (GOLDEN / "small-web.path").read_text()
    chain = [line.split() for line in out.splitlines()]
    assert [int(f[0]) for f in chain] == list(range(len(chain)))
    edges = example_edges()
    for parent, child in zip(chain, chain[1:]):
        assert (parent[2], child[2]) in edges


def test_path_reports_a_discovery_loop(bin_dir, example_db, tmp_path):
    # A hand-edited dump makes page 0 discovered from page 1, itself discovered from 0.
    rows = [line.split(" ") for line in
            run(bin_dir, "page_db_dump", "info", "--all", example_db).stdout.splitlines()]
    assert rows[1][9] == rows[0][0], "page 1 was discovered from page 0"
    rows[0][8], rows[0][9] = "2", rows[1][0]
    looped = tmp_path / "looped"
    run(bin_dir, "page_db_load", looped, stdin="".join(" ".join(r) + "\n" for r in rows))
    err = run(bin_dir, "page_db_path", looped, rows[1][0], expect=1).stderr
    assert f"loops at {rows[1][0]}" in err, err


def test_load_refuses_an_id_no_edge_list_could_number(bin_dir, tmp_path):
    db = tmp_path / "db"
    err = run(bin_dir, "page_db_load", db, stdin="0 1\n1 4294967294\n", expect=1).stderr
    assert "names page id 4294967294" in err, err
    assert not db.exists(), "nothing is created from a refused input"
    run(bin_dir, "page_db_load", db, stdin="0 1\n1 1000\n")  # sparse, yet within reach
    stats = json.loads(run(bin_dir, "page_db_stats", db, "--json").stdout)
    assert (stats["pages"], stats["links"]) == (1001, 2)


def test_stats(bin_dir, example_db):
    stats = json.loads(run(bin_dir, "page_db_stats", example_db, "--json").stdout)
    edges = example_edges()
    assert stats["pages"] == len({u for e in edges for u in e})
    assert stats["links"] == len(edges)
    assert stats["crawled_pages"] == 0
    assert stats["hosts"] == 5
    assert stats["format_version"] == 10
    assert stats["url_profile"] == "rfc3986/1"
    text = run(bin_dir, "page_db_stats", example_db).stdout
    assert f"links: {len(edges)}\n" in text


def test_compacted_copy_dumps_the_same(bin_dir, example_db, tmp_path):
    copy = tmp_path / "copy"
    out = run(bin_dir, "page_db_compact", example_db, copy).stdout
    assert "links table bytes per link" in out
    for mode in ("info", "links"):
        assert run(bin_dir, "page_db_dump", mode, copy, "--all" if mode == "info" else "--header").stdout \
            == run(bin_dir, "page_db_dump", mode, example_db, "--all" if mode == "info" else "--header").stdout
    err = run(bin_dir, "page_db_compact", example_db, copy, expect=1).stderr
    assert "not empty" in err


def damaged_copy(bin_dir, db, copy, node: bytes, offset: int) -> None:
    """Compacts `db` into `copy`, then adds 1 to the byte `offset` bytes after the LMDB node
    that starts with the bytes `node` (its header and key), in every copy of that node:
    pages freed by the compaction's commits may hold old ones."""
    run(bin_dir, "page_db_compact", db, copy)
    image = bytearray((copy / "data.mdb").read_bytes())
    at = image.find(node)
    assert at > 0
    while at >= 0:
        image[at + len(node) + offset] += 1
        at = image.find(node, at + 1)
    (copy / "data.mdb").write_bytes(bytes(image))


def test_check_passes_a_sound_db_and_names_damage_the_quick_check_misses(
        bin_dir, example_db, tmp_path):
    assert "no damage found by the full check" in run(bin_dir, "page_db_check", example_db).stdout
    assert "quick check" in run(bin_dir, "page_db_check", example_db, "--quick").stdout
    # The entry count LMDB keeps for the links table, one too high: everything still
    # reads, only the full check's walk of every page counts the entries. (The table's
    # record in LMDB's main tree: 48 bytes of data, flag 2 (a table), a 5-byte key.)
    db = tmp_path / "damaged"
    damaged_copy(bin_dir, example_db, db, b"\x30\x00\x00\x00\x02\x00\x05\x00links",
                 32)  # md_entries
    err = run(bin_dir, "page_db_check", db, expect=1).stderr
    assert err.startswith(f'page_db_check: check PageDB "{db}": ')
    assert "What to do next" in err
    run(bin_dir, "page_db_check", db, "--quick")
    # Nothing writes over it or copies it without being told to.
    assert "nothing loaded" in run(bin_dir, "page_db_load", db, stdin="0 1\n", expect=1).stderr
    assert "nothing copied" in run(bin_dir, "page_db_compact", db, tmp_path / "copy",
                                   expect=1).stderr
    assert not (tmp_path / "copy").exists()
    # --no-check skips the data checks, not the structural walk CompactTo makes itself.
    err = run(bin_dir, "page_db_compact", db, tmp_path / "copy", "--no-check", expect=1).stderr
    assert 'table "links" counts' in err


def test_damaged_page_record_is_salvaged_by_the_commands_the_check_prints(
        bin_dir, example_db, tmp_path):
    """Issue #23: a page record that does not decode (here its URL length one too long, a
    change LMDB's structure check cannot see) stops page_db_dump; with --skip-damaged it
    dumps the rest, and the commands page_db_check prints, run as printed, make a sound
    DB of every page but that one and every link not from or to it."""
    url_of = dump_pages(bin_dir, example_db)
    page = 5
    url = url_of[page].encode()
    # The record: 31 bytes of fields (all small in this DB), the URL's length, the URL.
    # Its LMDB node: data size (lo, hi), flags 0, key size 4, then the key (big-endian id).
    size = 32 + len(url)
    node = struct.pack("<HHHH", size & 0xFFFF, size >> 16, 0, 4) + page.to_bytes(4, "big")
    db = tmp_path / "damaged db"  # a space: the printed commands quote it
    damaged_copy(bin_dir, example_db, db, node, 31)
    err = run(bin_dir, "page_db_dump", "info", db, expect=1).stderr
    assert f"page record of id {page}: damaged (url truncated" in err, err
    err = run(bin_dir, "page_db_check", db, expect=1).stderr
    commands = [line.strip() for line in err.splitlines() if line.startswith("      ")]
    assert len(commands) == 4 and "--skip-damaged" in commands[0], err
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    for command, expect in zip(commands, (3, 3, 0, 0)):
        proc = subprocess.run(command, shell=True, cwd=elsewhere, capture_output=True, text=True,
                              timeout=120)
        assert proc.returncode == expect, (command, proc.stderr)
        if expect == 3:
            assert f"skipped damaged page {page} (pages table" in proc.stderr, proc.stderr
            assert f"page record of id {page}: damaged" in proc.stderr, proc.stderr
    salvaged = pathlib.Path(f"{db}.salvaged")
    assert "no damage found" in run(bin_dir, "page_db_check", salvaged).stdout
    assert sorted(dump_pages(bin_dir, salvaged).values()) == \
        sorted(u for i, u in url_of.items() if i != page)
    assert url_edges(bin_dir, salvaged) == \
        {e for e in url_edges(bin_dir, example_db) if url_of[page] not in e}


def test_skip_damaged_dumps_a_sound_db_whole(bin_dir, example_db):
    for mode in ("info", "links"):
        assert run(bin_dir, "page_db_dump", mode, example_db, "--skip-damaged").stdout == \
            run(bin_dir, "page_db_dump", mode, example_db).stdout


def test_a_writer_refuses_a_db_whose_quick_check_fails(bin_dir, example_db, tmp_path):
    # The header's page count one higher than the records: the `meta` entry "pages" is an
    # LMDB node with 8 bytes of data, no flags and a 5-byte key (the main tree's entry for
    # the table "pages" has 48 bytes of data and flags 2).
    db = tmp_path / "damaged"
    damaged_copy(bin_dir, example_db, db, b"\x08\x00\x00\x00\x00\x00\x05\x00pages", 0)
    err = run(bin_dir, "page_db_load", db, "--no-check", stdin="0 1\n", expect=1).stderr
    assert "refused, the quick check failed" in err
    assert "the quick check failed" in run(bin_dir, "page_db_stats", db, expect=1).stderr


@pytest.mark.parametrize("tool", TOOLS)
def test_help_and_version(bin_dir, tool):
    assert "Usage" in run(bin_dir, tool, "--help").stdout
    assert run(bin_dir, tool, "--version").stdout.startswith(f"{tool} (crawlrank) ")
    assert "Run with --help" in run(bin_dir, tool, "--no-such-option", expect=2).stderr


def test_unknown_option_is_named(bin_dir, example_db):
    assert "--bogus" in run(bin_dir, "page_db_stats", example_db, "--bogus", expect=2).stderr


@pytest.mark.parametrize("args", [
    ["page_db_compact"],
    ["page_db_dump", "info"],
    ["page_db_find"],
    ["page_db_links"],
    ["page_db_path"],
    ["page_db_rank"],
    ["page_db_stats"],
    ["page_db_top"],
])
def test_missing_db_fails_with_its_path(bin_dir, tmp_path, args):
    missing = tmp_path / "nothing-here"
    tool, *rest = args
    extra = {"page_db_find": ["x"], "page_db_links": ["0" * 16], "page_db_path": ["0" * 16],
             "page_db_compact": [tmp_path / "copy"]}
    err = run(bin_dir, tool, *rest, missing, *extra.get(tool, []), expect=1).stderr
    assert err.startswith(f"{tool}: ") and str(missing) in err
    assert not missing.exists(), "a reading tool must not create a DB"


def test_usage_errors(bin_dir, example_db):
    err = run(bin_dir, "page_db_find", example_db, "(", expect=2).stderr
    assert 'URL pattern "("' in err and "missing )" in err
    err = run(bin_dir, "page_db_find", example_db, "a(?=b)", expect=2).stderr
    assert "(?=" in err and "RE2" in err
    err = run(bin_dir, "page_db_links", example_db, "12zz", expect=2).stderr
    assert "12zz" in err
    run(bin_dir, "page_db_dump", "everything", example_db, expect=2)
    err = run(bin_dir, "page_db_links", example_db, "0123456789abcdef", expect=1).stderr
    assert "0123456789abcdef" in err


@pytest.mark.parametrize("text,line,message", [
    ("0 1\nfoo\n", 2, "got 1 fields"),
    ("http://a.test/ http://b.test/\n0 1\n", 2, "index pairs cannot follow URL pairs"),
    ("http://a.test/ ftp://b.test/\n", 1, "ftp"),
    ("0 1\n1 99999999999\n", 2, "99999999999"),
    ("d2bb3523249ec343 0 http://graph.invalid/0 0.000 0.000 0 0 0\n"
     "91d541e9e51a31ed 2 http://graph.invalid/1 0.000 0.000 0 0 0\n", 2, "index 2"),
    ("ffffffffffffffff 0 http://graph.invalid/0 0.000 0.000 0 0 0\n", 1, "is not the hash"),
    ("d2bb3523249ec343 0 http://graph.invalid/0 0.5 0.000 0 0 0\n", 1, "first_crawl"),
    ("d2bb3523249ec343 0 http://graph.invalid/0 0.000 0.000 0 0 0\n0 1\n", 2, "beyond"),
    # Issue #23: the bounds every write checks, before anything is written.
    ("d2bb3523249ec343 0 http://graph.invalid/0 -5.000 0.000 0 0 0\n", 1,
     'page "http://graph.invalid/0": first_crawl_ms is -5000,'),
    ("d2bb3523249ec343 0 http://graph.invalid/0 1.000 1.000 0 1 0\n"
     "91d541e9e51a31ed 1 http://graph.invalid/1 0.000 -0.001 0 0 0\n", 2,
     "last_crawl_ms is -1,"),
    ("d2bb3523249ec343 0 http://graph.invalid/0 0.000 0.000 0 0 0 0 0000000000000000 0"
     " 0000000000000000 1000 0\n", 1, "http_status is 1000,"),
    ("d2bb3523249ec343 0 http://graph.invalid/0 1.000 1.000 1 1 0\n", 1,
     "n_changes is 1, not fewer than n_crawls (1)"),
])
def test_load_reports_bad_lines_and_writes_nothing(bin_dir, tmp_path, text, line, message):
    db = tmp_path / "db"
    err = run(bin_dir, "page_db_load", db, stdin=text, expect=1).stderr
    assert f"<stdin>:{line}: " in err and message in err, err
    assert not db.exists(), "a rejected load must not create the DB"
    # Into an existing DB, a rejected input changes nothing either.
    run(bin_dir, "page_db_load", db, stdin="http://x.test/ http://y.test/\n")
    before = run(bin_dir, "page_db_dump", "info", db).stdout
    run(bin_dir, "page_db_load", db, stdin=text, expect=1)
    assert run(bin_dir, "page_db_dump", "info", db).stdout == before


def url_edges(bin_dir: pathlib.Path, db: pathlib.Path) -> set[tuple[str, str]]:
    url_of = dump_pages(bin_dir, db)
    return {(url_of[int(src)], url_of[int(dst)]) for src, dst in
            (line.split() for line in run(bin_dir, "page_db_dump", "links", db).stdout.splitlines())}


def dump_everything(bin_dir: pathlib.Path, db: pathlib.Path) -> str:
    return (run(bin_dir, "page_db_dump", "info", db, "--all").stdout
            + run(bin_dir, "page_db_dump", "links", db).stdout)


@pytest.mark.parametrize("batch_lines", [1, 2, 7, 50])
def test_url_pairs_load_the_same_in_any_number_of_batches(bin_dir, example_db, tmp_path,
                                                          batch_lines):
    """page_db_load writes URL pairs batch by batch as it reads them. The example's sources
    each have their lines together, so in batches of any size (a source's lines going on in
    the next batch) the DB is the one its single batch made, ids, depths and all; that one
    is the golden dump of the loader that read the whole input first."""
    db = tmp_path / "db"
    out = run(bin_dir, "page_db_load", db, EXAMPLE, "--batch-lines", batch_lines).stdout
    assert f"now holds {len(dump_pages(bin_dir, example_db))} pages" in out
    assert dump_everything(bin_dir, db) == dump_everything(bin_dir, example_db)


def test_a_source_whose_lines_are_apart_keeps_all_its_links(bin_dir, tmp_path):
    """A source's lines need not be together: shuffled, whatever batches they fall in, every
    link the input gives a page is stored, and the ids stay dense."""
    seed = 14
    print("seed", seed)
    lines = [line for line in EXAMPLE.read_text().splitlines()
             if line and not line.startswith("#")]
    random.Random(seed).shuffle(lines)
    text = "\n".join(lines) + "\n"
    urls = {u for edge in example_edges() for u in edge}
    for batch_lines in (1, 5, 1000):
        db = tmp_path / f"db{batch_lines}"
        run(bin_dir, "page_db_load", db, "--batch-lines", batch_lines, stdin=text)
        assert url_edges(bin_dir, db) == example_edges(), batch_lines
        pages = dump_pages(bin_dir, db)
        assert sorted(pages) == list(range(len(urls))) and set(pages.values()) == urls
        run(bin_dir, "page_db_check", db)


@pytest.mark.parametrize("batch_lines,ids", [
    # One batch: grouped by source, a before b, so z (a's) is numbered before b.
    (1000, ["http://a.test/", "http://x.test/", "http://z.test/", "http://b.test/",
            "http://y.test/"]),
    # Batches of two lines: z comes in the second batch, after b and y.
    (2, ["http://a.test/", "http://x.test/", "http://b.test/", "http://y.test/",
         "http://z.test/"]),
])
def test_new_pages_are_numbered_by_batch_then_by_source(bin_dir, tmp_path, batch_lines, ids):
    db = tmp_path / "db"
    run(bin_dir, "page_db_load", db, "--batch-lines", batch_lines,
        stdin="http://a.test/ http://x.test/\nhttp://b.test/ http://y.test/\n"
              "http://a.test/ http://z.test/\n")
    assert dump_pages(bin_dir, db) == dict(enumerate(ids))
    assert url_edges(bin_dir, db) == {("http://a.test/", "http://x.test/"),
                                      ("http://a.test/", "http://z.test/"),
                                      ("http://b.test/", "http://y.test/")}


@pytest.mark.parametrize("batch_lines", [1, 1000])
def test_links_of_a_page_the_db_had_are_replaced_by_all_the_input_gives_it(
        bin_dir, tmp_path, batch_lines):
    """Loading into an existing DB, a page's old links go and all its lines in the input
    count, in one batch or spread over several (the first replaces, the others add)."""
    db = tmp_path / "db"
    run(bin_dir, "page_db_load", db, stdin="http://a.test/ http://x.test/\n"
        "http://a.test/ http://y.test/\nhttp://b.test/ http://x.test/\n")
    run(bin_dir, "page_db_load", db, "--batch-lines", batch_lines,
        stdin="http://a.test/ http://z.test/\nhttp://c.test/ http://a.test/\n"
              "http://a.test/ http://w.test/\n")
    assert url_edges(bin_dir, db) == {("http://a.test/", "http://z.test/"),
                                      ("http://a.test/", "http://w.test/"),
                                      ("http://b.test/", "http://x.test/"),
                                      ("http://c.test/", "http://a.test/")}


def test_a_bad_url_pair_past_the_first_batch(bin_dir, tmp_path):
    """The batches before the bad line's are written: a new DB is removed again, an existing
    one keeps them and the error says which lines."""
    text = ("http://a.test/ http://b.test/\nhttp://a.test/ http://c.test/\n"
            "http://b.test/ http://c.test/\nhttp://c.test/ http://a.test/\n"
            "http://c.test/ http://d.test/ http://e.test/\nhttp://d.test/ http://a.test/\n")
    db = tmp_path / "db"
    err = run(bin_dir, "page_db_load", db, "--batch-lines", 2, stdin=text, expect=1).stderr
    assert "<stdin>:5: " in err and "got 3 fields" in err, err
    assert not db.exists(), "a failed load leaves no new DB"
    db.mkdir()  # an empty directory stays, empty
    run(bin_dir, "page_db_load", db, "--batch-lines", 2, stdin=text, expect=1)
    assert db.is_dir() and not any(db.iterdir())
    run(bin_dir, "page_db_load", db, stdin="http://x.test/ http://a.test/\n")
    err = run(bin_dir, "page_db_load", db, "--batch-lines", 2, stdin=text, expect=1).stderr
    assert "<stdin>:5: " in err and "keeps the URL pairs of lines 1-4" in err, err
    assert url_edges(bin_dir, db) == {("http://x.test/", "http://a.test/"),
                                      ("http://a.test/", "http://b.test/"),
                                      ("http://a.test/", "http://c.test/"),
                                      ("http://b.test/", "http://c.test/"),
                                      ("http://c.test/", "http://a.test/")}
    # Loading the corrected input again gives what a clean load gives.
    fixed = text.replace(" http://e.test/", "")
    run(bin_dir, "page_db_load", db, stdin=fixed)
    clean = tmp_path / "clean"
    run(bin_dir, "page_db_load", clean, stdin="http://x.test/ http://a.test/\n")
    run(bin_dir, "page_db_load", clean, stdin=fixed)
    assert dump_everything(bin_dir, db) == dump_everything(bin_dir, clean)


# Runs a command in a grandchild and prints its exit code and peak RSS (KiB). A child
# started by this test process would report at least this process's own peak: its exec
# happens in a vfork of it, and Linux keeps the larger peak across an exec.
PEAK_RSS = """import os, sys
pid = os.fork()
if pid == 0:
    os.execv(sys.argv[1], sys.argv[1:])
_, status, usage = os.wait4(pid, 0)
print(os.waitstatus_to_exitcode(status), usage.ru_maxrss)
"""


def peak_rss_kib(command: list[object], stdin: pathlib.Path) -> int:
    with stdin.open("rb") as f:
        out = subprocess.run(["/usr/bin/python3", "-c", PEAK_RSS, *map(str, command)], stdin=f,
                             capture_output=True, text=True, timeout=120, check=True).stdout
    code, kib = map(int, out.split()[-2:])
    assert code == 0, command
    return kib


@pytest.mark.skipif(os.environ.get("CRAWLRANK_SANITIZED") == "1",
                    reason="ASan's shadow memory and quarantine swamp the measure")
def test_url_pairs_load_in_memory_that_does_not_grow_with_the_input(bin_dir, tmp_path):
    """The same 2,000 pages from 40,000 or 320,000 random links (seed printed), in batches
    of 4,000: the larger input needs little more memory (the DB's file grows by 2 MiB).
    Holding every pair, as the loader once did, costs about 120 bytes a line: 37 MiB more."""
    seed = 5
    print("seed", seed)
    rng = random.Random(seed)
    urls = [f"http://host{i % 40}.test/page/{i}" for i in range(2000)]
    peaks = []
    for n in (40_000, 320_000):
        path = tmp_path / f"pairs{n}.txt"
        path.write_text("".join(f"{rng.choice(urls)} {rng.choice(urls)}\n" for _ in range(n)))
        db = tmp_path / f"db{n}"
        peaks.append(peak_rss_kib([bin_dir / "page_db_load", db, "--batch-lines", 4000], path))
    print("peak RSS, KiB", peaks)
    assert peaks[1] - peaks[0] < 10 * 1024, peaks


def test_load_of_unreadable_file(bin_dir, tmp_path):
    err = run(bin_dir, "page_db_load", tmp_path / "db", tmp_path / "absent.txt", expect=1).stderr
    assert "absent.txt" in err


def test_w3lib_profile_db_round_trips_and_is_refused_by_another_profile(bin_dir, tmp_path):
    db = tmp_path / "w3lib"
    pairs = "http://example.com:80/b?z=1&a=2 http://example.com/./c#frag\n"
    run(bin_dir, "page_db_load", db, "--profile", "w3lib", stdin=pairs)
    stats = json.loads(run(bin_dir, "page_db_stats", db, "--json").stdout)
    assert stats["url_profile"] == "w3lib/1"
    urls = sorted(dump_pages(bin_dir, db).values())
    # w3lib keeps the default port and dot segments, sorts the query, drops the fragment.
    assert urls == ["http://example.com/./c", "http://example.com:80/b?a=2&z=1"]
    dump = run(bin_dir, "page_db_dump", "info", db).stdout + \
        run(bin_dir, "page_db_dump", "links", db).stdout
    (tmp_path / "dump.txt").write_text(dump)
    copy = tmp_path / "copy"
    run(bin_dir, "page_db_load", copy, tmp_path / "dump.txt", "--profile", "w3lib")
    assert run(bin_dir, "page_db_dump", "info", copy).stdout + \
        run(bin_dir, "page_db_dump", "links", copy).stdout == dump
    err = run(bin_dir, "page_db_load", tmp_path / "rfc", tmp_path / "dump.txt", expect=1).stderr
    assert "not canonical under rfc3986/1" in err and "--profile" in err


def test_permission_errors_name_the_file(bin_dir, example_db):
    """Another user may read the DB's files but not write its lock.mdb: the error names it."""
    if os.geteuid() != 0 or shutil.which("setpriv") is None:
        pytest.skip("needs root and setpriv to run a tool as another user")
    shared = pathlib.Path(tempfile.mkdtemp(prefix="crawlrank-perm-"))
    try:
        shared.chmod(0o755)
        db = shared / "db"
        shutil.copytree(example_db, db)
        for path in (db, *db.iterdir()):
            path.chmod(0o755 if path.is_dir() else 0o644)
        proc = subprocess.run(
            ["setpriv", "--reuid=65534", "--regid=65534", "--clear-groups",
             str(bin_dir / "page_db_stats"), str(db)],
            capture_output=True, text=True, timeout=60)
        assert proc.returncode == 1, proc.stderr
        assert f'"{db}/lock.mdb": Permission denied' in proc.stderr, proc.stderr
    finally:
        shutil.rmtree(shared, ignore_errors=True)


def test_crawlrank_version_names_the_release_and_the_formats(bin_dir):
    proc = subprocess.run([str(bin_dir / "crawlrank"), "--version"], capture_output=True,
                          text=True, check=True)
    cmake = (pathlib.Path(__file__).resolve().parents[2] / "CMakeLists.txt").read_text()
    release = cmake.split("project(crawlrank VERSION ", 1)[1].split()[0]
    assert proc.stdout == f"crawlrank {release} (PageDB format 10, rank file format 3)\n"
    assert "--version" in subprocess.run([str(bin_dir / "crawlrank")], capture_output=True,
                                         text=True).stderr


@pytest.mark.parametrize("args, option", [
    (["crawlrank", "crawl", "DB", "http://e.test/", "--max-pages", "-5"], "--max-pages"),
    (["crawlrank", "crawl", "DB", "http://e.test/", "--per-host", "-1"], "--per-host"),
    (["page_db_top", "DB", "-n", "-3"], "-n"),
    (["page_db_schedule", "DB", "--max-hosts", "-1"], "--max-hosts"),
])
def test_unsigned_options_refuse_negative_numbers(bin_dir, tmp_path, args, option):
    # CLI11 would wrap "-5" round to 2^64 - 5: a crawl without a page limit.
    argv = [str(bin_dir / args[0])] + [str(tmp_path / "db") if a == "DB" else a for a in args[1:]]
    proc = subprocess.run(argv, capture_output=True, text=True)
    assert proc.returncode == 2, proc.stderr
    value = args[args.index(option) + 1]
    assert f'{option}: "{value}" is negative; give 0 or more' in proc.stderr
    assert not (tmp_path / "db").exists()


def test_times_for_people_are_iso_8601_utc_and_the_dump_keeps_unix_seconds(
        bin_dir, example_db, tmp_path):
    # A copy of the example whose first page was crawled at 1700000000.250 (2023-11-14
    # 22:13:20.250 UTC) and again a day later.
    lines = run(bin_dir, "page_db_dump", "info", example_db, "--header").stdout.splitlines()
    fields = lines[1].split(" ")
    fields[3:7] = ["1700000000.250", "1700086400.000", "1", "2"]
    lines[1] = " ".join(fields)
    (tmp_path / "dump.txt").write_text("\n".join(lines) + "\n" +
                                       run(bin_dir, "page_db_dump", "links", example_db).stdout)
    db = tmp_path / "db"
    run(bin_dir, "page_db_load", db, tmp_path / "dump.txt")
    # The TSV stays the loader's input: Unix seconds, read back the same.
    plain = run(bin_dir, "page_db_dump", "info", db).stdout.splitlines()
    assert plain[0].split(" ")[3:5] == ["1700000000.250", "1700086400.000"]
    iso = run(bin_dir, "page_db_dump", "info", db, "--iso-times").stdout.splitlines()
    assert iso[0].split(" ")[3:5] == ["2023-11-14T22:13:20Z", "2023-11-15T22:13:20Z"]
    assert iso[1].split(" ")[3:5] == ["-", "-"]  # never crawled
    as_json = json.loads(run(bin_dir, "page_db_dump", "info", db, "--json",
                             "--iso-times").stdout.splitlines()[0])
    assert as_json["first_crawl"] == "2023-11-14T22:13:20Z"
    assert as_json["first_crawl_ms"] == 1700000000250
    assert "--iso-times goes with info" in run(bin_dir, "page_db_dump", "links", db,
                                                "--iso-times", expect=2).stderr
    # page_db_stats: when the DB was created, as ISO and as Unix milliseconds.
    stats = json.loads(run(bin_dir, "page_db_stats", db, "--json").stdout)
    assert stats["created"] == time.strftime("%Y-%m-%dT%H:%M:%SZ",
                                             time.gmtime(stats["created_ms"] // 1000))
    assert abs(stats["created_ms"] / 1000 - time.time()) < 600
    assert f"created: {stats['created']}\n" in run(bin_dir, "page_db_stats", db).stdout


def test_crawlrank_runs_the_robots_tool(bin_dir, tmp_path):
    robots = tmp_path / "robots.txt"
    robots.write_text("User-agent: *\nDisallow: /private/\nCrawl-delay: 2\n")
    proc = subprocess.run([str(bin_dir / "crawlrank"), "robots", str(robots)],
                          input="/private/x\n/public\n", capture_output=True, text=True,
                          check=True)
    assert proc.stdout == "disallowed\t/private/x\nallowed\t/public\n"
    delay = subprocess.run([str(bin_dir / "crawlrank"), "robots", str(robots), "--crawl-delay"],
                           capture_output=True, text=True, check=True).stdout
    assert delay == "crawl-delay\t2.000\n"
    usage = subprocess.run([str(bin_dir / "crawlrank")], capture_output=True, text=True).stderr
    assert " robots " in usage


# ---- page_db_dump's interchange formats

def raw_dump(bin_dir, *args):
    """page_db_dump's stdout as bytes (CSV's CRLF line ends kept)."""
    proc = subprocess.run([str(bin_dir / "page_db_dump"), *map(str, args)], capture_output=True,
                          timeout=120)
    assert proc.returncode == 0, proc.stderr
    return proc.stdout


@pytest.fixture(scope="module")
def hostile_db(bin_dir, tmp_path_factory):
    """A PageDB whose URLs carry a comma, an apostrophe and an ampersand."""
    folder = tmp_path_factory.mktemp("hostile")
    edges = folder / "edges.links"
    edges.write_text("http://a.test/ http://a.test/p?a=1&b=x,y\n"
                     "http://a.test/p?a=1&b=x,y http://a.test/it's\n"
                     "http://a.test/it's http://a.test/\n")
    run(bin_dir, "page_db_load", folder / "db", edges)
    return folder / "db"


def test_dump_csv_is_rfc_4180_with_the_json_fields(bin_dir, example_db, hostile_db):
    import csv
    import io
    for db in (example_db, hostile_db):
        raw = raw_dump(bin_dir, "info", db, "--csv")
        assert raw.endswith(b"\r\n") and b"\n" not in raw.replace(b"\r\n", b"")
        rows = list(csv.reader(io.StringIO(raw.decode(), newline="")))
        pages = [json.loads(line) for line in run(bin_dir, "page_db_dump", "info", db,
                                                  "--json").stdout.splitlines()]
        assert rows[0] == list(pages[0])  # the header row: the JSON fields, in order
        assert len(rows) == len(pages) + 1
        for row, page in zip(rows[1:], pages):
            for value, (name, expected) in zip(row, page.items()):
                if isinstance(expected, (int, float)):
                    assert float(value) == expected, name
                elif expected is None:  # a rank not computed: an empty field
                    assert value == "", name
                else:
                    assert value == expected, name
    # The comma made its field quoted; the link ends as URLs come back whole.
    assert b'"http://a.test/p?a=1&b=x,y"' in raw_dump(bin_dir, "info", hostile_db, "--csv")
    links = list(csv.reader(io.StringIO(
        raw_dump(bin_dir, "links", hostile_db, "--csv", "--urls").decode(), newline="")))
    assert links[0] == ["from_url", "to_url"]
    assert set(map(tuple, links[1:])) == {
        ("http://a.test/", "http://a.test/p?a=1&b=x,y"),
        ("http://a.test/p?a=1&b=x,y", "http://a.test/it's"),
        ("http://a.test/it's", "http://a.test/")}
    indexes = raw_dump(bin_dir, "links", hostile_db, "--csv").decode().split("\r\n")
    assert indexes[0] == "from,to" and len(indexes) == 5 and indexes[-1] == ""


def test_dump_links_as_urls_is_the_loaded_edge_list(bin_dir, example_db, tmp_path):
    text = run(bin_dir, "page_db_dump", "links", example_db, "--urls").stdout
    assert {tuple(line.split()) for line in text.splitlines()} == example_edges()
    (tmp_path / "edges").write_text(text)  # and page_db_load reads it back
    run(bin_dir, "page_db_load", tmp_path / "again", tmp_path / "edges")
    again = run(bin_dir, "page_db_dump", "links", tmp_path / "again", "--urls").stdout
    assert sorted(again.splitlines()) == sorted(text.splitlines())  # ids may differ
    lines = run(bin_dir, "page_db_dump", "links", example_db, "--urls", "--json").stdout
    assert {(e["from_url"], e["to_url"]) for e in map(json.loads, lines.splitlines())} == \
        example_edges()
    header = run(bin_dir, "page_db_dump", "links", example_db, "--urls", "--header").stdout
    assert header.splitlines()[0] == "# from_url to_url"


def test_dump_graphml_reads_back_as_the_same_graph(bin_dir, example_db, hostile_db, tmp_path):
    networkx = pytest.importorskip("networkx")
    for db in (example_db, hostile_db):
        path = tmp_path / "graph.graphml"
        path.write_bytes(raw_dump(bin_dir, "links", db, "--graphml"))
        graph = networkx.read_graphml(path)
        assert graph.is_directed()
        pages = [json.loads(line) for line in run(bin_dir, "page_db_dump", "info", db,
                                                  "--json").stdout.splitlines()]
        assert {n: (d["url"], d["status"], d["crawls"], d["depth"])
                for n, d in graph.nodes(data=True)} == {
            f"n{p['index']}": (p["url"], p["status"], p["crawls"], p["depth"]) for p in pages}
        links = run(bin_dir, "page_db_dump", "links", db).stdout.split("\n")
        assert set(graph.edges()) == {
            (f"n{a}", f"n{b}") for a, b in (line.split() for line in links if line)}
    assert b"&amp;" in raw_dump(bin_dir, "links", hostile_db, "--graphml")


@pytest.mark.parametrize("args", [
    ["info", "--csv", "--json"], ["links", "--graphml", "--csv"], ["info", "--urls"],
    ["info", "--graphml"], ["links", "--graphml", "--urls"], ["links", "--csv", "--header"]])
def test_dump_format_options_that_do_not_go_together_are_refused(bin_dir, example_db, args):
    proc = run(bin_dir, "page_db_dump", args[0], example_db, *args[1:], expect=2)
    assert proc.stderr.strip()


@pytest.mark.needs_crawlrank
def test_schedule_json_has_every_stats_field_after_the_keys_it_always_had(bin_dir, example_db):
    """Issue #42: page_db_schedule --json takes its fields from the one list of the
    scheduler's stats (ForEachStatsField, which the Python bindings walk too): the keys it
    printed before keep their order, every other field follows."""
    import crawlrank
    stats = json.loads(run(bin_dir, "page_db_schedule", example_db, "--json").stdout)["stats"]
    before = ["queued", "ready", "in_flight", "retrying", "crawled", "failed", "hosts",
              "finished", "limit_reached", "next_ready", "next_ready_ms"]
    assert list(stats)[:len(before)] == before
    db = crawlrank.PageDb(str(example_db), read_only=True)
    fields = crawlrank.Scheduler.inspect(db)["stats"]
    assert set(stats) == set(fields) | {"next_ready"}
    for name, value in fields.items():
        if name not in ("next_ready_ms", "next_revisit_ms", "rerank_ms"):  # times: now-based
            assert stats[name] == value, name


@pytest.mark.needs_crawlrank
def test_a_stored_configuration_that_does_not_apply_is_named_and_the_rest_still_shows(
        bin_dir, tmp_path):
    """A stored value this crawlrank refuses (an older or hand-edited DB): page_db_stats
    still prints every figure, the schedule's by the default options, names the key in
    config_error and on stderr, and exits 1; page_db_dump names the way out."""
    import crawlrank
    db = tmp_path / "db"
    with crawlrank.PageDb(str(db)) as opened:
        opened.add(crawlrank.CrawledPage("http://a.test/", ["http://a.test/x"]))
        opened.write_config({"score": "nonsense", "delay_ms": "0"})
    stats = run(bin_dir, "page_db_stats", db, "--json", expect=1)
    shown = json.loads(stats.stdout)
    assert (shown["pages"], shown["queued"], shown["config"]["score"]) == (2, 1, "nonsense")
    assert 'configuration key score = "nonsense"' in shown["config_error"]
    assert "the schedule counts below take the default options" in stats.stderr
    assert "config_error:" in run(bin_dir, "page_db_stats", db, expect=1).stdout
    dump = run(bin_dir, "page_db_dump", "info", db, "--json", expect=1)
    assert "--skip-damaged dumps the pages" in dump.stderr
    salvaged = run(bin_dir, "page_db_dump", "info", db, "--json", "--skip-damaged")
    assert [json.loads(line)["state"] for line in salvaged.stdout.splitlines()] == [
        "crawled", "pending"]
