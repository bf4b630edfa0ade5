#!/usr/bin/python3
"""Damages copies of a PageDB and runs every tool on each copy: none may crash.

Each case copies a sound DB (its data.mdb and stored ranks), then flips one byte of
data.mdb (XOR with a random nonzero value), zeroes one whole 4 KiB page of it, or cuts it
short, and runs every tool on
the copy: the readers first, then the writers (page_db_rank, page_db_compact,
page_db_load). A run is classified as

  ok       exit 0
  error    exit 1 with a message on stderr
  guarded  exit 1 through the fault guard (LMDB faulted inside the damaged map, or one of
           its assertions failed on a damaged page)
  CRASH    anything else: a signal, another exit code, a sanitizer report, a hang, an
           error exit without a message, or a message of more than 2000 characters.

and the rules that damage is never written over are checked per case:
  - when the full page_db_check fails, page_db_load and page_db_compact must fail too;
  - when page_db_check --quick fails, page_db_stats must fail;
  - after page_db_load succeeds, page_db_check must pass.

Run it by hand for the full set (scripts/damage.sh); tests/python/test_damage.py runs a
seeded subset in CI. The seed is printed; the same seed damages the same bytes.
"""

from __future__ import annotations

import argparse
import dataclasses
import os
import pathlib
import random
import shutil
import signal
import subprocess
import sys
import tempfile

ROOT = pathlib.Path(__file__).resolve().parents[2]
EXAMPLE = ROOT / "examples" / "small-web.links"
# The fault guard's messages (src/base/fault_guard.cc): a fault, an LMDB assertion.
GUARD_MARKS = ("crashed while reading", "LMDB met a damaged page")
SANITIZER_MARKS = ("ERROR: AddressSanitizer", "runtime error:", "ERROR: LeakSanitizer")
TIMEOUT_S = 120
MAX_MESSAGE = 2000


@dataclasses.dataclass
class Outcome:
    tool: str
    kind: str  # ok, error, guarded, CRASH
    returncode: int
    stderr: str


@dataclasses.dataclass
class CaseResult:
    name: str
    outcomes: list[Outcome]
    violations: list[str]


def run_tool(bin_dir: pathlib.Path, argv: list[str], stdin: str | None = None) -> Outcome:
    tool = argv[0]
    try:
        proc = subprocess.run([str(bin_dir / tool), *argv[1:]], input=stdin,
                              capture_output=True, text=True, timeout=TIMEOUT_S,
                              errors="replace")
    except subprocess.TimeoutExpired:
        return Outcome(tool, "CRASH", -1, f"hung for more than {TIMEOUT_S} s")
    err = proc.stderr
    # An error exit must say why: a `tool: message` line of bounded length (after the
    # notes some tools print first, such as page_db_top's line on the rank's freshness).
    said_why = any(line.startswith(tool + ":") and len(line) <= MAX_MESSAGE
                   for line in err.splitlines())
    if proc.returncode < 0 or any(mark in err for mark in SANITIZER_MARKS):
        kind = "CRASH"
    elif proc.returncode == 0:
        kind = "ok"
    elif proc.returncode == 1 and said_why:
        kind = "guarded" if any(mark in err for mark in GUARD_MARKS) else "error"
    else:
        kind = "CRASH"
    return Outcome(tool, kind, proc.returncode, err[-3000:])


def must(bin_dir: pathlib.Path, argv: list[str], stdin: str | None = None) -> str:
    proc = subprocess.run([str(bin_dir / argv[0]), *argv[1:]], input=stdin,
                          capture_output=True, text=True, timeout=TIMEOUT_S)
    if proc.returncode != 0:
        raise RuntimeError(f"{argv}: exit {proc.returncode}: {proc.stderr}")
    return proc.stdout


