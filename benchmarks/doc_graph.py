#!/usr/bin/python3
"""Writes the link graph of a tree of HTML files as `src_url dst_url` lines.

Each file DIR/<path> becomes the page http://docs.python.local/<path>. Every <a href> is
resolved against its file's URL; fragments and queries are dropped, and only links to .html
files that exist in the tree are kept (no links out of the tree, to images, sources or
downloads). A file's repeated links are written once, and its links to itself (in-page
anchors such as the permalink of every heading) are dropped. Files are read in
sorted order with DIR/index.html first, so crawlrank_simulate's default seed (the first
source) is the tree's front page when it has links. The default tree is Python's manual,
from Debian's python3.11-doc (`apt-get install -y python3.11-doc`).

    /usr/bin/python3 benchmarks/doc_graph.py [DIR] [-o FILE]
"""

from __future__ import annotations

import argparse
import html.parser
import os
import posixpath
import sys
import urllib.parse

BASE = "http://docs.python.local/"


class AnchorParser(html.parser.HTMLParser):
    """Collects the href of every <a> element, in document order."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.hrefs: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag == "a":
            for name, value in attrs:
                if name == "href" and value:
                    self.hrefs.append(value)


def html_files(root: str) -> list[str]:
    """Paths of the .html files under root, relative, '/'-separated; index.html first."""
    found = []
    for directory, subdirs, files in os.walk(root):
        subdirs.sort()
        for name in files:
            if name.endswith(".html"):
                path = os.path.relpath(os.path.join(directory, name), root)
                found.append(path.replace(os.sep, "/"))
    return sorted(found, key=lambda path: (path != "index.html", path))


def links_of(root: str, path: str, pages: set[str], base: str = BASE) -> list[str]:
    """The distinct targets (relative paths in `pages`) that file `path` links to, the tree
    being served at `base` (its links to other hosts leave it)."""
    parser = AnchorParser()
    with open(os.path.join(root, path), encoding="utf-8", errors="replace") as f:
        parser.feed(f.read())
    parser.close()
    root_parts = urllib.parse.urlsplit(base)
    targets: dict[str, None] = {}
    for href in parser.hrefs:
        url = urllib.parse.urljoin(base + path, href.strip())
        parts = urllib.parse.urlsplit(url)
        if parts.scheme != root_parts.scheme or parts.netloc != root_parts.netloc:
            continue
        # Dot segments are gone after urljoin; a path ending in '/' names the folder's
        # index.html, as a web server would serve it.
        target = urllib.parse.unquote(parts.path.lstrip("/"))
        target = posixpath.normpath(target) if target else ""
        if target in ("", ".") or parts.path.endswith("/"):
            target = posixpath.join("" if target in ("", ".") else target, "index.html")
        if target in pages and target != path:
            targets[target] = None
    return list(targets)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("dir", nargs="?", default="/usr/share/doc/python3.11/html")
    parser.add_argument("-o", "--output", help="write here instead of standard output")
    args = parser.parse_args()
    if not os.path.isdir(args.dir):
        print(f"doc_graph.py: {args.dir!r} is not a directory"
              " (for the default: apt-get install -y python3.11-doc)", file=sys.stderr)
        return 2
    files = html_files(args.dir)
    pages = set(files)
    out = open(args.output, "w", encoding="utf-8") if args.output else sys.stdout
    links = 0
    linked: set[str] = set()
    with out:
        print(f"# doc_graph.py {args.dir}: {len(files)} HTML files", file=out)
        for path in files:
            for target in links_of(args.dir, path, pages):
                # URLs are written quoted, so that a name with a space stays one field.
                print(f"{BASE}{urllib.parse.quote(path)} {BASE}{urllib.parse.quote(target)}",
                      file=out)
                links += 1
                linked.add(path)
                linked.add(target)
    print(f"doc_graph.py: {len(files)} HTML files, {len(linked)} of them in {links} links",
          file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
