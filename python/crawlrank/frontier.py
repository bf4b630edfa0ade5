"""A client of a shared frontier: ``crawlrank serve`` (or any URLFrontier 2.x server).

    from crawlrank.frontier import Client

    with Client("127.0.0.1:7071") as frontier:
        frontier.discover(["https://example.com/"])
        for url in frontier.get_urls(max_urls=10, lease=60):
            ...fetch url.url...
            frontier.crawled(url.url, status=200, links=["https://example.com/a"])

Every crawler process opens its own client; the server keeps each host polite across all
of them, hands out its best URLs first, and takes a URL back when its lease ends unreported.
What crosses the wire is URLFrontier's schema (``proto/urlfrontier.proto``) and
crawlrank's metadata convention (``docs/frontier.md``, "Metadata").

Needs python3-grpcio and the schema's message classes, which the build generates with
``protoc`` (``crawlrank._urlfrontier_pb2``). Errors are ``grpc.RpcError``; a call that finds
the server gone or busy (``UNAVAILABLE``: a restart; ``DEADLINE_EXCEEDED``: a call that
outlived `timeout`) or whose items the server acked ``FAIL`` (it could not write them)
waits and sends the same batch again, with back-off (0.05 s doubling to 5 s), as long as
the next try would begin within ``retry_for`` seconds (default 600) of the first: every
call the
client makes is safe to repeat (a URL discovered twice is skipped; a report twice is the
same report). An address that answers but is not a gRPC server (a web server) raises
``NotAFrontierError`` at once.
"""

from __future__ import annotations

import base64
import datetime
import math
import os
import pathlib
import time
from dataclasses import dataclass, field
from typing import Iterable, Iterator, Sequence, TypeVar

try:
    import grpc
except ImportError as e:  # pragma: no cover: python3-grpcio is a dependency of this module
    raise ImportError("crawlrank.frontier needs grpcio (Debian: python3-grpcio)") from e
from crawlrank import _cluster

try:
    from crawlrank import _urlfrontier_pb2 as pb
except ImportError as e:  # pragma: no cover: a build without protoc
    raise ImportError("crawlrank.frontier needs the URLFrontier messages, which the build "
                      "generates with protoc (Debian: protobuf-compiler)") from e

__all__ = ["Client", "HandedOut", "NotAFrontierError", "DEFAULT_ADDRESS", "MAX_BATCH",
           "RETRY_FOR"]

DEFAULT_ADDRESS = "127.0.0.1:7071"
# URLs in one PutDiscovered batch at most (the server refuses more: docs/frontier.md).
MAX_BATCH = 1000
_SERVICE = "/urlfrontier.URLFrontier/"
_ACK = {pb.AckMessage.OK: "ok", pb.AckMessage.SKIPPED: "skipped", pb.AckMessage.FAIL: "fail"}
# How long a call keeps trying, by default: a server restart, a busy server, a write the
# server could not make (seconds).
RETRY_FOR = 600.0
_RETRYABLE = (grpc.StatusCode.UNAVAILABLE, grpc.StatusCode.DEADLINE_EXCEEDED)
# A server back after a long absence is reconnected to within seconds (gRPC's own back-off
# grows to two minutes, and a call that fails fast never starts a connection itself).
_CHANNEL_OPTIONS = [("grpc.max_reconnect_backoff_ms", 5000)]


class NotAFrontierError(ConnectionError):
    """The address answers, but not as a URLFrontier server (an HTTP/1 web server, or a gRPC
    server without the URLFrontier API)."""


class _Again(Exception):
    """A call's answer says to send the same batch again (an item acked FAIL)."""


@dataclass
class HandedOut:
    """A URL the frontier handed out: fetch it, then report it (crawled or failed) before
    its lease ends, or it is handed out again."""
    url: str
    key: str  # its queue: the host key
    depth: int
    payload: bytes = b""  # what discover() gave it, if anything
    priority: int = 0     # the same
    metadata: dict[str, list[str]] = field(default_factory=dict)
    referrer: str = ""    # the page whose link found it first ("" for a seed)