def web_graph(seed: int, pages: int, hosts: int) -> str:
    """A web-like graph as URL pairs: most links stay on a host; a few hubs link to many."""
    rng = random.Random(seed)
    url = [f"http://h{i % hosts}.example/p/{i // hosts}" for i in range(pages)]
    lines = []
    for i in range(pages):
        degree = 2000 if i % 997 == 0 else rng.randint(0, 16)
        for _ in range(degree):
            if rng.random() < 0.8:
                j = (i + hosts * rng.randint(-50, 50)) % pages  # same host, nearby
            else:
                j = rng.randrange(pages)
            lines.append(f"{url[i]} {url[j]}")
    return "\n".join(lines) + "\n"


def build_sound_dbs(bin_dir: pathlib.Path, work: pathlib.Path, medium_pages: int
                    ) -> list[pathlib.Path]:
    """The example DB and a generated one, each ranked (so page_db_top has a rank)."""
    small = work / "small"
    must(bin_dir, ["page_db_load", str(small), str(EXAMPLE)])
    medium = work / "medium"
    must(bin_dir, ["page_db_load", str(medium)], stdin=web_graph(7, medium_pages, 40))
    for db in (small, medium):
        must(bin_dir, ["page_db_rank", str(db), "--algo", "pagerank"])
        must(bin_dir, ["page_db_check", str(db)])
    return [small, medium]


def first_url(bin_dir: pathlib.Path, db: pathlib.Path) -> str:
    return must(bin_dir, ["page_db_dump", "info", str(db)]).splitlines()[0].split()[2]


def zero_page(data: pathlib.Path, page: int) -> str:
    with open(data, "r+b") as f:
        f.seek(page * 4096)
        f.write(bytes(4096))
    return f"page {page} zeroed"


