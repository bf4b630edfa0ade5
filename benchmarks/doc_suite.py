#!/usr/bin/python3
"""Builds the crawl-order graph suite (issue #28) from documentation Debian installs.

One graph per documentation generator, each the link graph of an installed package's HTML
tree, written as `src_url dst_url` lines for crawlrank_simulate (benchmarks/run_suite.sh):

    python      Sphinx     python3.11-doc      /usr/share/doc/python3.11/html
    django      Sphinx     python-django-doc   /usr/share/doc/python-django-doc/html
    postgresql  DocBook    postgresql-doc-15   /usr/share/doc/postgresql-doc-15/html
    rust        rustdoc    rust-doc            /usr/share/doc/rust-doc/html
    libstdcxx   Doxygen    libstdc++-12-doc    /usr/share/doc/libstdc++-12-doc/libstdc++
    erlang      erl_docgen erlang-doc          /usr/share/doc/erlang-doc
    multi       python, django, postgresql and erlang as four hosts

Each tree is served at its own host, http://NAME.docs.local/. Links are read as
benchmarks/doc_graph.py reads them (every <a href>, resolved against the file's URL,
fragment and query dropped, a folder naming its index.html, only links to the trees' .html
files, none to the page itself, each once). In the multi-host graph a link to the public
copy of another tree (django's to https://docs.python.org/3/... and to
https://www.postgresql.org/docs/...) goes to that tree's host, as a crawl of the live sites
would find it. The first lines are comments: what the graph is, and `# seeds: URL,...`, the
front page of each tree, which run_suite.sh crawls from.

    /usr/bin/python3 benchmarks/doc_suite.py GRAPH -o FILE      (GRAPH: a name above)
    /usr/bin/python3 benchmarks/doc_suite.py --list

Files are parsed in parallel (one process per core); rust-doc's 32,000 files take a few
minutes. Packages: `apt-get install -y python3.11-doc python-django-doc postgresql-doc-15
rust-doc libstdc++-12-doc erlang-doc`.
"""

from __future__ import annotations

import argparse
import dataclasses
import multiprocessing
import os
import posixpath
import sys
import urllib.parse

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from doc_graph import AnchorParser  # noqa: E402 (the same reading of links)


@dataclasses.dataclass(frozen=True)
class Tree:
    name: str
    package: str
    generator: str
    root: str
    front: str  # the front page, relative to root
    # Public URL prefixes of the same files, sent to this tree's host (multi-host graphs).
    aliases: tuple[str, ...] = ()

    @property
    def base(self) -> str:
        return f"http://{self.name}.docs.local/"


TREES = {t.name: t for t in [
    Tree("python", "python3.11-doc", "Sphinx", "/usr/share/doc/python3.11/html", "index.html",
         ("https://docs.python.org/3/", "https://docs.python.org/3.11/")),
    Tree("django", "python-django-doc", "Sphinx", "/usr/share/doc/python-django-doc/html",
         "index.html", ("https://docs.djangoproject.com/en/3.2/",)),
    Tree("postgresql", "postgresql-doc-15", "DocBook", "/usr/share/doc/postgresql-doc-15/html",
         "index.html", ("https://www.postgresql.org/docs/current/",
                        "https://www.postgresql.org/docs/15/")),
    Tree("rust", "rust-doc", "rustdoc, mdBook", "/usr/share/doc/rust-doc/html", "index.html"),
    Tree("libstdcxx", "libstdc++-12-doc", "Doxygen, DocBook",
         "/usr/share/doc/libstdc++-12-doc/libstdc++", "index.html"),
    Tree("erlang", "erlang-doc", "erl_docgen", "/usr/share/doc/erlang-doc", "doc/index.html"),
]}
GRAPHS = {name: [name] for name in TREES}
GRAPHS["multi"] = ["python", "django", "postgresql", "erlang"]


def html_files(root: str) -> list[str]:
    """Paths of the .html files under root (symbolic links followed), '/'-separated, sorted."""
    found = []
    for directory, subdirs, files in os.walk(root, followlinks=True):
        subdirs.sort()
        for name in files:
            if name.endswith(".html"):
                found.append(os.path.relpath(os.path.join(directory, name), root).replace(os.sep, "/"))
    return sorted(found)


