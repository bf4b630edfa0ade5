"""Waking Scrapy's engine when crawlrank will have work, for both front ends."""

from __future__ import annotations

from typing import Any


class EngineWakeup:
    """Asks Scrapy's engine to call its scheduler again at a given time. Without it, a
    crawl whose hosts are all waiting for their delay would wait for the engine's 5-second
    heartbeat (or, through Frontera, for DELAY_ON_EMPTY). One call is pending at a time; an
    earlier time replaces a later one."""

    MIN_DELAY_S = 0.01  # never a tight loop, even for a time already past

    def __init__(self, crawler: Any) -> None:
        self.crawler = crawler
        self._call: Any = None

    def at(self, unix_s: float) -> None:
        from twisted.internet import reactor

        delay = max(self.MIN_DELAY_S, unix_s - reactor.seconds())
        if self._call is not None and self._call.active():
            if self._call.getTime() - reactor.seconds() <= delay:
                return
            self._call.cancel()
        self._call = reactor.callLater(delay, self._wake)

    def cancel(self) -> None:
        if self._call is not None and self._call.active():
            self._call.cancel()

    def _wake(self) -> None:
        slot = getattr(self.crawler.engine, "slot", None)
        if slot is not None:
            slot.nextcall.schedule()
