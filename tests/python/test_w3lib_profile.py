"""The w3lib/1 URL profile checked against w3lib itself.

`crawlrank_url --profile w3lib` must print w3lib.url.canonicalize_url(url) for every URL of
tests/data/urls.txt, and reject the inputs that src/url_w3lib.cc lists as deliberately not
emulated. The fingerprint column is checked against the xxhash module when it is installed.
"""
import subprocess
from pathlib import Path
from typing import List, Tuple

import pytest

w3lib_url = pytest.importorskip("w3lib.url")

# Inputs w3lib canonicalises but crawlrank rejects on purpose (see src/url_w3lib.cc), with
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
