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
    /usr/bin/python3 benchmarks/doc_suite.py GRAPH -o FILE --keywords KW --scores SCORES
    /usr/bin/python3 benchmarks/doc_suite.py --list

With --keywords (a topic's keyword file, benchmarks/topics/*.keywords) it also writes the
scores a topical crawl would give, as crawlrank_simulate --scores reads them: `URL SCORE`,
a page's content score (the share of the keyword words its title and text contain), and
`SRC DST SCORE`, a link's (the share its anchor text and target URL contain), as
crawlrank.scrapy.scoring.KeywordScorer defines both; zero scores are left out.

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
import re
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


_WORD = re.compile(r"\w+")


def words(text: str) -> frozenset[str]:
    """The lower-cased words of `text` (crawlrank.scrapy.scoring's and html_extract.h's)."""
    return frozenset(w.lower() for w in _WORD.findall(text))


def read_keywords(path: str) -> frozenset[str]:
    """The keyword words of a keyword file: one keyword or phrase a line, '#' comments."""
    with open(path, encoding="utf-8") as f:
        found = frozenset(w for line in f for w in words(line.split("#", 1)[0]))
    if not found:
        raise SystemExit(f"doc_suite.py: {path}: no keywords")
    return found


class TextParser(AnchorParser):
    """Also keeps the page's text (title and body, no script or style) and each link's
    anchor text, in document order."""

    SKIP = {"script", "style"}

    def __init__(self) -> None:
        super().__init__()
        self.text: list[str] = []
        self.anchors: list[list[str]] = []  # one per href, in the order of self.hrefs
        self._open: list[str] | None = None
        self._skip = 0

    def handle_starttag(self, tag, attrs):
        before = len(self.hrefs)
        super().handle_starttag(tag, attrs)
        if tag in self.SKIP:
            self._skip += 1
        elif tag == "a":
            self._open = [] if len(self.hrefs) > before else None
            if self._open is not None:
                self.anchors.append(self._open)

    def handle_endtag(self, tag):
        if tag in self.SKIP and self._skip:
            self._skip -= 1
        elif tag == "a":
            self._open = None

    def handle_data(self, data):
        if self._skip:
            return
        self.text.append(data)
        if self._open is not None:
            self._open.append(data)


_RESOLVER: Resolver | None = None
_KEYWORDS: frozenset[str] = frozenset()


def _init(trees: list[Tree], pages: dict[str, set[str]], keywords: frozenset[str]) -> None:
    global _RESOLVER, _KEYWORDS
    _RESOLVER = Resolver(trees, pages)
    _KEYWORDS = keywords


def _share(text: str) -> float:
    return len(_KEYWORDS & words(text)) / len(_KEYWORDS)


def _links(job: tuple[str, str]) -> tuple[str, str, list[tuple[str, str]], float, list[float]]:
    """The distinct pages file `path` of tree `name` links to, in document order; with
    keywords, also the page's content score and each of those links' score (the first
    link to a page gives its anchor text)."""
    name, path = job
    tree = TREES[name]
    parser = TextParser() if _KEYWORDS else AnchorParser()
    with open(os.path.join(tree.root, path), encoding="utf-8", errors="replace") as f:
        parser.feed(f.read())
    parser.close()
    targets: dict[tuple[str, str], str] = {}
    for i, href in enumerate(parser.hrefs):
        target = _RESOLVER.resolve(tree, path, href)
        if target is not None and target != (name, path) and target not in targets:
            targets[target] = "".join(parser.anchors[i]) if _KEYWORDS else ""
    if not _KEYWORDS:
        return name, path, list(targets), 0.0, []
    content = _share(" ".join(parser.text))
    link_scores = [_share(f"{text} {TREES[t[0]].base}{urllib.parse.quote(t[1])}")
                   for t, text in targets.items()]
    return name, path, list(targets), content, link_scores


def write_graph(graph: str, out, keywords: frozenset[str] = frozenset(),
                scores_out=None) -> tuple[int, int]:
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
    with multiprocessing.Pool(os.cpu_count(), initializer=_init,
                              initargs=(trees, pages, keywords)) as pool:
        for name, path, targets, content, link_scores in pool.imap(_links, jobs, chunksize=64):
            source = url[name] + urllib.parse.quote(path)
            for target_name, target in targets:
                print(f"{source} {url[target_name]}{urllib.parse.quote(target)}", file=out)
            links += len(targets)
            if scores_out is None:
                continue
            if content > 0:
                print(f"{source} {content:.6g}", file=scores_out)
            for (target_name, target), score in zip(targets, link_scores):
                if score > 0:
                    print(f"{source} {url[target_name]}{urllib.parse.quote(target)} {score:.6g}",
                          file=scores_out)
    return sum(len(p) for p in pages.values()), links


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("graph", nargs="?", choices=sorted(GRAPHS))
    parser.add_argument("-o", "--output", help="write here instead of standard output")
    parser.add_argument("--list", action="store_true", help="list the graphs and their trees")
    parser.add_argument("--keywords", help="a topic's keyword file (benchmarks/topics/)")
    parser.add_argument("--scores", help="with --keywords: write the pages' and links' "
                        "scores here (crawlrank_simulate --scores)")
    args = parser.parse_args()
    if (args.keywords is None) != (args.scores is None):
        parser.error("--keywords and --scores go together")
    if args.list or args.graph is None:
        for graph, names in GRAPHS.items():
            print(graph, " ".join(f"{TREES[n].package}:{TREES[n].root}" for n in names))
        return 0
    keywords = read_keywords(args.keywords) if args.keywords else frozenset()
    out = open(args.output, "w", encoding="utf-8") if args.output else sys.stdout
    scores_out = open(args.scores, "w", encoding="utf-8") if args.scores else None
    with out:
        if scores_out is not None:
            print(f"# doc_suite.py {args.graph} --keywords {args.keywords}: "
                  f"{' '.join(sorted(keywords))}", file=scores_out)
        pages, links = write_graph(args.graph, out, keywords, scores_out)
    if scores_out is not None:
        scores_out.close()
    print(f"doc_suite.py {args.graph}: {pages} HTML files, {links} links", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
