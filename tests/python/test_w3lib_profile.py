"""The w3lib/1 URL profile checked against w3lib itself.

`crawlrank_url --profile w3lib` must print w3lib.url.canonicalize_url(url) for every URL of
tests/data/urls.txt, and reject the inputs that src/url/url_w3lib.cc lists as deliberately not
emulated. The fingerprint column is checked against the xxhash module when it is installed.
"""
import os
import random
import subprocess
from pathlib import Path
from typing import Dict, List, Tuple
from urllib.parse import urljoin, urlsplit

import pytest

w3lib_url = pytest.importorskip("w3lib.url")

# Inputs w3lib canonicalises but crawlrank rejects on purpose (see src/url/url_w3lib.cc), with
# a word the error message must contain.
DELIBERATE_REJECTIONS = [
    ("http://user@bücher.de/", "user info"),  # w3lib: http://xn--user@bcher-feb.de/
    ("http://bücher:8080/", "port"),  # w3lib: http://xn--bcher:8080-9db/
    ("http://example.com:99999/", "port"),
    ("http://example.com:8a/", "port"),
    ("http://exa mple.com/", "host"),
    ("http://a@b@example.com/", "user info"),
    ("http:/example.com/", "host"),  # w3lib: http:///example.com/
    ("http:///example.com/", "host"),
    ("http://[fe80::1%25eth0]/", "zone id"),
    ("http://[v1.abc]/", "IPvFuture"),
    ("http://ü-.de/", "IDN"),  # IDNA 2003 allows the hyphen; libidn2 does not
    ("http://\u200b.com/", "host"),  # IDNA fails (empty label): w3lib keeps the raw netloc
]

# Inputs on which w3lib itself raises: crawlrank must reject them too.
W3LIB_RAISES = [
    "http://[1.2.3.4]/",  # "An IPv4 address cannot be in brackets"
    "http://[::1/",  # "Invalid IPv6 URL"
    "http://℀.com/",  # "contains invalid characters under NFKC normalization"
]


def run_tool(bin_dir: Path, lines: List[str], *args: str) -> Tuple[int, List[List[str]]]:
    """Feeds `lines` to crawlrank_url and returns its exit code and tab-split output rows."""
    proc = subprocess.run(
        [str(bin_dir / "crawlrank_url"), *args],
        input="".join(line + "\n" for line in lines).encode("utf-8"),
        capture_output=True,
        check=False,
        timeout=120,
    )
    assert proc.returncode in (0, 1), proc.stderr.decode("utf-8", "replace")
    rows = [row.split("\t") for row in proc.stdout.decode("utf-8").splitlines()]
    assert len(rows) == len(lines), "one output line per input line"
    return proc.returncode, rows


@pytest.fixture(scope="module")
def urls(data_dir: Path) -> List[str]:
    lines = (data_dir / "urls.txt").read_text(encoding="utf-8").splitlines()
    return [line for line in lines if line]


@pytest.fixture(scope="module")
def w3lib_rows(bin_dir: Path, urls: List[str]) -> List[List[str]]:
    returncode, rows = run_tool(bin_dir, urls, "--profile", "w3lib")
    rejected = [(url, row) for url, row in zip(urls, rows) if row[0] == "error"]
    assert returncode == 0 and not rejected, f"rejected: {rejected[:5]}"
    return rows


def test_data_file_has_a_few_hundred_urls(urls: List[str]) -> None:
    assert len(urls) >= 300
    assert len(set(urls)) == len(urls)


def test_canonical_urls_equal_w3lib(urls: List[str], w3lib_rows: List[List[str]]) -> None:
    mismatches = []
    for url, row in zip(urls, w3lib_rows):
        theirs = w3lib_url.canonicalize_url(url)
        if row[0] != theirs:
            mismatches.append(f"url:    {url!r}\n  ours:   {row[0]!r}\n  theirs: {theirs!r}")
    assert not mismatches, f"{len(mismatches)} of {len(urls)} differ:\n" + "\n".join(mismatches)


