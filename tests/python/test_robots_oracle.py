"""crawlrank_robots against Debian's python3-protego (0.2.1) over a random robots.txt corpus.

A seeded generator writes robots.txt files (several groups, product tokens with versions,
case and substrings, Allow/Disallow with '*', '$', percent-escapes of unreserved, reserved
and non-ASCII octets, key typos, missing colons, odd whitespace, comments, CR/LF/CRLF, a
byte order mark, Crawl-delay and Sitemap lines) and paths for each, runs both parsers, and
compares every answer: allowed or not per path, the crawl delay, the sitemaps.

protego departs from RFC 9309 in known ways. Each disagreement is explained automatically:
protego is run again with one of its behaviours switched to the RFC's (a patched method, or
an input rewrite that changes nothing for the RFC, checked by running crawlrank_robots
again), then with two, three or four at once; the first switch set that makes protego give crawlrank's
answer names the category. An answer no switch set explains fails the test. The categories,
with the RFC text behind each, are QUIRKS below and docs/crawler.md ("robots.txt").

CRAWLRANK_ROBOTS_SEED and CRAWLRANK_ROBOTS_FILES change the corpus (defaults 9309, 400).
"""
from __future__ import annotations

import contextlib
import importlib.metadata
import itertools
import os
import random
import re
import subprocess
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import ParseResult, quote, urlparse, urlunparse

import pytest

protego = pytest.importorskip("protego")

SEED = int(os.environ.get("CRAWLRANK_ROBOTS_SEED", "9309"))
FILES = int(os.environ.get("CRAWLRANK_ROBOTS_FILES", "400"))
PATHS_PER_FILE = 25

# Why protego 0.2.1 and RFC 9309 (which crawlrank follows) answer differently. The key is
# the name of the switch that turns protego's behaviour into the RFC's.
QUIRKS = {
    "robots_txt": "protego applies the rules to /robots.txt itself; RFC 9309 §2.2.2: "
                  "\"The /robots.txt URI is implicitly allowed.\"",
    "ua_match": "protego picks one group, the one whose whole user-agent value is the longest "
                "substring of the agent (\"crawl\" and \"rank\" name crawlrank, "
                "\"crawlrank/2.0\" does not, two spellings are two groups); RFC 9309 §2.2.1: "
                "the product token matches case-insensitively, all matching groups are "
                "merged, else \"*\"",
    "other_records": "protego ends a group's run of user-agent lines at any other line "
                     "(Sitemap, unknown keys); RFC 9309 §2.2.4: other records \"MUST NOT "
                     "terminate a group\"",
    "missing_colon_case": "protego's missing-colon leniency (\"disallow /x\") works only "
                          "for keys written in lower case; keys are case-insensitive (RFC 9309 "
                          "§2.1's ABNF strings, RFC 5234 §2.3), and crawlrank applies the "
                          "leniency (robots.h) to a key in any case",
    "bom": "protego reads a UTF-8 byte order mark as part of the first key; RFC 9309 §2.1 "
           "wants UTF-8, where a leading BOM is a signature, not content (RFC 3629 §6)",
    "dollar_literal": "protego also adds each pattern holding '$' with '$' as a literal "
                      "\"%24\" (\"Disallow: /a$\" also blocks \"/a$b\"); RFC 9309 §2.2.3: "
                      "\"$\" designates the end of the match pattern",
    "index_html": "protego takes \"Allow: /x/index.html\" as also allowing \"/x/\" exactly; "
                  "RFC 9309 §2.2.2 matches a rule's own path only",
    "reserved_escapes": "protego decodes escapes of reserved characters and escapes raw ones, "
                        "so \"!\" and \"%21\" (or \"$\" and \"%24\") are equal; RFC 9309 §2.2.2 "
                        "unencodes only unreserved characters, reserved ones are compared as "
                        "written (RFC 3986 §2.2)",
    "query_unnormalised": "protego normalises only the part before ';' and '?': escapes, "
                          "hex case and non-ASCII octets of params and query are compared as "
                          "written, and a final '?' of a path is dropped; RFC 9309 §2.2.2 "
                          "normalises the whole path with its query (its table's "
                          "\"/foo/bar?baz=quz\")",
    "delay_syntax": "protego takes any Python float as Crawl-delay (\"-1\", \"1e1\"); crawlrank "
                    "only non-negative decimals (robots.h; Crawl-delay is no RFC 9309 record, "
                    "§2.2.4 leaves other records to the crawler)",
    "delay_last": "protego keeps a group's last Crawl-delay, crawlrank the largest, the "
                  "politest (robots.h)",
}
INPUT_REWRITES = {"other_records", "bom", "missing_colon_case"}
RESERVED = ":/?#[]@!$&'()*+,;="
BOM = "\ufeff"

