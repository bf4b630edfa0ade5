"""The tests' WARC reader (warc_reader.py) against another crawler's files: wget
--warc-file over a real documentation site on 127.0.0.1 (WARC/1.0), and against damage."""

from __future__ import annotations

import gzip
import pathlib
import shutil
import subprocess

import pytest

from doc_site import DocSite
from warc_reader import WarcError, digest, parse_records, read_warc

LMDB_DOCS = "/usr/share/doc/lmdb-doc/html"


def test_digest_is_sha1_in_base32():
    assert digest(b"abc") == "sha1:VGMT4NSHA2AWVOR6EVYXQUGCNSONBWE5"


def test_wget_warc_files_read_with_every_digest_matching(tmp_path):
    if shutil.which("wget") is None or not pathlib.Path(LMDB_DOCS, "index.html").exists():
        pytest.skip("needs wget and lmdb-doc (scripts/install-deps.sh)")
    with DocSite(pathlib.Path(LMDB_DOCS), extras=False) as site:
        subprocess.run(["wget", "-q", "-r", "-l", "1", "-P", str(tmp_path / "files"),
                        f"--warc-file={tmp_path / 'crawl'}", f"http://127.0.0.1:{site.port}/index.html"],
                       check=False, timeout=120)
        asked = site.paths()
    records = read_warc(tmp_path / "crawl.warc.gz")
    assert records[0].type == "warcinfo" and records[0].version == "WARC/1.0"
    responses = [r for r in records if r.type == "response"]
    requests = {r.headers["warc-record-id"]: r for r in records if r.type == "request"}
    assert len(responses) == len(asked) > 10
    assert sorted(r.target_uri.split(str(site.port), 1)[1] for r in responses) == sorted(asked)
    for response in responses:  # each names its request, for the same URI
        request = requests[response.headers["warc-concurrent-to"]]
        assert request.target_uri == response.target_uri
        assert request.block.startswith(b"GET ")


def test_damage_is_refused(tmp_path):
    record = (b"WARC/1.1\r\nWARC-Type: resource\r\nWARC-Record-ID: <urn:uuid:x>\r\n"
              b"WARC-Date: 2026-11-26T00:00:00Z\r\nWARC-Block-Digest: " + digest(b"body").encode() +
              b"\r\nContent-Length: 4\r\n\r\nbody\r\n\r\n")
    assert parse_records(record, "ok")[0].block == b"body"
    (tmp_path / "good.warc.gz").write_bytes(gzip.compress(record) + gzip.compress(record))
    assert len(read_warc(tmp_path / "good.warc.gz")) == 2
    for bad in (record[:-6], record.replace(b"WARC/1.1", b"WARC/9.9"),
                record.replace(b"Content-Length: 4", b"Content-Length: 9")):
        with pytest.raises(WarcError):
            parse_records(bad, "bad")
    (tmp_path / "tampered.warc").write_bytes(record.replace(b"\r\n\r\nbody", b"\r\n\r\nbady"))
    with pytest.raises(WarcError, match="block digest"):
        read_warc(tmp_path / "tampered.warc")
