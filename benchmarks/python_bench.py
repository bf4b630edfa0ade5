#!/usr/bin/python3
"""What the Python bindings cost a crawler (docs/benchmarks.md, "Python bindings").

Each figure is the median of REPEATS runs, Python-side work included: building the
CrawledPage objects from lists of URL strings, as a Scrapy middleware or Frontera backend
does, then the call. Pages have 50 links each (45 to pages the DB has, 5 new ones):
  report/batch    crawled_batch() of 64 pages (as the Scrapy scheduler and the Frontera
                  backend write them): per page
  report/one      crawled() of one page: per page
  report/c++      the baseline measured in the same run: PageDb.add_batch() of the same
                  64-page batches into the same DB, whose C++ work is the bare PageDB's (no
                  scheduler, and the pages built beforehand, so no Python work in the figure)
  one/c++         the same for PageDb.add() of one page
  next(64)        one Scheduler.next(64) call, 64 requests handed out

    PYTHONPATH=build/python /usr/bin/python3 benchmarks/python_bench.py [--pages N] [--repeats R]
"""

from __future__ import annotations

import argparse
import statistics
import tempfile
import time

import crawlrank as cr


def pages_of(first: int, count: int, known: int) -> list[tuple[str, list[str]]]:
    """Pages first .. first+count-1, each with 45 links to known pages and 5 new ones."""
    out = []
    for i in range(first, first + count):
        links = [f"http://h{(i * 7 + j) % 50}.test/p{(i * 31 + j * 17) % known}"
                 for j in range(45)]
        links += [f"http://h{(i + j) % 50}.test/n{i}-{j}" for j in range(5)]
        out.append((f"http://h{i % 50}.test/p{i}", links))
    return out


def fill(db: cr.PageDb, pages: int) -> None:
    """`pages` pages known, 2000 of them crawled with their links."""
    db.add_batch([cr.CrawledPage(u, l) for u, l in pages_of(0, 2000, pages)])
    for start in range(0, pages, 20_000):
        db.add_batch([cr.CrawledPage(f"http://h{i % 50}.test/p{i}", [], http_status=0)
                      for i in range(start, min(pages, start + 20_000))])


def run(pages: int, repeats: int) -> None:
    results: dict[str, list[float]] = {k: [] for k in ("batch", "one", "cxx", "cxx1", "next")}
    for _ in range(repeats):
        with tempfile.TemporaryDirectory() as tmp:
            with cr.PageDb(f"{tmp}/db", durability="none") as db:
                fill(db, pages)
                with cr.Scheduler(db, score="link-score", delay_ms=0,
                                  per_host=1000) as scheduler:
                    work = pages_of(10_000, 64 * 20, pages)
                    t = time.perf_counter()
                    for b in range(0, len(work), 64):
                        scheduler.crawled_batch([
                            (cr.CrawledPage(u, l), 0) for u, l in work[b:b + 64]])
                    results["batch"].append((time.perf_counter() - t) / len(work))
                    work = pages_of(20_000, 200, pages)
                    t = time.perf_counter()
                    for u, l in work:
                        scheduler.crawled(cr.CrawledPage(u, l))
                    results["one"].append((time.perf_counter() - t) / len(work))
                    t = time.perf_counter()
                    for _ in range(20):
                        assert len(scheduler.next(64)) == 64
                    results["next"].append((time.perf_counter() - t) / 20)
            # The baseline: the same DB and the same pages, without the scheduler and with the
            # pages built beforehand.
            with cr.PageDb(f"{tmp}/bare", durability="none") as bare:
                fill(bare, pages)
                batches = [[cr.CrawledPage(u, l) for u, l in pages_of(10_000 + b, 64, pages)]
                           for b in range(0, 64 * 20, 64)]
                t = time.perf_counter()
                for batch in batches:
                    bare.add_batch(batch)
                results["cxx"].append((time.perf_counter() - t) / (64 * 20))
                singles = [cr.CrawledPage(u, l) for u, l in pages_of(20_000, 200, pages)]
                t = time.perf_counter()
                for page in singles:
                    bare.add(page)
                results["cxx1"].append((time.perf_counter() - t) / len(singles))
    med = {k: statistics.median(v) for k, v in results.items()}
    print(f"# {pages} pages known, 50 links a page, median of {repeats}")
    print(f"report/batch  {med['batch'] * 1e6:8.1f} us/page  ({med['batch'] / med['cxx']:.2f}x report/c++)")
    print(f"report/c++    {med['cxx'] * 1e6:8.1f} us/page  (PageDb.add_batch)")
    print(f"report/one    {med['one'] * 1e6:8.1f} us/page  ({med['one'] / med['cxx1']:.2f}x one/c++)")
    print(f"one/c++       {med['cxx1'] * 1e6:8.1f} us/page  (PageDb.add)")
    print(f"next(64)      {med['next'] * 1e6:8.1f} us/call ({med['next'] / 64 * 1e6:.2f} us/request)")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--pages", type=int, default=200_000)
    parser.add_argument("--repeats", type=int, default=5)
    args = parser.parse_args()
    run(args.pages, args.repeats)


if __name__ == "__main__":
    main()
