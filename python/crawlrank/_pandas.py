"""PageDb.to_pandas(): a PageDB's pages or links as a pandas DataFrame (python3-pandas).

One snapshot is read, so the frame is consistent even beside a crawl that writes. It is
built in memory: about 200 bytes a page plus the URLs, 8 bytes a link.
"""

from __future__ import annotations

from typing import Any

# The pages frame's columns, from PageRecord's fields of the same names.
PAGE_COLUMNS = ("url", "depth", "discovered_from", "first_crawl_ms", "last_crawl_ms",
                "n_crawls", "n_changes", "content_score", "link_score", "content_hash",
                "http_status", "n_errors", "fingerprint")


def to_pandas(db: Any, table: str = "pages") -> Any:
    """The pages (``table="pages"``: one row per page, indexed by page id, the columns of
    PAGE_COLUMNS and ``state``, where the page stands as the crawl's stored configuration
    judges it: crawled, pending, failed:KIND, removed, out_of_scope or filtered; times in
    Unix ms, 0 for never) or the links (``table="links"``: columns ``source`` and
    ``target``, page ids) of `db`, from one snapshot."""
    try:
        import pandas
    except ImportError as error:
        raise ImportError("PageDb.to_pandas needs pandas (apt-get install python3-pandas)") \
            from error
    if table not in ("pages", "links"):
        raise ValueError(f"to_pandas: table {table!r}: expected 'pages' or 'links'")
    with db.snapshot() as snapshot:
        if table == "links":
            sources, targets = snapshot.edges()
            return pandas.DataFrame({"source": sources, "target": targets})
        records = snapshot.records()
        columns = {name: [getattr(r, name) for r in records] for name in PAGE_COLUMNS}
        states = snapshot.states()
        columns["state"] = [states[r.id] for r in records]
        index = pandas.Index([r.id for r in records], name="id", dtype="uint32")
    frame = pandas.DataFrame(columns, index=index)
    for name in ("discovered_from", "content_hash", "fingerprint"):
        frame[name] = frame[name].astype("uint64")
    return frame
