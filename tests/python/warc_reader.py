"""A WARC reader for the tests (ISO 28500: WARC/1.0 and WARC/1.1), written here so that
crawlrank's WARC files and other crawlers' (wget --warc-file) are checked by the same,
strict code: every record must parse, and every digest it carries must match.

    for record in read_warc("crawl-00000.warc.gz"): ...
"""

from __future__ import annotations

import base64
import dataclasses
import gzip
import hashlib
import pathlib


class WarcError(ValueError):
    """A record that does not follow the standard, or a digest that does not match."""


@dataclasses.dataclass
class Record:
    version: str                # "WARC/1.0" or "WARC/1.1"
    headers: dict[str, str]     # names in lower case
    block: bytes

    @property
    def type(self) -> str:
        return self.headers["warc-type"]

    @property
    def target_uri(self) -> str:
        """WARC-Target-URI without the angle brackets WARC/1.0 writers (wget) put around it."""
        uri = self.headers.get("warc-target-uri", "")
        return uri[1:-1] if uri.startswith("<") and uri.endswith(">") else uri

    def http_payload(self) -> bytes:
        """The entity body of an application/http block: after the head, de-chunked."""
        head, sep, body = self.block.partition(b"\r\n\r\n")
        if not sep:
            raise WarcError(f"{self.target_uri}: an HTTP block without the end of its head")
        if b"transfer-encoding: chunked" in head.lower():
            body = dechunk(body)
        return body


def dechunk(body: bytes) -> bytes:
    out, pos = bytearray(), 0
    while True:
        end = body.index(b"\r\n", pos)
        size = int(body[pos:end].split(b";")[0], 16)
        if size == 0:
            return bytes(out)
        out += body[end + 2:end + 2 + size]
        pos = end + 2 + size + 2


def digest(data: bytes) -> str:
    """The WARC digest of `data`: sha1 in base32."""
    return "sha1:" + base64.b32encode(hashlib.sha1(data).digest()).decode()


def parse_records(data: bytes, where: str) -> list[Record]:
    records, pos = [], 0
    while pos < len(data):
        head_end = data.find(b"\r\n\r\n", pos)
        if head_end < 0:
            raise WarcError(f"{where}: a record head without its end at byte {pos}")
        lines = data[pos:head_end].decode("utf-8").split("\r\n")
        if lines[0] not in ("WARC/1.0", "WARC/1.1"):
            raise WarcError(f"{where}: {lines[0]!r} at byte {pos} is not a WARC version line")
        headers = {}
        for line in lines[1:]:
            name, sep, value = line.partition(":")
            if not sep:
                raise WarcError(f"{where}: header line {line!r} has no colon")
            headers[name.strip().lower()] = value.strip()
        for required in ("warc-type", "warc-record-id", "warc-date", "content-length"):
            if required not in headers:
                raise WarcError(f"{where}: a record without {required}: {headers}")
        length = int(headers["content-length"])
        block = data[head_end + 4:head_end + 4 + length]
        end = head_end + 4 + length
        if len(block) != length or data[end:end + 4] != b"\r\n\r\n":
            raise WarcError(f"{where}: record {headers['warc-record-id']} is cut short")
        records.append(Record(lines[0], headers, block))
        pos = end + 4
    return records


def read_warc(path: str | pathlib.Path) -> list[Record]:
    """Every record of a .warc or .warc.gz file (gzip members read one after the other),
    each digest checked."""
    raw = pathlib.Path(path).read_bytes()
    data = gzip.decompress(raw) if raw[:2] == b"\x1f\x8b" else raw
    records = parse_records(data, str(path))
    for r in records:
        if "warc-block-digest" in r.headers and r.headers["warc-block-digest"] != digest(r.block):
            raise WarcError(f"{path}: block digest of {r.headers['warc-record-id']}")
        if r.type == "response" and "warc-payload-digest" in r.headers:
            if r.headers["warc-payload-digest"] != digest(r.http_payload()):
                raise WarcError(f"{path}: payload digest of {r.target_uri}")
    return records