def test_fingerprints_are_xxh3_64(w3lib_rows: List[List[str]]) -> None:
    xxhash = pytest.importorskip("xxhash")
    for canonical, fingerprint, _ in w3lib_rows:
        assert fingerprint == f"{xxhash.xxh3_64_intdigest(canonical.encode('utf-8')):016x}", canonical


def test_host_key_is_the_host_of_the_canonical_url(w3lib_rows: List[List[str]]) -> None:
    for canonical, fingerprint, host_key in w3lib_rows:
        assert len(fingerprint) == 16 and int(fingerprint, 16) >= 0
        hostport = canonical.split("://", 1)[1].split("/", 1)[0].rpartition("@")[2]
        if hostport.startswith("["):
            host = hostport[: hostport.index("]") + 1]
        else:
            host = hostport.partition(":")[0]
        assert host_key == host, canonical


def test_deliberate_rejections(bin_dir: Path) -> None:
    returncode, rows = run_tool(bin_dir, [url for url, _ in DELIBERATE_REJECTIONS],
                                "--profile", "w3lib")
    assert returncode == 1
    for (url, reason), row in zip(DELIBERATE_REJECTIONS, rows):
        assert isinstance(w3lib_url.canonicalize_url(url), str)  # w3lib accepts it
        assert row[0] == "error", (url, row)
        assert f'"{url}"' in row[1] and reason.lower() in row[1].lower(), (url, row)


def test_what_w3lib_refuses_is_rejected(bin_dir: Path) -> None:
    returncode, rows = run_tool(bin_dir, W3LIB_RAISES, "--profile", "w3lib")
    assert returncode == 1
    for url, row in zip(W3LIB_RAISES, rows):
        with pytest.raises(ValueError):
            w3lib_url.canonicalize_url(url)
        assert row[0] == "error" and f'"{url}"' in row[1], (url, row)


def test_empty_host_labels_are_kept_by_w3lib_and_rejected_by_rfc3986(bin_dir: Path) -> None:
    urls = ["http://a..com/", "http://.com/", "http://example.com../", "http://./"]
    _, rows = run_tool(bin_dir, urls, "--profile", "w3lib")
    assert [row[0] for row in rows] == [w3lib_url.canonicalize_url(url) for url in urls]
    _, rows = run_tool(bin_dir, urls, "--profile", "rfc3986")
    for url, row in zip(urls, rows):
        assert row[0] == "error" and f'"{url}"' in row[1] and "empty label" in row[1], row


# ---- relative references: canonicalize_url(urljoin(base, ref)) ---------------------------

# Bases with the shapes that change how a reference joins: params and a query, a file in a
# directory, a directory, an empty path, empty segments and a fragment, escapes and a port.
JOIN_BASES = [
    "http://a/b/c/d;p?q",
    "http://example.com/dir/sub/page.html",
    "https://Example.COM:8443/a/b/",
    "http://example.com",
    "http://example.com/a//b/c?x=1&y=2#frag",
    "https://www.example.org/%7Euser/x%2Fy/z.html?k=v",
]

# Every base also resolves these by hand-picked references: RFC 3986 §5.4's examples and
# the places where urljoin departs from RFC 3986 (crawlrank's w3lib/1 profile follows it).
JOIN_FIXED_REFERENCES = [
    "g", "./g", "g/", "/g", "//g", "?y", "g?y", "#s", "g#s", "g?y#s", ";x", "g;x", "g;x?y#s",
    ".", "./", "..", "../", "../g", "../..", "../../", "../../g", "../../../g", "../../../../g",
    "/./g", "/../g", "g.", ".g", "g..", "..g", "./../g", "./g/.", "g/./h", "g/../h",
    "g;x=1/./y", "g;x=1/../y", "g?y/./x", "g?y/../x", "g#s/./x", "g#s/../x",
    "../?q=1", "./?q=1",  # the trailing '/' of a final dot segment is kept
    "http:g",  # the base's scheme without "//": relative to urljoin
    "?",  # an empty query keeps the base's query in urljoin
    "..;x", "g/..;x",  # params are split off before dot segments are removed
    "/..//x", "a//b/", "//host/a/../b",  # empty segments; a netloc keeps its dot segments
    "///host/x",  # an empty netloc: urljoin keeps the base's host (browsers take "host")
    "%2E%2E/g", "%2e/g", "g%2F..%2Fh",  # escaped dots are no dot segments for urljoin
]

