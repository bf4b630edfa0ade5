"""Scrapy settings of the example project: crawlrank's scheduler decides what is fetched
next, and its PageDB (site.crawlrank/ in the working directory) keeps the crawl's state,
so rerunning `scrapy crawl site` goes on where the last run stopped."""

BOT_NAME = "docs_crawl"
SPIDER_MODULES = ["docs_crawl.spiders"]
NEWSPIDER_MODULE = "docs_crawl.spiders"
REQUEST_FINGERPRINTER_IMPLEMENTATION = "2.7"
ROBOTSTXT_OBEY = True

# --- crawlrank: the three settings that put the project on it.
SCHEDULER = "crawlrank.scrapy.Scheduler"
SPIDER_MIDDLEWARES = {"crawlrank.scrapy.LinkGraphMiddleware": 1000}  # closest to the spider
DOWNLOADER_MIDDLEWARES = {"crawlrank.scrapy.ErrorMiddleware": 100}  # below RetryMiddleware

# --- crawlrank's own settings (every one optional; docs/python.md lists them all).
CRAWLRANK_PAGE_DB = "site.crawlrank"  # the crawl's state; default <spider name>.crawlrank
CRAWLRANK_SCORE = "pagerank"  # the order: partial PageRank of the crawled graph
# Politeness comes from Scrapy's own settings: the delay between two requests to a host
# and the requests in flight per host.
DOWNLOAD_DELAY = 0.25
CONCURRENT_REQUESTS_PER_DOMAIN = 4
CONCURRENT_REQUESTS = 16
# CRAWLRANK_MAX_PAGES = 1000  # stop after handing out this many pages
# CRAWLRANK_CONTENT_SCORER = "docs_crawl.scoring.content_score"  # response -> float