def _seconds(when: float | datetime.datetime | None) -> int:
    """A refetch date as URLFrontier sends it: whole seconds since 1970, rounded up (never
    earlier than asked); 0 for none."""
    if when is None:
        return 0
    if isinstance(when, datetime.datetime):
        if when.tzinfo is None:
            raise ValueError(f"refetchable_from {when!r} has no time zone: give an aware "
                             "datetime (e.g. with tzinfo=datetime.timezone.utc)")
        when = when.timestamp()
    if when < 0:
        raise ValueError(f"refetchable_from {when!r} is before 1970")
    return math.ceil(when)


def _info(url: str, key: str, crawl_id: str, metadata: dict[str, Sequence[str]]) -> pb.URLInfo:
    info = pb.URLInfo(url=url, key=key, crawlID=crawl_id)
    for name, values in metadata.items():
        info.metadata[name].values.extend([values] if isinstance(values, str) else values)
    return info


_Self = TypeVar("_Self", bound="_Connection")  # what a `with` gives: the client itself


class _Connection:
    """One channel to a frontier, and the plumbing every call goes through: its token, its
    crawl, and :meth:`_call`, which tries a call again while the server is away or busy.
    The parameters are Client's."""

    def __init__(self, address: str = DEFAULT_ADDRESS, *, token: str | None = None,
                 crawl_id: str = "", timeout: float = 30.0, retry_for: float = RETRY_FOR,
                 tls: bool = False, tls_ca: str | os.PathLike | None = None,
                 tls_cert: str | os.PathLike | None = None,
                 tls_key: str | os.PathLike | None = None) -> None:
        self.address = address
        self.crawl_id = crawl_id
        self.timeout = timeout
        self.retry_for = retry_for
        self._metadata = (("authorization", f"Bearer {token}"),) if token else ()
        if (tls_cert is None) != (tls_key is None):
            raise ValueError("Client: tls_cert and tls_key go together")
        if tls or tls_ca is not None or tls_cert is not None:
            def read(path: str | os.PathLike | None) -> bytes | None:
                return None if path is None else pathlib.Path(path).read_bytes()

            credentials = grpc.ssl_channel_credentials(
                root_certificates=read(tls_ca), private_key=read(tls_key),
                certificate_chain=read(tls_cert))
            self._channel = grpc.secure_channel(address, credentials, options=_CHANNEL_OPTIONS)
        else:
            self._channel = grpc.insecure_channel(address, options=_CHANNEL_OPTIONS)
        self._calls: dict[str, object] = {}

    def close(self) -> None:
        self._channel.close()

    def __enter__(self: _Self) -> _Self:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # ---- plumbing: every call goes through _call

    def _method(self, kind: str, name: str, response: type) -> object:
        method = self._calls.get(name)
        if method is None:
            factory = getattr(self._channel, kind)
            method = factory(_SERVICE + name, request_serializer=lambda m: m.SerializeToString(),
                             response_deserializer=response.FromString)
            self._calls[name] = method
        return method

    def _call(self, kind: str, name: str, response: type, request: object,
              collect=lambda r: r) -> object:
        """Calls `name`, trying again while the server is away or busy, or while `collect`
        (which turns the response, a stream's iterator, into the result inside the retried
        part) raises _Again, until retry_for s have passed since the first try."""
        method = self._method(kind, name, response)
        deadline = time.monotonic() + self.retry_for
        pause = 0.05
        while True:
            try:
                req = request() if callable(request) else request
                return collect(method(req, timeout=self.timeout, metadata=self._metadata))
            except grpc.RpcError as e:
                self._check_is_frontier(e)
                if e.code() not in _RETRYABLE or time.monotonic() + pause > deadline:
                    raise
            except _Again as again:
                if time.monotonic() + pause > deadline:
                    raise RuntimeError(f"{name} to the frontier at {self.address}: {again}; "
                                       f"gave up after {self.retry_for:g} s") from None
            time.sleep(pause)
            pause = min(pause * 2, 5.0)

    def _check_is_frontier(self, error: grpc.RpcError) -> None:
        details = error.details() or ""
        if error.code() == grpc.StatusCode.UNIMPLEMENTED:
            raise NotAFrontierError(f"{self.address} answers gRPC, but not the URLFrontier API "
                                    f"({details}): is it a crawlrank serve?") from error
        if error.code() == grpc.StatusCode.UNAVAILABLE and (
                "Failed parsing HTTP/2" in details or "http1" in details):
            raise NotAFrontierError(f"{self.address} answers, but not as a gRPC server (an "
                                    "HTTP/1 web server?): give the address of a crawlrank "
                                    f"serve ({details})") from error

    def _unary(self, name: str, response: type, request: object) -> object:
        return self._call("unary_unary", name, response, request)