# --- the corpus -------------------------------------------------------------------------

AGENTS = ["crawlrank", "CrawlRank", "otherbot"]
UA_VALUES = ["crawlrank", "CrawlRank", "CRAWLRANK", "crawlrank/2.0", "crawl", "rank",
             "crawlrank-news", "otherbot", "OtherBot/1.0", "googlebot", "*", "*", "*"]
PIECES = ["a", "b", "ab", "fish", "Fish", "x1", ".html", ".gif", "index.html", "-", "_", "~",
          "%7E", "%7e", "%41", "%62", "%2F", "%2f", "!", "%21", "$", "%24", "=", "%3D", "&",
          ",", ";", ":", "@", "+", "%20", "é", "%C3%A9", "%c3%a9", "ツ", "%E3%83%84", "?",
          "?q=", "q=1", "/", "/", "/"]
KEYS = {
    "user-agent": ["User-agent", "user-agent", "USER-AGENT", "User-Agent", "useragent",
                   "user agent"],
    "disallow": ["Disallow", "disallow", "DISALLOW", "dissallow", "disalow"],
    "allow": ["Allow", "allow", "ALLOW"],
    "crawl-delay": ["Crawl-delay", "crawl-delay", "Crawl-Delay"],
    "sitemap": ["Sitemap", "sitemap", "SITEMAP"],
    "unknown": ["Host", "Noindex", "Clean-param"],
}
DELAYS = ["1", "2", "0.5", "10", "1.25", "abc", "-1", "1e1"]
UNKNOWN_VALUES = ["example.com", "/x", "ref /y"]


@dataclass
class Line:
    kind: str  # a KEYS key, "comment" or "blank"
    text: str
    between_agents: bool = False  # an other record inside a run of user-agent lines
    colonless_key: str = ""  # the key of a line without a colon, as written

    def rendered(self, lower_colonless_key: bool) -> str:
        if lower_colonless_key and self.colonless_key:
            return self.text.replace(self.colonless_key, self.colonless_key.lower(), 1)
        return self.text


@dataclass
class RobotsFile:
    lines: list[Line]
    eols: list[str]
    bom: bool
    agent: str
    paths: list[str] = field(default_factory=list)

    def text(self, off=()) -> str:
        """The file; with "bom", "other_records" or "missing_colon_case" in `off`, rewritten
        so that protego's behaviour of that name cannot show (nothing changes for RFC 9309)."""
        out = BOM if self.bom and "bom" not in off else ""
        for line, eol in zip(self.lines, self.eols):
            if "other_records" in off and line.between_agents:
                continue
            out += line.rendered("missing_colon_case" in off) + eol
        return out


def _pattern(rng: random.Random) -> str:
    s = ""
    for _ in range(rng.randint(0, 4)):
        if rng.random() < 0.2:
            s += "*"
        s += rng.choice(PIECES)
    s = "/" + s if rng.random() > 0.05 else s.lstrip("/") or "x"
    if rng.random() < 0.15:
        s += "$"
    while s.startswith("//"):  # urlparse reads "//x" as a host: no path starts so
        s = s[1:]
    return s


def _render(rng: random.Random, kind: str, value: str) -> Line:
    key = rng.choice(KEYS[kind])
    colonless = bool(value) and rng.random() < 0.05
    # Without a colon: protego splits on spaces only, so no tab.
    sep = " " if colonless else rng.choice([":", ": ", " : ", ":\t", ":   "])
    text = key + sep + value
    if rng.random() < 0.1:
        text = rng.choice(["  ", "\t", " \t"]) + text
    if rng.random() < 0.1:
        text += rng.choice([" ", "\t", "  "])
    if rng.random() < 0.1:
        text += " # note"
    return Line(kind, text, colonless_key=key if colonless else "")


