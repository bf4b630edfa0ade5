"""A threaded HTTP server on 127.0.0.1 for a test site, as a context manager."""

from __future__ import annotations

import http.server
import threading


def reply(handler: http.server.BaseHTTPRequestHandler, status: int, body: bytes,
          headers: dict[str, str] | None = None) -> None:
    """Answers a request with `body` (Content-Length set) and `headers` (Content-Type
    text/html unless they name one)."""
    handler.send_response(status)
    headers = {"Content-Type": "text/html", **(headers or {})}
    for name, value in headers.items():
        handler.send_header(name, value)
    handler.send_header("Content-Length", str(len(body)))
    handler.end_headers()
    handler.wfile.write(body)


class LocalServer:
    """Serves `handler` on 127.0.0.1:<free port> in a daemon thread while in a `with`."""

    def __init__(self, handler: type[http.server.BaseHTTPRequestHandler]) -> None:
        self.server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
        self.server.daemon_threads = True
        # A crawl killed by a test leaves connections reset: nothing to report.
        self.server.handle_error = lambda request, address: None
        self.port = self.server.server_address[1]
        self.host = f"127.0.0.1:{self.port}"
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)

    def __enter__(self):
        self.thread.start()
        return self

    def __exit__(self, *exc) -> None:
        self.server.shutdown()
        self.server.server_close()