class _Steering(_Connection):
    """The calls that look at a crawl and steer it: its counts, a URL's state; a queue's
    delay, limit, block or removal, the server's log level, hand-outs off and on. Each is
    one unary call in the client's crawl. Client has them, besides the crawl's own calls
    (discovering, handing out, reporting)."""

    # ---- looking

    def stats(self, key: str = "", *, local: bool = False) -> dict[str, int]:
        """The crawl's counts (or one queue's): ``size`` (not done yet), ``in_process``
        (handed out), ``queues``, and every counter of the scheduler by its name. A node of
        a cluster answers for the whole cluster, or with `local` for itself alone."""
        s = self._unary("GetStats", pb.Stats, pb.QueueWithinCrawlParams(
            key=key, crawlID=self.crawl_id, local=local))
        return {"size": s.size, "in_process": s.inProcess, "queues": s.numberOfQueues,
                **dict(s.counts)}

    def status(self, url: str) -> dict[str, object] | None:
        """Where `url` stands (``state``: queued, leased, retrying, failed, crawled; ``key``,
        ``refetchable_from``, ``created``), or None when the crawl does not hold it."""
        try:
            item = self._unary("GetURLStatus", pb.URLItem,
                               pb.URLStatusRequest(url=url, crawlID=self.crawl_id))
        except grpc.RpcError as e:
            if e.code() == grpc.StatusCode.NOT_FOUND:
                return None
            raise
        info = item.known.info
        return {"url": info.url, "key": info.key,
                "state": list(info.metadata["crawlrank.state"].values)[-1],
                "refetchable_from": item.known.refetchable_from_date,
                "created": item.creation_date}

    def count_urls(self, key: str = "", contains: str = "") -> int:
        return self._unary("CountURLs", pb.Long, pb.CountUrlParams(
            key=key, filter=contains, crawlID=self.crawl_id)).value

    # ---- steering

    def block(self, key: str, until: float) -> None:
        """Hands out nothing of queue `key` before `until` (Unix seconds; 0 lets it go)."""
        self._unary("BlockQueueUntil", pb.Empty,
                    pb.BlockQueueParams(key=key, time=int(until), crawlID=self.crawl_id))

    def set_delay(self, seconds: int, key: str = "") -> None:
        """The delay between two URLs of queue `key` (never below the default), or without a
        key the default delay, stored with the crawl."""
        self._unary("SetDelay", pb.Empty, pb.QueueDelayParams(
            key=key, delay_requestable=seconds, crawlID=self.crawl_id))

    def set_limit(self, key: str, pages: int) -> None:
        """Caps the pages of queue `key` to crawl (0: the server's default)."""
        self._unary("SetCrawlLimit", pb.Empty,
                    pb.CrawlLimitParams(key=key, limit=pages, crawlID=self.crawl_id))

    def delete_queue(self, key: str) -> int:
        """Removes every URL of queue `key` for good; returns how many were not done yet."""
        return self._unary("DeleteQueue", pb.Long, pb.QueueWithinCrawlParams(
            key=key, crawlID=self.crawl_id)).value

    def purge(self, days: int, key: str = "") -> int:
        """Removes the URLs (of queue `key`, or all) created more than `days` days ago;
        returns how many."""
        return self._unary("PurgeURLs", pb.Long, pb.PurgeUrlParams(
            key=key, days=days, crawlID=self.crawl_id)).value

    def list_nodes(self) -> list[str]:
        """The nodes of the server's cluster in the cluster's order (a server alone: its own
        address)."""
        return list(self._unary("ListNodes", pb.StringList, pb.Empty()).values)

    def set_log_level(self, level: str) -> None:
        """The server's log level: "TRACE", "DEBUG", "INFO", "WARN" or "ERROR"."""
        self._unary("SetLogLevel", pb.Empty,
                    pb.LogLevelParams(level=pb.LogLevelParams.Level.Value(level)))

    def set_active(self, active: bool) -> None:
        """Off: the frontier hands out nothing (reports are still taken)."""
        self._unary("SetActive", pb.Empty, pb.Active(state=active))