def make_file(rng: random.Random) -> RobotsFile:
    lines: list[Line] = []
    sitemap_no = itertools.count()

    def sitemap() -> Line:
        return _render(rng, "sitemap", f"https://example.com/map{next(sitemap_no)}.xml")

    if rng.random() < 0.1:
        lines.append(Line("comment", "# robots.txt for example.com"))
    if rng.random() < 0.1:
        lines.append(sitemap())
    if rng.random() < 0.1:  # rules before any group: ignored by both
        lines.append(_render(rng, "disallow", _pattern(rng)))
    patterns = []
    for _ in range(rng.randint(1, 4)):
        agents = [rng.choice(UA_VALUES) for _ in range(rng.randint(1, 3))]
        for i, agent in enumerate(agents):
            if i > 0 and rng.random() < 0.1:  # an other record inside the agent lines
                other = sitemap() if rng.random() < 0.5 else _render(
                    rng, "unknown", rng.choice(UNKNOWN_VALUES))
                other.between_agents = True
                lines.append(other)
            lines.append(_render(rng, "user-agent", agent))
        items = []
        for _ in range(rng.randint(0, 5)):
            kind = "disallow" if rng.random() < 0.6 else "allow"
            value = "" if rng.random() < 0.08 else _pattern(rng)
            patterns.append(value)
            items.append(_render(rng, kind, value))
        for _ in range(rng.choice([0, 0, 0, 1, 1, 2]) if rng.random() < 0.35 else 0):
            items.insert(rng.randint(0, len(items)),
                         _render(rng, "crawl-delay", rng.choice(DELAYS)))
        if rng.random() < 0.15:
            items.insert(rng.randint(0, len(items)), sitemap())
        if rng.random() < 0.05:
            items.insert(rng.randint(0, len(items)),
                         _render(rng, "unknown", rng.choice(UNKNOWN_VALUES)))
        # A group ends with a rule, so that only other records (the "other_records" case)
        # can make protego and RFC 9309 disagree on where groups start.
        kind = rng.choice(["disallow", "allow"])
        value = _pattern(rng) if rng.random() < 0.9 else ""
        patterns.append(value)
        items.append(_render(rng, kind, value))
        lines.extend(items)
        if rng.random() < 0.7:
            lines.append(Line("blank", ""))
        if rng.random() < 0.1:
            lines.append(Line("comment", rng.choice(["# end", "#", "  # indented"])))
    eol = rng.choice(["\n", "\n", "\n", "\r\n", "\r"])
    mixed = rng.random() < 0.1
    eols = [rng.choice(["\n", "\r\n", "\r"]) if mixed else eol for _ in lines]
    f = RobotsFile(lines, eols, rng.random() < 0.05, rng.choice(AGENTS))
    for _ in range(PATHS_PER_FILE):
        f.paths.append(_path(rng, [p for p in patterns if p]))
    return f


def _path(rng: random.Random, patterns: list[str]) -> str:
    r = rng.random()
    if r < 0.05:
        return rng.choice(["/robots.txt", "/", ""])
    if r < 0.55 and patterns:  # near a rule: stars filled in, anchor dropped, maybe more
        p = rng.choice(patterns).rstrip("$")
        p = "".join(rng.choice(PIECES) if c == "*" and rng.random() < 0.7 else
                    ("" if c == "*" else c) for c in p)
        if not p.startswith("/"):
            p = "/" + p
        if rng.random() < 0.5:
            p += rng.choice(PIECES)
    else:
        p = "/" + "".join(rng.choice(PIECES) for _ in range(rng.randint(0, 5)))
    while p.startswith("//"):
        p = p[1:]
    if rng.random() < 0.1:
        p = "https://example.com" + p
    return p


# --- protego, with switches ---------------------------------------------------------------

_OFF: set[str] = set()  # the protego behaviours switched to RFC 9309's


def _request_path(url: str) -> str:
    m = re.match(r"(?i)https?://[^/?]*", url)
    return (url[m.end():] if m else url) or "/"


