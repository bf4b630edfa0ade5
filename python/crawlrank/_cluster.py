"""A Client over every node of a cluster of ``crawlrank serve`` nodes (docs/cluster.md, "One
crawler over every node"): what ``Client("h1:p1,h2:p2,...")`` (or one node's address and
``discover_nodes=True``) uses for the crawl's own calls.

- get_urls asks the nodes in turn, round robin: each call starts at the node after the one
  that last handed out URLs, and returns the first hand-out that is not empty (a node hands
  out only the queues it owns).
- A report (crawled, failed) goes to the node that handed the URL out, which owns it; a URL
  this client was not handed, and discovered URLs, go to their owner by URLFrontier's
  formula over the URL's host; discovered URLs naming a source go with the source.
- A node that does not answer (nothing listens, a call past `timeout`) is down: skipped by
  get_urls and stats until its back-off ends (0.05 s doubling to 5 s). That call, and what
  is bound for the node while its outbox holds anything, waits in its outbox; so does a
  call the node answered but could not write in full (items acked FAIL: a link it could
  not send on to a node down), without marking it down. The outbox is sent again in order
  at the next calls, with the same back-off, to the node first, then through another node
  that is up. discover() answers ``"pending"`` for URLs kept so. Nothing in an outbox was acknowledged: a process that dies loses it, and the
  node hands those URLs out again when their leases end.
- stats() sums each node's own counts; a node down adds its last size (at least 1) and an
  outbox its items, so ``size == 0`` still means finished; so does ``finished == nodes``
  (every node done, its max_pages reached with pages queued; a node down or owed items
  does not count as done). get_urls and stats raise
  RuntimeError, naming each node, once every node is down or finished and some node has
  been down for `retry_for` seconds.
"""

from __future__ import annotations

import threading
import time
import urllib.parse
from typing import Callable, Sequence

import grpc

_PAUSE_FIRST_S, _PAUSE_MAX_S = 0.05, 5.0
_RETRYABLE = (grpc.StatusCode.UNAVAILABLE, grpc.StatusCode.DEADLINE_EXCEEDED)


def java_string_hash(text: str) -> int:
    """Java's String.hashCode: h = 31 * h + c over the UTF-16 code units, 32-bit."""
    units = text.encode("utf-16-be")
    h = 0
    for i in range(0, len(units), 2):
        h = (31 * h + int.from_bytes(units[i:i + 2], "big")) & 0xFFFFFFFF
    return h - (1 << 32) if h & 0x80000000 else h


def java_order(nodes: Sequence[str]) -> list[str]:
    """`nodes` in Java String order (UTF-16 code units), as every node numbers them."""
    return sorted(nodes, key=lambda n: n.encode("utf-16-be"))


def owner_index(host: str, count: int) -> int:
    """URLFrontier's owner of queue `host` of the crawl: abs(hash("DEFAULT_" + key) % N)."""
    return abs(java_string_hash("DEFAULT_" + host.replace("_", "%5F"))) % count


def split_nodes(address: str | Sequence[str]) -> list[str]:
    nodes = [n.strip() for n in (address.split(",") if isinstance(address, str) else address)]
    if not nodes or not all(nodes) or len(set(nodes)) != len(nodes):
        raise ValueError(f"Client: {address!r} is not host:port, or a list of distinct ones")
    return nodes


class NodeDown(Exception):
    """A call a node did not take; the caller keeps it for later. `down`: the node did not
    answer (not: it answered, but acked some items FAIL)."""

    def __init__(self, message: str, down: bool) -> None:
        super().__init__(message)
        self.down = down


def _pause(pause: float) -> float:
    return _PAUSE_FIRST_S if pause == 0 else min(pause * 2, _PAUSE_MAX_S)