# Pieces of the generated references.
JOIN_PREFIXES = ["", "", "", "", "", "/", "/", "//other.example", "//Other.Example:8080", "http:",
                 "https:"]
JOIN_SEGMENTS = ["..", "..", ".", ".", "", "g", "h;x", "g;x=1", ";p", "%2E%2E", "%2e", "%41b",
                 "%7e", "a%2Fb", "%zz", "%", "ü", "a b"]
JOIN_SUFFIXES = ["", "", "/", "?q", "?y=2&x=1", "?", "#f", "?q#f", "#", "?a=%41&b"]

# Differences between crawlrank_url --profile w3lib --base B and canonicalize_url(urljoin(B,
# ref)) that are on purpose, each (test on base, ref and crawlrank's output, reason). Both
# are rejections of what w3lib turns into a URL that is not usable (src/url/url_w3lib.cc lists
# them, DELIBERATE_REJECTIONS tests them on absolute URLs). Any other difference fails.
def _other_scheme_without_host(base: str, ref: str, ours: str) -> bool:
    # urljoin returns "https:g" as it is against an http base (another scheme is never
    # relative); canonicalize_url then makes "https:///g" of it: a URL without a host.
    scheme = urlsplit(ref).scheme
    return (ours.startswith("error") and "no host" in ours and scheme in ("http", "https")
            and scheme != urlsplit(base).scheme and not urlsplit(ref).netloc)


def _host_with_bad_characters(base: str, ref: str, ours: str) -> bool:
    # A "//host" reference whose host has a '%' or a space: w3lib copies it raw into the
    # result ("http://%41b/", "http://a b/"), which names no host DNS could resolve.
    host = urlsplit(urljoin(base, ref)).hostname or ""
    return ours.startswith("error") and "host" in ours and any(c in host for c in "% ")


JOIN_EXPLAINED = [
    (_other_scheme_without_host, "another scheme without a host: rejected (no host)"),
    (_host_with_bad_characters, "'%' or space in the host: rejected"),
]


def join_seed() -> int:
    """The corpus seed: $CRAWLRANK_URL_SEED, or a fixed default so runs repeat."""
    return int(os.environ.get("CRAWLRANK_URL_SEED", "20240517"))


def generated_references(rng: random.Random, count: int) -> List[str]:
    refs = []
    for _ in range(count):
        prefix = rng.choice(JOIN_PREFIXES)
        segments = [rng.choice(JOIN_SEGMENTS) for _ in range(rng.randint(0, 5))]
        path = "/".join(segments)
        if prefix.startswith("//") and path:
            path = "/" + path  # the netloc ends at the first '/'
        elif prefix in ("http:", "https:") and rng.random() < 0.3:
            path = "//other.example/" + path
        refs.append(prefix + path + rng.choice(JOIN_SUFFIXES))
    return refs


def explain(base: str, ref: str, ours: str) -> str:
    """Returns the reason for a difference that is on purpose, or ""."""
    for applies, reason in JOIN_EXPLAINED:
        if applies(base, ref, ours):
            return reason
    return ""