def _install_switches(monkeypatch) -> None:
    """Replaces protego methods with versions that honour _OFF (with _OFF empty they do
    exactly what 0.2.1's do; the test checks that over the whole corpus)."""
    RuleSet = protego._RuleSet
    orig_can_fetch = protego.Protego.can_fetch
    orig_match = protego.Protego._get_matching_rule_set

    def add(self, field_name, pattern):
        if "$" in pattern and "dollar_literal" not in _OFF:
            add(self, field_name, pattern.replace("$", self.hexescape("$")))
        pattern = self._quote_pattern(pattern)
        if not pattern:
            return
        self._rules.append(protego._Rule(field=field_name, value=protego._URLPattern(pattern)))
        if (field_name == "allow" and pattern.endswith("/index.html")
                and "index_html" not in _OFF):
            add(self, "allow", pattern[:-10] + "$")

    def quote_path(self, path):
        keep = "/%" + (RESERVED if "reserved_escapes" in _OFF else "")
        if "query_unnormalised" in _OFF:
            return quote(self._unquote(_request_path(path), ignore=keep), safe=keep) or "/"
        parts = urlparse(path)
        p = quote(self._unquote(parts.path, ignore=keep), safe=keep)
        return urlunparse(ParseResult("", "", p, parts.params, parts.query, parts.fragment)) or "/"

    def quote_pattern(self, pattern):
        last = ""
        if pattern[-1] in "?;$":
            last, pattern = pattern[-1], pattern[:-1]
        extra = RESERVED if "reserved_escapes" in _OFF else ""
        ignore, safe = "/*$%" + extra, "/*%" + extra
        if "query_unnormalised" in _OFF:
            return quote(self._unquote(pattern, ignore=ignore), safe=safe) + last
        parts = urlparse(pattern)
        p = quote(self._unquote(parts.path, ignore=ignore), safe=safe)
        return urlunparse(ParseResult("", "", p + last, parts.params, parts.query, parts.fragment))

    def set_delay(self, value):
        if "delay_syntax" in _OFF and not re.fullmatch(r"\d+(\.\d*)?|\.\d+", value):
            return
        try:
            delay = float(value)
        except ValueError:
            return
        if "delay_last" in _OFF and self._crawl_delay is not None:
            delay = max(delay, self._crawl_delay)
        self._crawl_delay = delay

    def token(value):
        return re.match(r"[A-Za-z_-]*", value).group(0).lower()

    def matching_rule_set(self, user_agent):
        if "ua_match" not in _OFF:
            return orig_match(self, user_agent)
        named = [rs for ua, rs in self._user_agents.items()
                 if token(ua) and token(ua) == token(user_agent)]
        if not named:
            return self._user_agents.get("*")
        merged = RuleSet(self)
        merged.user_agent = token(user_agent)
        for rs in named:
            merged._rules.extend(rs._rules)
        merged.finalize_rules()
        delays = [rs.crawl_delay for rs in named if rs.crawl_delay is not None]
        if delays:
            merged._crawl_delay = max(delays) if "delay_last" in _OFF else delays[-1]
        return merged

    def can_fetch(self, url, user_agent):
        if "robots_txt" in _OFF and _request_path(url) == "/robots.txt":
            return True
        return orig_can_fetch(self, url, user_agent)

    monkeypatch.setattr(RuleSet, "allow", lambda self, p: add(self, "allow", p))
    monkeypatch.setattr(RuleSet, "disallow", lambda self, p: add(self, "disallow", p))
    monkeypatch.setattr(RuleSet, "_quote_path", quote_path)
    monkeypatch.setattr(RuleSet, "_quote_pattern", quote_pattern)
    monkeypatch.setattr(RuleSet, "crawl_delay", property(lambda self: self._crawl_delay, set_delay))
    monkeypatch.setattr(protego.Protego, "_get_matching_rule_set", matching_rule_set)
    monkeypatch.setattr(protego.Protego, "can_fetch", can_fetch)


@contextlib.contextmanager
def switched(names):
    saved = set(_OFF)
    _OFF.clear()
    _OFF.update(names)
    try:
        yield
    finally:
        _OFF.clear()
        _OFF.update(saved)


def protego_answers(f: RobotsFile, off=()) -> dict:
    """protego's answers for `f` with the behaviours `off` switched to RFC 9309's."""
    with switched(off):
        p = protego.Protego.parse(f.text(off))
        delay = p.crawl_delay(f.agent)
        return {
            "paths": [p.can_fetch(path, f.agent) for path in f.paths],
            "delay": None if delay is None else round(delay * 1000),
            "sitemaps": list(p.sitemaps),
        }