class Resolver:
    """Maps an href found in a page to a page of the graph: (tree name, path) or None."""

    def __init__(self, trees: list[Tree], pages: dict[str, set[str]]) -> None:
        self.trees = trees
        self.pages = pages
        self.aliases = sorted(((a, t) for t in trees for a in t.aliases), key=lambda x: -len(x[0]))

    def resolve(self, tree: Tree, path: str, href: str) -> tuple[str, str] | None:
        url = urllib.parse.urljoin(tree.base + urllib.parse.quote(path), href.strip())
        for prefix, target_tree in self.aliases:
            if url.startswith(prefix):
                url = target_tree.base + url[len(prefix):]
                break
        parts = urllib.parse.urlsplit(url)
        for target_tree in self.trees:
            if parts.scheme + "://" + parts.netloc + "/" != target_tree.base:
                continue
            target = urllib.parse.unquote(parts.path.lstrip("/"))
            target = posixpath.normpath(target) if target else ""
            if target in ("", ".") or parts.path.endswith("/"):
                target = posixpath.join("" if target in ("", ".") else target, "index.html")
            if target in self.pages[target_tree.name]:
                return target_tree.name, target
            return None
        return None


_RESOLVER: Resolver | None = None


def _init(trees: list[Tree], pages: dict[str, set[str]]) -> None:
    global _RESOLVER
    _RESOLVER = Resolver(trees, pages)


def _links(job: tuple[str, str]) -> tuple[str, str, list[tuple[str, str]]]:
    """The distinct pages file `path` of tree `name` links to, in document order."""
    name, path = job
    tree = TREES[name]
    parser = AnchorParser()
    with open(os.path.join(tree.root, path), encoding="utf-8", errors="replace") as f:
        parser.feed(f.read())
    parser.close()
    targets: dict[tuple[str, str], None] = {}
    for href in parser.hrefs:
        target = _RESOLVER.resolve(tree, path, href)
        if target is not None and target != (name, path):
            targets[target] = None
    return name, path, list(targets)


def write_graph(graph: str, out) -> tuple[int, int]:
    trees = [TREES[name] for name in GRAPHS[graph]]
    for tree in trees:
        if not os.path.isfile(os.path.join(tree.root, tree.front)):
            raise SystemExit(f"doc_suite.py: {tree.root}/{tree.front} is missing "
                             f"(apt-get install -y {tree.package})")
    pages = {tree.name: set(html_files(tree.root)) for tree in trees}
    # Each tree's front page first, so that the simulator's default seed is a front page.
    jobs = []
    for tree in trees:
        jobs.append((tree.name, tree.front))
        jobs += [(tree.name, p) for p in sorted(pages[tree.name]) if p != tree.front]
    url = {t.name: t.base for t in trees}
    print(f"# doc_suite.py {graph}: " + "; ".join(
        f"{t.name} ({t.package}, {t.generator}) {len(pages[t.name])} HTML files at {t.base}"
        for t in trees), file=out)
    print("# seeds: " + ",".join(t.base + urllib.parse.quote(t.front) for t in trees), file=out)
    links = 0
    with multiprocessing.Pool(os.cpu_count(), initializer=_init, initargs=(trees, pages)) as pool:
        for name, path, targets in pool.imap(_links, jobs, chunksize=64):
            source = url[name] + urllib.parse.quote(path)
            for target_name, target in targets:
                print(f"{source} {url[target_name]}{urllib.parse.quote(target)}", file=out)
            links += len(targets)
    return sum(len(p) for p in pages.values()), links


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("graph", nargs="?", choices=sorted(GRAPHS))
    parser.add_argument("-o", "--output", help="write here instead of standard output")
    parser.add_argument("--list", action="store_true", help="list the graphs and their trees")
    args = parser.parse_args()
    if args.list or args.graph is None:
        for graph, names in GRAPHS.items():
            print(graph, " ".join(f"{TREES[n].package}:{TREES[n].root}" for n in names))
        return 0
    out = open(args.output, "w", encoding="utf-8") if args.output else sys.stdout
    with out:
        pages, links = write_graph(args.graph, out)
    print(f"doc_suite.py {args.graph}: {pages} HTML files, {links} links", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
