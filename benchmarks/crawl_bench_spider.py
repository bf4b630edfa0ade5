#!/usr/bin/python3
"""The Scrapy contender of benchmarks/crawl_bench.py: a minimal spider that follows every
link within the seeds' hosts, as `crawlrank crawl --same-host` does.

    /usr/bin/python3 benchmarks/crawl_bench_spider.py --stats STATS.json SEED_URL...

Settings: 16 requests in flight in all and per host, no delay, robots.txt obeyed, Scrapy's
default scheduler and duplicate filter, AutoThrottle off. The spider does nothing with a
page but extract its links; Scrapy's own stats go to STATS.json when the crawl ends.
"""

from __future__ import annotations

import argparse
import json
from urllib.parse import urlsplit

from scrapy.crawler import CrawlerProcess
from scrapy.linkextractors import LinkExtractor
from scrapy.spiders import CrawlSpider, Rule


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--stats", required=True)
    parser.add_argument("seeds", nargs="+")
    args = parser.parse_args()
    hosts = sorted({urlsplit(seed).hostname for seed in args.seeds})
    # LinkExtractor compares allow_domains with the URL's netloc, port included; the
    # offsite middleware (allowed_domains) with its host name, port excluded.
    netlocs = sorted({urlsplit(seed).netloc for seed in args.seeds})

    class SiteSpider(CrawlSpider):
        name = "crawl_bench"
        allowed_domains = hosts
        start_urls = args.seeds
        rules = (Rule(LinkExtractor(allow_domains=netlocs), follow=True),)

        def closed(self, reason: str) -> None:
            stats = dict(self.crawler.stats.get_stats())
            stats["finish_reason"] = reason
            with open(args.stats, "w") as f:
                json.dump(stats, f, default=str)

    process = CrawlerProcess(settings={
        "CONCURRENT_REQUESTS": 16,
        "CONCURRENT_REQUESTS_PER_DOMAIN": 16,
        "DOWNLOAD_DELAY": 0,
        "ROBOTSTXT_OBEY": True,
        "AUTOTHROTTLE_ENABLED": False,
        "LOG_LEVEL": "INFO",
        "TELNETCONSOLE_ENABLED": False,
    })
    process.crawl(SiteSpider)
    process.start()


if __name__ == "__main__":
    main()