def damage(copy: pathlib.Path, rng: random.Random, mode: str) -> str:
    data = copy / "data.mdb"
    size = data.stat().st_size
    if mode == "zero":
        return zero_page(data, rng.randrange(size // 4096))
    if mode == "cut":
        if rng.random() < 0.5:
            new_size = rng.randrange(size // 4096) * 4096  # a page boundary
        else:
            new_size = rng.randrange(size)
        os.truncate(data, new_size)
        return f"cut from {size} to {new_size} bytes"
    offset = rng.randrange(size)
    mask = rng.randrange(1, 256)
    with open(data, "r+b") as f:
        f.seek(offset)
        byte = f.read(1)[0]
        f.seek(offset)
        f.write(bytes([byte ^ mask]))
    return f"byte {offset} (page {offset // 4096} +{offset % 4096}) ^= 0x{mask:02x}"


def run_case(bin_dir: pathlib.Path, sound: pathlib.Path, url: str, work: pathlib.Path,
             name: str, rng: random.Random, mode: str) -> CaseResult:
    copy = work / "copy"
    shutil.rmtree(work, ignore_errors=True)
    work.mkdir(parents=True)
    copy.mkdir()
    shutil.copy2(sound / "data.mdb", copy / "data.mdb")  # no lock.mdb: a copied DB
    if (sound / "ranks").is_dir():
        shutil.copytree(sound / "ranks", copy / "ranks")
    what = damage(copy, rng, mode)
    db = str(copy)
    outcomes: dict[str, Outcome] = {}
    readers = {
        "check": ["page_db_check", db],
        "check_quick": ["page_db_check", db, "--quick"],
        "stats": ["page_db_stats", db],
        "dump_info": ["page_db_dump", "info", db, "--all", "--rank", "pagerank"],
        "dump_links": ["page_db_dump", "links", db],
        "find": ["page_db_find", db, "."],
        "links": ["page_db_links", db, url],
        "path": ["page_db_path", db, url],
        "top": ["page_db_top", db, "--by", "pagerank", "-n", "5"],
    }
    for key, argv in readers.items():
        outcomes[key] = run_tool(bin_dir, argv)
    outcomes["rank"] = run_tool(bin_dir, ["page_db_rank", db, "--algo", "indegree"])
    outcomes["compact"] = run_tool(bin_dir, ["page_db_compact", db, str(work / "compacted")])
    outcomes["load"] = run_tool(bin_dir, ["page_db_load", db],
                                stdin="http://new.example/ http://new.example/a\n")
    violations = []
    if outcomes["check"].kind != "ok":
        for key in ("load", "compact"):
            if outcomes[key].kind == "ok":
                violations.append(f"{key} succeeded on a DB the full check rejects")
    if outcomes["check_quick"].kind != "ok" and outcomes["stats"].kind == "ok":
        violations.append("stats succeeded on a DB the quick check rejects")
    if outcomes["load"].kind == "ok":
        after = run_tool(bin_dir, ["page_db_check", db])
        outcomes["check_after_load"] = after
        if after.kind != "ok":
            violations.append("the full check fails after a load it allowed")
    return CaseResult(f"{name}: {what}", list(outcomes.values()), violations)


def run_all(bin_dir: pathlib.Path, seed: int, flips: int, truncations: int,
            medium_pages: int = 30000, log=print, zeroes: int = 0) -> list[CaseResult]:
    rng = random.Random(seed)
    results = []
    with tempfile.TemporaryDirectory(prefix="crawlrank-damage-") as tmp:
        work = pathlib.Path(tmp)
        sound = build_sound_dbs(bin_dir, work, medium_pages)
        urls = [first_url(bin_dir, db) for db in sound]
        cases = ([("flip", i) for i in range(flips)] + [("cut", i) for i in range(truncations)]
                 + [("zero", i) for i in range(zeroes)])
        for n, (mode, i) in enumerate(cases):
            which = n % len(sound)
            name = f"{mode} {i} of {sound[which].name}"
            result = run_case(bin_dir, sound[which], urls[which], work / "case", name, rng, mode)
            results.append(result)
            guarded = [o.tool for o in result.outcomes if o.kind == "guarded"]
            if guarded:
                log(f"guarded {result.name}: {', '.join(guarded)}")
            bad = [o for o in result.outcomes if o.kind == "CRASH"]
            if bad or result.violations:
                log(f"FAIL {result.name}")
                for o in bad:
                    log(f"  {o.tool}: exit {o.returncode}\n    {o.stderr.strip()[-1500:]}")
                for v in result.violations:
                    log(f"  {v}")
    return results


def summary(results: list[CaseResult]) -> tuple[str, bool]:
    counts: dict[str, dict[str, int]] = {}
    for result in results:
        for o in result.outcomes:
            counts.setdefault(o.tool, {}).setdefault(o.kind, 0)
            counts[o.tool][o.kind] += 1
    lines = [f"{len(results)} damaged copies"]
    for tool in sorted(counts):
        parts = ", ".join(f"{k} {v}" for k, v in sorted(counts[tool].items()))
        lines.append(f"  {tool:16} {parts}")
    crashes = sum(c.get("CRASH", 0) for c in counts.values())
    violations = sum(len(r.violations) for r in results)
    lines.append(f"crashes {crashes}, damage written over {violations}")
    return "\n".join(lines), crashes == 0 and violations == 0


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tools", type=pathlib.Path, default=ROOT / "build" / "tools",
                        help="folder of the built tools (default: build/tools)")
    parser.add_argument("--flips", type=int, default=300)
    parser.add_argument("--truncations", type=int, default=100)
    parser.add_argument("--zeroes", type=int, default=100, help="whole pages zeroed")
    parser.add_argument("--seed", type=int, default=None)
    args = parser.parse_args()
    seed = args.seed if args.seed is not None else random.SystemRandom().randrange(1 << 32)
    print(f"damage: seed {seed}, {args.flips} flips, {args.truncations} truncations, "
          f"{args.zeroes} zeroed pages, tools {args.tools}", flush=True)
    results = run_all(args.tools, seed, args.flips, args.truncations,
                      log=lambda s: print(s, flush=True), zeroes=args.zeroes)
    text, clean = summary(results)
    print(text)
    return 0 if clean else 1


if __name__ == "__main__":
    signal.signal(signal.SIGINT, signal.SIG_DFL)
    sys.exit(main())
