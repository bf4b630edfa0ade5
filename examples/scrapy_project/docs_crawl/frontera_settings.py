"""The same project through Frontera 0.8 with crawlrank's backend (spider mode), instead of
crawlrank's native scheduler (settings.py): `SCRAPY_PROJECT=frontera scrapy crawl site ...`
picks it (scrapy.cfg). README.md beside scrapy.cfg has the commands; docs/python.md
("Frontera backend") lists every setting.
"""

import crawlrank.frontera  # noqa: F401  (the import shims Frontera 0.8 needs on Python 3.11)

from docs_crawl.settings import BOT_NAME, NEWSPIDER_MODULE, SPIDER_MODULES  # noqa: F401

REQUEST_FINGERPRINTER_IMPLEMENTATION = "2.7"
ROBOTSTXT_OBEY = False  # Frontera owns scheduling (frontera-interface: recommended set)
DOWNLOAD_DELAY = 0.25
CONCURRENT_REQUESTS_PER_DOMAIN = 4
CONCURRENT_REQUESTS = 16

# --- Scrapy through Frontera: crawlrank's subclass of FronteraScheduler ends the crawl by
# itself and routes redirects through the backend.
SCHEDULER = "crawlrank.frontera.FronteraScheduler"
SPIDER_MIDDLEWARES = {
    "frontera.contrib.scrapy.middlewares.schedulers.SchedulerSpiderMiddleware": 1000,
    "scrapy.spidermiddlewares.httperror.HttpErrorMiddleware": None,  # 404s reach the backend
    "scrapy.spidermiddlewares.offsite.OffsiteMiddleware": None,
    "scrapy.spidermiddlewares.referer.RefererMiddleware": None,
    "scrapy.spidermiddlewares.urllength.UrlLengthMiddleware": None,
    "scrapy.spidermiddlewares.depth.DepthMiddleware": None,
}
DOWNLOADER_MIDDLEWARES = {
    "frontera.contrib.scrapy.middlewares.schedulers.SchedulerDownloaderMiddleware": 1000,
}
RETRY_ENABLED = False  # the backend retries failures itself
REDIRECT_ENABLED = True
COOKIES_ENABLED = False

# --- Frontera's settings, read from Scrapy's (Aduana's names where Aduana had one).
BACKEND = "crawlrank.frontera.Backend"
LOCAL_MODE = False  # required: crawlrank's backend works in spider mode
PAGE_DB_PATH = "site-frontera.crawlrank"
SCORER = "PageRankScorer"
DELAY_ON_EMPTY = 0.5
MAX_NEXT_REQUESTS = 64