class _Node:
    def __init__(self, address: str, client) -> None:
        self.address, self.client = address, client
        self.down_since: float | None = None  # it did not answer: skipped until retry_at
        self.retry_at = 0.0
        self.pause = 0.0
        self.error = ""
        self.stats: dict[str, int] | None = None
        self.outbox: list[tuple[Callable[[object], object], int]] = []  # (call, items)
        self.resend_at = 0.0  # the outbox's next try
        self.resend_pause = 0.0

    def resting(self, now: float) -> bool:
        return self.down_since is not None and now < self.retry_at

    def mark_down(self, error: object) -> None:
        now = time.monotonic()
        if self.down_since is None:
            self.down_since, self.pause = now, 0.0
        self.pause = _pause(self.pause)
        self.retry_at, self.error = now + self.pause, str(error).splitlines()[0][:300]

    def mark_up(self) -> None:
        self.down_since = None

    def keep(self, call: Callable[[object], object], items: int,
             failure: NodeDown | None) -> None:
        """A call the node did not take (or that waits behind others) into its outbox."""
        if failure is not None:
            if failure.down:
                self.mark_down(failure)
            self.error = str(failure).splitlines()[0][:300]
        if not self.outbox:
            self.resend_pause = _pause(self.resend_pause)
            self.resend_at = time.monotonic() + self.resend_pause
        self.outbox.append((call, items))


