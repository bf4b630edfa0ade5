"""What both front ends (crawlrank.scrapy, crawlrank.frontera) read from HTTP answers."""

from __future__ import annotations

from typing import Any, Optional


def redirect_status(reason: Any) -> int:
    """The status recorded for a redirecting page: Scrapy's ``redirect_reasons`` entry (an
    HTTP status, or 'meta refresh' for a page that answered 200)."""
    return reason if isinstance(reason, int) else 200


def retry_after_ms(headers: Any) -> Optional[int]:
    """A Retry-After header in seconds, as milliseconds; None when absent or an HTTP date
    (crawlrank's own hold then applies). `headers`: Scrapy's Headers or Frontera's dict."""
    value = None
    if headers:
        value = headers.get(b"Retry-After") or headers.get("Retry-After")
    if isinstance(value, list):
        value = value[0] if value else None
    if isinstance(value, bytes):
        value = value.decode("ascii", "replace")
    try:
        return max(0, int(float(value) * 1000)) if value else None
    except ValueError:
        return None
