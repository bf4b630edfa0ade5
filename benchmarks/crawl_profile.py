#!/usr/bin/python3
"""Splits a perf profile of `crawlrank crawl` into the parts of a crawl
(docs/benchmarks.md, "Built-in crawler against Scrapy and Wget2").

    perf record -F 499 --call-graph dwarf,32768 -o crawl.perf -- crawlrank crawl ...
    perf script -i crawl.perf -F comm,tid,period,ip,sym,dso | \\
        /usr/bin/python3 benchmarks/crawl_profile.py

Each sample goes to the first part, in the order of PARTS, that one of its stack frames
(any depth) belongs to: a memcpy under Gumbo is the parser's, a libcurl URL call under
ResolveUrl is URL work, not the network. The rest, start-up and the final ranking apart,
is "other".
"""

from __future__ import annotations

import re
import sys
from collections import Counter

# (part, pattern searched in each frame's "symbol (dso)")
PARTS = [
    ("start-up (dynamic loader)", r"^_dl_start|^_dl_start_user|dl_main"),
    ("final ranking and summary", r"crawlrank::(RankDb|Rank\w*Graph|.*PageRank|RunCrawlTool)|BuildRankGraph|ComputeRank"),
    ("Gumbo parse (gumbo_parse + arena)", r"libgumbo|gumbo_|GumboArena"),
    ("charset decoding", r"crawlrank::(DecodeToUtf8|DecodeBody|.*[Cc]harset)"),
    ("URL resolve + canonicalise", r"ResolveUrl|CanonicalizeUrl|CanonicalizeRfc3986|url_internal|UrlFingerprint|OriginOf|RobotsPath"),
    ("PageDB writes (CrawledBatch)", r"CrawledBatch|PageDb|liblmdb|mdb_"),
    ("DOM walk, text, links (ExtractHtml)", r"ExtractHtml|Walker|AppendCollapsed|KeywordScorer|XXH3"),
    ("scheduler Next / AddSeeds / Failed", r"Scheduler::(Next|AddSeeds|Failed|GetStats)|SchedulerImpl|Scheduler"),
    ("libcurl transfers + sockets (Fetcher)", r"libcurl|Fetcher|curl_|libnghttp|libssl|libcrypto"),
]


def main() -> None:
    compiled = [(name, re.compile(pat)) for name, pat in PARTS]
    totals: Counter[str] = Counter()
    kernel: Counter[str] = Counter()
    by_thread: Counter[str] = Counter()
    frames: list[str] = []
    header = None

    def flush() -> None:
        if header is None:
            return
        part = "other"
        for name, pattern in compiled:
            if any(pattern.search(f) for f in frames):
                part = name
                break
        totals[part] += header[1]
        if frames and "[kernel.kallsyms]" in frames[0]:
            kernel[part] += header[1]
        by_thread[header[0]] += header[1]

    for line in sys.stdin:
        if not line.strip():
            flush()
            header, frames = None, []
        elif not line[0].isspace():
            fields = line.split()
            header = (fields[1], int(fields[2]))
        else:
            frames.append(line.strip().split(None, 1)[-1])
    flush()
    total = sum(totals.values())
    print(f"{'part':40} {'share':>6} {'cpu s':>6} {'of it kernel':>12}")
    for part, period in totals.most_common():
        print(f"{part:40} {100 * period / total:5.1f}% {period / 1e9:6.2f} "
              f"{100 * kernel[part] / max(period, 1):11.0f}%")
    print(f"{'total':40} {100.0:5.1f}% {total / 1e9:6.2f}")
    print("threads (tid: cpu s): " + ", ".join(
        f"{tid}: {p / 1e9:.2f}" for tid, p in by_thread.most_common()))


if __name__ == "__main__":
    main()
