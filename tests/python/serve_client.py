"""A crawlrank_serve process and a gRPC client for it, from the Python stubs the build
generates (protoc + grpc_python_plugin): what test_serve.py and test_cluster.py share.

The stubs' folder comes from CRAWLRANK_FRONTIER_PY_DIR (ctest sets it), else from
<build>/proto/python beside CRAWLRANK_TOOLS_DIR; without them, or without python3-grpcio,
or without the server (CRAWLRANK_BUILD_SERVER=OFF), load_api skips the test.
"""
from __future__ import annotations

import importlib
import os
import pathlib
import select
import signal
import subprocess
import sys

import pytest

SERVER = "crawlrank_serve"


def load_api(bin_dir):
    """(pb2, pb2_grpc, grpc) of the URLFrontier schema; skips the test without them."""
    if not (bin_dir / SERVER).exists():
        pytest.skip(f"{SERVER} is not built (CRAWLRANK_BUILD_SERVER=OFF)")
    stubs = os.environ.get("CRAWLRANK_FRONTIER_PY_DIR") or str(bin_dir.parent / "proto" / "python")
    if not (pathlib.Path(stubs) / "urlfrontier_pb2_grpc.py").exists():
        pytest.skip(f"no generated URLFrontier stubs in {stubs}")
    grpc = pytest.importorskip("grpc")
    sys.path.insert(0, stubs)  # the _grpc module imports urlfrontier_pb2 by its bare name
    try:
        return (importlib.import_module("urlfrontier_pb2"),
                importlib.import_module("urlfrontier_pb2_grpc"), grpc)
    finally:
        sys.path.remove(stubs)


class Server:
    """A crawlrank_serve process on 127.0.0.1 (a free port) and a client stub for it."""

    def __init__(self, bin_dir, api, db, *args, listen="127.0.0.1:0"):
        self.pb, pb_grpc, self.grpc = api
        where = ["--listen", listen] if listen else []
        self.proc = subprocess.Popen(
            [str(bin_dir / SERVER), str(db), *where, *map(str, args)],
            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        ready, _, _ = select.select([self.proc.stdout], [], [], 30)
        line = self.proc.stdout.readline() if ready else ""
        if not line.startswith("listening on "):
            self.proc.kill()
            _, err = self.proc.communicate()
            pytest.fail(f"{SERVER} did not start: {line!r} {err}")
        self.address = line.split()[-1]
        self.channel = self.grpc.insecure_channel(self.address)
        self.stub = pb_grpc.URLFrontierStub(self.channel)

    def info(self, url, **metadata):
        info = self.pb.URLInfo(url=url)
        for name, values in metadata.items():
            info.metadata[name.replace("_", ".", 1)].values.extend(
                values if isinstance(values, list) else [values])
        return info

    def discovered(self, url, item_id="", **metadata):
        return self.pb.URLItem(
            discovered=self.pb.DiscoveredURLItem(info=self.info(url, **metadata)), ID=item_id)

    def known(self, url, item_id="", **metadata):
        return self.pb.URLItem(known=self.pb.KnownURLItem(info=self.info(url, **metadata)),
                               ID=item_id)

    def put(self, *items, **call):
        """The acks of PutURLs for `items`: [(ID, status name)] in the order received."""
        name = self.pb.AckMessage.Status.Name
        return [(a.ID, name(a.status)) for a in self.stub.PutURLs(iter(items), **call)]

    def get(self, delay=30, per_queue=0, queues=0, key="", **call):
        params = self.pb.GetParams(max_urls_per_queue=per_queue, max_queues=queues,
                                   delay_requestable=delay, key=key)
        return list(self.stub.GetURLs(params, **call))

    def stop(self, sig=signal.SIGTERM):
        self.channel.close()
        if self.proc.poll() is None:
            self.proc.send_signal(sig)
        out, err = self.proc.communicate(timeout=30)
        return self.proc.returncode, err
