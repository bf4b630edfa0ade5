"""Keyword scores for a topical crawl, as Aduana's keyword example computed them.

    CRAWLRANK_SCORER = "crawlrank.scrapy.scoring.KeywordScorer"
    CRAWLRANK_KEYWORDS = ["asyncio", "coroutine", "event loop"]  # or a file, one a line
    CRAWLRANK_SCORE = "ppr"  # a mode that uses the scores: "ppr", "topic-hits", "link-score"

A page's content score is the share of the keywords its text contains; a link's score is
the share its anchor text and URL contain. The anchor text is the request's
``meta["link_text"]`` (CrawlSpider's rules and ``LinkExtractor`` set it; a spider can set
it itself), and it stays in the request's meta through the queue.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import FrozenSet, Iterable, Union

from scrapy import Request
from scrapy.crawler import Crawler
from scrapy.exceptions import NotConfigured
from scrapy.http import Response, TextResponse
from scrapy.settings import BaseSettings

_WORD = re.compile(r"\w+")


def words(text: str) -> FrozenSet[str]:
    """The lower-cased words of `text`."""
    return frozenset(w.lower() for w in _WORD.findall(text))


class KeywordScorer:
    """Scores pages and links by the share of the keywords they contain (0 to 1)."""

    def __init__(self, keywords: Iterable[str]) -> None:
        self.keywords = frozenset(w for k in keywords for w in words(k))
        if not self.keywords:
            raise NotConfigured("CRAWLRANK_KEYWORDS: no keywords")

    @classmethod
    def from_crawler(cls, crawler: Crawler) -> "KeywordScorer":
        return cls.from_settings(crawler.settings)

    @classmethod
    def from_settings(cls, settings: BaseSettings) -> "KeywordScorer":
        value: Union[str, list, None] = settings.get("CRAWLRANK_KEYWORDS")
        if value is None:
            raise NotConfigured("crawlrank.scrapy.scoring.KeywordScorer needs CRAWLRANK_KEYWORDS "
                                "(a list of keywords, or a file of them, one a line)")
        if isinstance(value, str):
            path = Path(value)
            value = path.read_text().splitlines() if path.is_file() else value.split(",")
        return cls(value)

    def share(self, text: str) -> float:
        return len(self.keywords & words(text)) / len(self.keywords)

    def content_score(self, response: Response) -> float:
        if not isinstance(response, TextResponse):
            return 0.0
        return self.share(" ".join(response.xpath("//body//text()").getall()))

    def link_score(self, response: Response, request: Request) -> float:
        return self.share(f"{request.meta.get('link_text', '')} {request.url}")