class Cluster:
    """The crawl's calls of a Client over several nodes; `make(address)` opens a one-node
    Client that fails at once (retry_for 0)."""

    def __init__(self, nodes: Sequence[str], make: Callable[[str], object],
                 retry_for: float) -> None:
        self.nodes = [_Node(a, make(a)) for a in java_order(nodes)]
        self.retry_for = retry_for
        self.lock = threading.RLock()
        self.cursor = 0
        self.handed: dict[str, int] = {}  # URL -> the node that handed it out, until reported

    def close(self) -> None:
        for node in self.nodes:
            node.client.close()

    def owner(self, url: str) -> int:
        try:
            host = (urllib.parse.urlsplit(url).hostname or "").rstrip(".")
        except ValueError:
            host = ""
        return owner_index(host, len(self.nodes)) if host else 0

    def node_of(self, url: str) -> int:
        with self.lock:
            at = self.handed.pop(url, None)
        return self.owner(url) if at is None else at

    # ---- calls and outboxes

    def _try(self, node: _Node, call: Callable[[object], object]):
        """call(node.client); NodeDown when the node did not take it."""
        try:
            return call(node.client)
        except grpc.RpcError as e:
            if e.code() in _RETRYABLE:
                raise NodeDown(e.details() or e.code().name, down=True) from None
            raise
        except RuntimeError as e:  # items acked FAIL, past retry_for 0
            raise NodeDown(str(e), down=False) from None

    def send(self, i: int, call: Callable[[object], object], items: int):
        """call on node i now; into its outbox (None) when it is down, when its outbox holds
        anything, or when the call fails in a way another try may change."""
        self.flush()
        node = self.nodes[i]
        with self.lock:
            if node.down_since is not None or node.outbox:
                node.keep(call, items, None)
                return None
        try:
            return self._try(node, call)
        except NodeDown as failure:
            with self.lock:
                node.keep(call, items, failure)
            return None

    def flush(self) -> None:
        """Sends what the outboxes whose back-off is over hold, oldest first: to the node,
        or through another node that is up when the node does not answer."""
        for i, node in enumerate(self.nodes):
            while True:
                with self.lock:
                    if not node.outbox or time.monotonic() < node.resend_at:
                        break
                    call, _ = node.outbox[0]
                    relay = next((n for n in self.nodes[i + 1:] + self.nodes[:i]
                                  if n.down_since is None), None)
                try:
                    self._try(node, call)
                    own = True
                except NodeDown as failure:
                    own = False
                    try:
                        if not failure.down or relay is None:
                            raise
                        self._try(relay, call)
                    except NodeDown:
                        with self.lock:
                            if failure.down:
                                node.mark_down(failure)
                            node.error = str(failure).splitlines()[0][:300]
                            node.resend_pause = _pause(node.resend_pause)
                            node.resend_at = time.monotonic() + node.resend_pause
                        break
                with self.lock:
                    node.outbox.pop(0)
                    node.resend_pause = 0.0
                    if own:
                        node.mark_up()

    def unsent(self) -> int:
        with self.lock:
            return sum(items for node in self.nodes for _, items in node.outbox)

    # ---- the crawl's calls

    def discover(self, urls: list[str], source: str | None, columns: dict[str, list | None],
                 call_one: Callable) -> list[str]:
        """Each URL to its owner (or all with their source's node): call_one(client, urls,
        **columns) per node; "pending" for the URLs of a node that is down."""
        if source is not None:
            groups = {self.node_of_source(source): list(range(len(urls)))}
        else:
            groups = {}
            for j, url in enumerate(urls):
                groups.setdefault(self.owner(url), []).append(j)
        out = ["pending"] * len(urls)
        for i, picks in groups.items():
            part = [urls[j] for j in picks]
            cols = {k: (None if v is None else [v[j] for j in picks]) for k, v in columns.items()}
            got = self.send(i, lambda c, part=part, cols=cols: call_one(c, part, **cols),
                            len(part))
            if got is not None:
                for j, status in zip(picks, got):
                    out[j] = status
        return out

    def node_of_source(self, source: str) -> int:
        with self.lock:
            at = self.handed.get(source)
        return self.owner(source) if at is None else at

    def get_urls(self, max_urls: int, lease: int, key: str):
        self.flush()
        count = len(self.nodes)
        order = [owner_index(key, count)] if key else \
            [(self.cursor + k) % count for k in range(count)]
        for i in order:
            node = self.nodes[i]
            with self.lock:
                if node.resting(time.monotonic()):
                    continue
            try:
                got = self._try(node, lambda c: c.get_urls(max_urls, lease=lease, key=key))
            except NodeDown as down:
                with self.lock:
                    node.mark_down(down)
                continue
            with self.lock:
                node.mark_up()  # its outbox keeps its own back-off
                if got:
                    self.cursor = (i + 1) % count
                    for handed in got:
                        self.handed[handed.url] = i
                    return got
        self.stats()  # raises once the cluster can do no more
        return []

    def stats(self) -> dict[str, int]:
        self.flush()
        now = time.monotonic()
        for node in self.nodes:
            with self.lock:
                if node.resting(now):
                    continue
            try:
                node.stats = self._try(node, lambda c: c.stats(local=True))
                with self.lock:
                    node.mark_up()
            except NodeDown as down:
                with self.lock:
                    node.mark_down(down)
        total: dict[str, int] = {"size": 0}
        with self.lock:
            for node in self.nodes:
                last = node.stats or {}
                for name, value in last.items():
                    if name != "size":
                        total[name] = total.get(name, 0) + value
                if node.down_since is not None or node.outbox:
                    # Not done while down or owed items, whatever it said last.
                    total["finished"] = total.get("finished", 0) - last.get("finished", 0)
                total["nodes"] = total.get("nodes", 0) + (0 if "nodes" in last else 1)
                size = last.get("size", 0 if node.stats is not None else 1)
                if node.down_since is not None:
                    size = max(1, size)
                total["size"] += size + sum(items for _, items in node.outbox)
            self._give_up(now)
        return total

    def _give_up(self, now: float) -> None:  # lock held
        down = [n for n in self.nodes if n.down_since is not None]
        if any(n.down_since is None and (n.stats is None or n.stats.get("size", 1) > 0)
               for n in self.nodes):
            return
        if not down or max(now - n.down_since for n in down) < self.retry_for:
            return
        raise RuntimeError("every node of the cluster is finished or down; gave up on " + "; ".join(
            f"{n.address} down for {now - n.down_since:.0f} s ({n.error}, "
            f"{sum(k for _, k in n.outbox)} unsent)" for n in down))
