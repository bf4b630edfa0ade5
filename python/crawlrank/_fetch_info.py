"""What the Python front ends tell the PageDB about a fetch (crawlrank.CrawledPage's
content_type, wire_bytes, decoded_bytes, fetch_ms and title; format version 7).

Scrapy hands over a decoded body: the bytes on the wire are estimated as the response's
header lines plus its Content-Length (the encoded size) when it has one, else the body.
"""
import html
import re
from typing import Any, Dict, Iterable, Optional, Tuple

_TITLE = re.compile(rb"<title[^>]*>(.*?)</title\s*>", re.IGNORECASE | re.DOTALL)
_CHARSET = re.compile(r"charset=[\"']?([A-Za-z0-9._:-]+)", re.IGNORECASE)
_TITLE_WINDOW = 65536  # a title is looked for in the first 64 KiB only
_STATUS_LINE = 17      # "HTTP/1.1 200 OK\r\n"


def _header_items(headers: Any) -> Iterable[Tuple[bytes, bytes]]:
    """(name, value) pairs of a Scrapy Headers or a Frontera dict, values repeated."""
    if headers is None:
        return
    for name, values in headers.items():
        if not isinstance(values, (list, tuple)):
            values = [values]
        for value in values:
            yield (name if isinstance(name, bytes) else str(name).encode("latin-1", "replace"),
                   value if isinstance(value, bytes) else str(value).encode("latin-1", "replace"))


def _text(value: bytes) -> str:
    return value.decode("latin-1")


def fetch_kwargs(headers: Any, body: Optional[bytes], latency_s: Any) -> Dict[str, Any]:
    """Keyword arguments of crawlrank.CrawledPage for a response."""
    body = body or b""
    content_type, content_length, header_bytes = "", None, _STATUS_LINE + 2
    for name, value in _header_items(headers):
        header_bytes += len(name) + 2 + len(value) + 2
        lower = name.lower()
        if lower == b"content-type" and not content_type:
            content_type = _text(value)
        elif lower == b"content-length" and content_length is None:
            try:
                content_length = max(0, int(value))
            except ValueError:
                pass
    try:
        fetch_ms = max(0, min(int(float(latency_s) * 1000), 2**32 - 1))
    except (TypeError, ValueError):
        fetch_ms = 0
    title = ""
    if "html" in content_type.lower() or (not content_type and body.lstrip()[:1] == b"<"):
        found = _TITLE.search(body[:_TITLE_WINDOW])
        if found:
            charset = _CHARSET.search(content_type)
            try:
                raw = found.group(1).decode(charset.group(1) if charset else "utf-8", "replace")
            except LookupError:
                raw = found.group(1).decode("utf-8", "replace")
            title = " ".join(html.unescape(raw).split())
    return {"content_type": content_type,
            "wire_bytes": header_bytes + (content_length if content_length is not None
                                          else len(body)),
            "decoded_bytes": len(body),
            "fetch_ms": fetch_ms,
            "title": title}