class Client(_Steering):
    """One connection to a frontier. Thread-safe (gRPC channels are); close it when done,
    or use it as a context manager.

    `address` is ``host:port``; `token` the server's ``--token`` (sent as ``authorization:
    Bearer TOKEN`` on every call); `crawl_id` the crawl (crawlrank serves one, ``DEFAULT``);
    `timeout` the seconds one try of a call may take; `retry_for` how long a call keeps
    trying a server that is away or busy, or that could not write its items (0: fail at
    once; see the module's text).

    TLS (a server started with ``--tls-cert``): `tls_ca` is the PEM file of the CA that
    signed the server's certificate (None with ``tls=True``: the system's CAs), and for a
    server that asks for client certificates (``--tls-client-ca``), `tls_cert` and
    `tls_key` are this client's.

    A cluster of nodes (docs/cluster.md): `address` lists every node, ``"h1:p1,h2:p2,..."``
    (or a sequence), or names one and `discover_nodes` asks it for the rest (ListNodes).
    get_urls then reads every node, round robin; reports and discovered URLs go to their
    owners; a node that is down is skipped and what was bound for it is sent again later,
    while the others go on (crawlrank._cluster says how). The other calls go to the first
    node of the list, which answers for the cluster. `nodes` is the list in the cluster's
    order."""

    def __init__(self, address: str | Sequence[str] = DEFAULT_ADDRESS, *,
                 discover_nodes: bool = False, token: str | None = None, crawl_id: str = "",
                 timeout: float = 30.0, retry_for: float = RETRY_FOR, tls: bool = False,
                 tls_ca: str | os.PathLike | None = None,
                 tls_cert: str | os.PathLike | None = None,
                 tls_key: str | os.PathLike | None = None) -> None:
        nodes = _cluster.split_nodes(address)
        if discover_nodes and len(nodes) > 1:
            raise ValueError("Client: discover_nodes takes one node's address, not a list")
        connection = dict(token=token, crawl_id=crawl_id, tls=tls, tls_ca=tls_ca,
                          tls_cert=tls_cert, tls_key=tls_key)
        super().__init__(nodes[0], timeout=timeout, retry_for=retry_for, **connection)
        self._cluster: _cluster.Cluster | None = None
        if discover_nodes:
            nodes = self.list_nodes()
        self.nodes = _cluster.java_order(nodes)
        if len(self.nodes) > 1:
            def one(node: str) -> Client:  # fails at once: the cluster goes on without it
                return Client(node, timeout=min(timeout, 10.0), retry_for=0.0, **connection)
            self._cluster = _cluster.Cluster(self.nodes, one, retry_for)

    def close(self) -> None:
        if self._cluster is not None:
            self._cluster.close()
        super().close()

    def unsent(self) -> int:
        """Reports and URLs waiting for a node that is down (0 for a server alone)."""
        return 0 if self._cluster is None else self._cluster.unsent()

    def stats(self, key: str = "", *, local: bool = False) -> dict[str, int]:
        if self._cluster is not None and not key and not local:
            return self._cluster.stats()
        return super().stats(key, local=local)

    stats.__doc__ = _Steering.stats.__doc__ + """ Over a cluster's nodes without `key`: each
        node's own counts summed; a node down counts at least 1 in ``size``, and so does
        each item waiting for it."""

    # ---- discovering and handing out

    def discover(self, urls: Iterable[str], *, source: str | None = None,
                 payloads: Sequence[bytes] | None = None,
                 priorities: Sequence[int] | None = None,
                 scores: Sequence[float] | None = None,
                 metadata: dict[str, Sequence[str]] | None = None) -> list[str]:
        """Adds URLs to the frontier (PutDiscovered, batches of MAX_BATCH). `source` is the
        page that links to them (its links join the graph the ranks are computed on).
        `payloads` and `priorities`, when given, hold each URL's (in the order of `urls`):
        bytes handed back with it (at most 1 MiB), and its tier (a higher one goes first,
        before any score); they are kept only by a URL that is new. `scores`, the link
        (anchor) score of each link from `source` (the link-score modes order by them).
        Returns each URL's status in order: ``"ok"`` (new) or ``"skipped"`` (known, or named
        twice); a batch with a URL the server could not write is sent again (RuntimeError
        once retry_for has passed)."""
        urls = list(urls)
        for name, values in (("payloads", payloads), ("priorities", priorities),
                             ("scores", scores)):
            if values is not None and len(values) != len(urls):
                raise ValueError(f"discover: {len(values)} {name} for {len(urls)} URLs")
        if self._cluster is not None:
            return self._cluster.discover(
                urls, source, {"payloads": payloads, "priorities": priorities, "scores": scores},
                lambda c, part, **columns: c.discover(part, source=source, metadata=metadata,
                                                      **columns))
        meta = dict(metadata or {})
        if source is not None:
            meta["crawlrank.source"] = [source]

        def info(i: int) -> pb.URLInfo:
            own = meta
            payload = payloads[i] if payloads is not None else b""
            priority = int(priorities[i]) if priorities is not None else 0
            score = float(scores[i]) if scores is not None else 0.0
            if payload or priority or score:
                own = dict(meta)
                if payload:
                    own["crawlrank.payload"] = [base64.b64encode(payload).decode("ascii")]
                if priority:
                    own["crawlrank.priority"] = [str(priority)]
                if score:
                    own["crawlrank.link_score"] = [repr(score)]
            return _info(urls[i], "", self.crawl_id, own)

        starts = range(0, len(urls), MAX_BATCH)
        if not urls:
            return []

        def stream() -> Iterator[pb.DiscoveredBatch]:
            for start in starts:
                yield pb.DiscoveredBatch(
                    items=[info(i) for i in range(start, min(start + MAX_BATCH, len(urls)))])

        def collect(acks: Iterable[pb.BatchAck]) -> list[str]:
            got = [_ACK[s] for ack in acks for s in ack.statuses]
            if "fail" in got:  # the server could not write some: the same batches again
                raise _Again(f"{got.count('fail')} of {len(got)} URLs acked FAIL")
            return got

        return self._call("stream_stream", "PutDiscovered", pb.BatchAck, stream, collect)

    def get_urls(self, max_urls: int = 100, *, lease: int = 30, key: str = "") -> list[HandedOut]:
        """Up to `max_urls` URLs, best first, each leased for `lease` seconds (URLFrontier's
        delay_requestable): one per queue, or with `key` that queue's only, as many as its
        politeness lets out at once. Empty when nothing is due now: poll again (stats()
        says whether anything is left)."""
        if max_urls < 1 or lease < 1:
            raise ValueError(f"get_urls: max_urls ({max_urls}) and lease ({lease}) must be "
                             "at least 1")
        if self._cluster is not None:
            return self._cluster.get_urls(max_urls, lease, key)
        # URLFrontier bounds a call by queues x URLs per queue: ask for exactly max_urls,
        # since what is handed out stays leased whether it is read or not.
        queues, per_queue = (1, max_urls) if key else (max_urls, 1)
        params = pb.GetParams(max_urls_per_queue=per_queue, max_queues=queues,
                              delay_requestable=lease, key=key, crawlID=self.crawl_id)

        def collect(infos: Iterable[pb.URLInfo]) -> list[HandedOut]:
            out = []
            for info in infos:
                meta = {k: list(v.values) for k, v in info.metadata.items()}
                depth = int(meta.get("depth", ["0"])[-1])
                payload = base64.b64decode(meta["crawlrank.payload"][-1]) \
                    if "crawlrank.payload" in meta else b""
                priority = int(meta.get("crawlrank.priority", ["0"])[-1])
                referrer = meta.get("crawlrank.referrer", [""])[-1]
                out.append(HandedOut(info.url, info.key, depth, payload, priority, meta,
                                     referrer))
            return out

        return self._call("unary_stream", "GetURLs", pb.URLInfo, params, collect)

    # ---- reports

    def _put(self, items: list[pb.URLItem]) -> list[str]:
        def collect(acks: Iterable[pb.AckMessage]) -> list[str]:
            got = [_ACK[a.status] for a in acks]
            if "fail" in got or len(got) != len(items):  # not written: the same items again
                raise _Again(f"{got.count('fail')} of {len(items)} items acked FAIL, "
                             f"{len(items) - len(got)} not acked")
            return got

        return self._call("stream_stream", "PutURLs", pb.AckMessage, lambda: iter(items), collect)

    def crawled(self, url: str, *, status: int = 200,
                links: Iterable[str | tuple[str, float]] = (),
                content_hash: int | None = None, content_score: float = 0.0,
                refetchable_from: float | datetime.datetime | None = None) -> None:
        """Reports a fetch of `url` (handed out by get_urls, or not): the page is crawled,
        its lease ends, and `links` (its out-links, absolute; each a URL or a pair of URL
        and link score) join the frontier and the graph, in one call. `content_score` is
        your relevance score of the content (the content-score modes use it).
        `refetchable_from` (Unix seconds, or an aware datetime) is when the page is to be
        fetched again: the server hands it out as a revisit from then on, whatever its
        revisit options; None (or 0): no date, the server's revisit options decide
        (docs/frontier.md, "Refetch dates")."""
        if self._cluster is not None:
            links = list(links)  # the call may be made again (a node down)
            self._cluster.send(self._cluster.node_of(url), lambda c: c.crawled(
                url, status=status, links=links, content_hash=content_hash,
                content_score=content_score, refetchable_from=refetchable_from), 1)
            return
        meta = {"crawlrank.status": [str(status)]}
        if content_hash is not None:
            meta["crawlrank.content_hash"] = [f"{content_hash & (2**64 - 1):016x}"]
        if content_score:
            meta["crawlrank.content_score"] = [repr(float(content_score))]
        # The links first, the page last: the server writes a stream's items as they come,
        # so a report cut short (this process killed while sending) must not have marked
        # the page crawled with only some of its links. Cut before the page, the lease
        # runs out, the page is fetched again, and its links come again (as in
        # crawlrank crawl --frontier).
        items = []
        for link in links:
            link_url, score = (link, 0.0) if isinstance(link, str) else link
            link_meta = {"crawlrank.source": [url]}
            if score:
                link_meta["crawlrank.link_score"] = [repr(float(score))]
            items.append(pb.URLItem(discovered=pb.DiscoveredURLItem(
                info=_info(link_url, "", self.crawl_id, link_meta))))
        items.append(pb.URLItem(known=pb.KnownURLItem(
            info=_info(url, "", self.crawl_id, meta),
            refetchable_from_date=_seconds(refetchable_from))))
        self._put(items)  # sent again while the server cannot write it (RuntimeError after)

    def failed(self, url: str, reason: str, *, status: int = 0, retryable: bool = True,
               kind: str | None = None) -> None:
        """Reports a fetch of `url` that failed (`reason`: e.g. "timed out"): retried later,
        up to the server's retries, or at once for good when not `retryable`. A 429 or 503
        `status` holds the host. `kind` files it (``"timeout"``, ``"dns"``, ...: the names
        of crawlrank.FAILURE_KINDS); the server infers it from `status` and `reason`
        without."""
        if self._cluster is not None:
            self._cluster.send(self._cluster.node_of(url), lambda c: c.failed(
                url, reason, status=status, retryable=retryable, kind=kind), 1)
            return
        meta = {"crawlrank.failure": [reason], "crawlrank.retryable": [str(retryable).lower()]}
        if status:
            meta["crawlrank.status"] = [str(status)]
        if kind:
            meta["crawlrank.failure_kind"] = [kind]
        item = pb.URLItem(known=pb.KnownURLItem(info=_info(url, "", self.crawl_id, meta)))
        self._put([item])  # sent again while the server cannot write it (RuntimeError after)