# --- crawlrank_robots ---------------------------------------------------------------------

def crawlrank_answers(bin_dir: Path, work: Path, f: RobotsFile, off=()) -> dict:
    file = work / "robots.txt"
    file.write_bytes(f.text(off).encode("utf-8"))
    tool = str(bin_dir / "crawlrank_robots")
    run = subprocess.run([tool, str(file), "--agent", f.agent],
                         input="".join(p + "\n" for p in f.paths).encode("utf-8"),
                         capture_output=True, timeout=60, check=True)
    rows = [line.split(b"\t", 1) for line in run.stdout.split(b"\n")[:-1]]
    assert [r[1].decode("utf-8") for r in rows] == f.paths
    meta = subprocess.run([tool, str(file), "--agent", f.agent, "--crawl-delay", "--sitemaps"],
                          capture_output=True, timeout=60, check=True).stdout.decode("utf-8")
    delay, sitemaps = None, []
    for line in meta.splitlines():
        key, value = line.split("\t", 1)
        if key == "crawl-delay" and value != "none":
            delay = round(float(value) * 1000)
        elif key == "sitemap":
            sitemaps.append(value)
    return {"paths": [r[0] == b"allowed" for r in rows], "delay": delay, "sitemaps": sitemaps}


def _pick(answers: dict, what: str, i: int | None):
    return answers[what][i] if i is not None else answers[what]


def explain(bin_dir, work, f, what, i, ours) -> str | None:
    """The first switch set (one switch, then two, up to four) under which protego answers
    as crawlrank does; None when there is none."""
    names = list(QUIRKS)
    for size in (1, 2, 3, 4):
        for combo in itertools.combinations(names, size):
            if _pick(protego_answers(f, combo), what, i) != ours:
                continue
            rewrites = INPUT_REWRITES.intersection(combo)
            if rewrites and _pick(crawlrank_answers(bin_dir, work, f, rewrites), what, i) != ours:
                continue  # the rewrite changed crawlrank's answer: it explains nothing
            return "+".join(combo)
    return None


def test_robots_against_protego(bin_dir, tmp_path, monkeypatch):
    version = importlib.metadata.version("protego")
    if version != "0.2.1":
        pytest.skip(f"the switches are written against protego 0.2.1's internals, not {version}")
    print(f"\nrobots oracle: seed {SEED} (CRAWLRANK_ROBOTS_SEED), {FILES} files")
    rng = random.Random(SEED)
    corpus = [make_file(rng) for _ in range(FILES)]
    stock = [protego_answers(f) for f in corpus]  # before the switches are installed
    _install_switches(monkeypatch)

    categories: Counter[str] = Counter()
    unexplained = []
    compared = Counter()
    for n, (f, theirs) in enumerate(zip(corpus, stock)):
        assert protego_answers(f) == theirs, "the switchable protego is not protego 0.2.1"
        ours = crawlrank_answers(bin_dir, tmp_path, f)
        checks = [("paths", i) for i in range(len(f.paths))] + [("delay", None), ("sitemaps", None)]
        for what, i in checks:
            compared[what] += 1
            mine = _pick(ours, what, i)
            if mine == _pick(theirs, what, i):
                continue
            why = explain(bin_dir, tmp_path, f, what, i, mine)
            if why is None:
                unexplained.append((n, what, f.paths[i] if i is not None else "", mine,
                                    _pick(theirs, what, i), f.agent, f.text()))
            else:
                categories[f"{what}: {why}"] += 1

    print(f"compared: {dict(compared)}")
    for name, count in sorted(categories.items(), key=lambda kv: (-kv[1], kv[0])):
        print(f"  {count:5d}  {name}")
    print(f"  {len(unexplained):5d}  unexplained")
    for n, what, path, mine, theirs, agent, text in unexplained[:5]:
        print(f"--- file {n} ({what} {path!r}, agent {agent}): crawlrank {mine}, protego {theirs}\n"
              f"{text!r}")
    assert not unexplained, f"{len(unexplained)} disagreements with no RFC 9309 reason"