def test_resolution_equals_urljoin_then_canonicalize_url(bin_dir: Path) -> None:
    seed = join_seed()
    print(f"seed {seed} (set CRAWLRANK_URL_SEED to change it)")
    rng = random.Random(seed)
    unexplained = []
    explained: Dict[str, int] = {}
    total = 0
    for base in JOIN_BASES:
        refs = JOIN_FIXED_REFERENCES + generated_references(rng, 600)
        _, rows = run_tool(bin_dir, refs, "--profile", "w3lib", "--base", base)
        for ref, row in zip(refs, rows):
            total += 1
            try:
                theirs = w3lib_url.canonicalize_url(urljoin(base, ref))
            except ValueError as error:
                theirs = f"error: {error}"
            ours = row[0] if row[0] != "error" else f"error: {row[1]}"
            if ours == theirs or (ours.startswith("error") and theirs.startswith("error")):
                continue
            reason = explain(base, ref, ours)
            if reason:
                explained[reason] = explained.get(reason, 0) + 1
                continue
            unexplained.append(
                f"base {base!r} ref {ref!r}\n  ours:   {ours!r}\n  theirs: {theirs!r}")
    print(f"{total} references; explained differences: {explained}")
    assert not unexplained, (f"seed {seed}: {len(unexplained)} of {total} differ:\n" +
                             "\n".join(unexplained[:40]))


# ---- crawlrank_url's own options ----------------------------------------------------------


def test_default_profile_is_rfc3986(bin_dir: Path) -> None:
    returncode, rows = run_tool(bin_dir, ["HTTP://Example.com:80/a/../b?y=1&x=2#f"])
    assert returncode == 0
    assert rows[0][0] == "http://example.com/b?y=1&x=2"
    assert rows[0][2] == "example.com"


def test_base_resolves_each_line(bin_dir: Path) -> None:
    returncode, rows = run_tool(bin_dir, ["g", "../x?b=1&a=2#s", "", "g:h"],
                                "--profile", "w3lib", "--base", "http://a/b/c/d;p?q")
    assert returncode == 1  # "g:h" is not http(s)
    assert [row[0] for row in rows[:3]] == [
        "http://a/b/c/g", "http://a/b/x?a=2&b=1", "http://a/b/c/d;p?q="]
    assert rows[3][0] == "error" and '"g:h"' in rows[3][1]


def test_host_key_domain(bin_dir: Path) -> None:
    _, rows = run_tool(bin_dir, ["http://www.example.co.uk/", "http://192.0.2.1:8080/"],
                       "--host-key", "domain")
    assert [row[2] for row in rows] == ["example.co.uk", "192.0.2.1"]


@pytest.mark.parametrize("args", [
    ["--profile", "scrapy"],
    ["--host-key", "site"],
    ["--base", "relative/only"],
    ["--no-such-option"],
])
def test_usage_errors_exit_2(bin_dir: Path, args: List[str]) -> None:
    proc = subprocess.run([str(bin_dir / "crawlrank_url"), *args], input=b"http://a/\n",
                          capture_output=True, check=False, timeout=60)
    assert proc.returncode == 2, proc
    assert proc.stdout == b""
    assert proc.stderr.startswith(b"crawlrank_url: ")


def test_long_bad_line_is_not_echoed_whole(bin_dir: Path) -> None:
    # A 1 MiB line with a DEL in it: the message quotes its first 200 bytes and its length.
    line = "http://example.com/\x7f" + "a" * (2**20 - 20)
    for profile in ("rfc3986", "w3lib"):
        returncode, rows = run_tool(bin_dir, [line], "--profile", profile)
        assert returncode == 1
        assert rows[0][0] == "error"
        assert rows[0][1] == f'URL "{line[:200]}…" (1048576 bytes): control character 127 in URL'


def test_long_bad_base_is_not_echoed_whole(bin_dir: Path) -> None:
    base = "ftp://example.com/" + "b" * 100_000  # one argument may hold at most 128 KiB
    proc = subprocess.run([str(bin_dir / "crawlrank_url"), "--base", base], input=b"g\n",
                          capture_output=True, check=False, timeout=60)
    assert proc.returncode == 2
    assert len(proc.stderr) < 1000, proc.stderr[:300]
    assert f'"{base[:200]}…" ({len(base)} bytes)'.encode("utf-8") in proc.stderr
