"""Kept so that ``from crawlrank.scrapy.engine import EngineWakeup`` goes on working:
EngineWakeup, which both front ends use, lives in ``crawlrank._frontend``."""

from crawlrank._frontend import EngineWakeup

__all__ = ["EngineWakeup"]
