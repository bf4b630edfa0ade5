"""The two import shims Frontera 0.8 needs on Python 3.10+ (frontera-interface.md §0).

Applied before Frontera is first imported, and only where something is missing: a real
``collections.Iterable`` or ``cityhash`` module is left as it is.
"""

from __future__ import annotations

import collections
import collections.abc
import sys
import types


def apply() -> None:
    # frontera/core/manager.py: `from collections import Iterable` (removed in Python 3.10).
    if not hasattr(collections, "Iterable"):
        collections.Iterable = collections.abc.Iterable  # type: ignore[attr-defined]
    # frontera/contrib/backends/partitioners.py imports cityhash at import time; only its
    # FingerprintPartitioner (Kafka/HBase set-ups) calls it.
    if "cityhash" not in sys.modules:
        try:
            import cityhash  # noqa: F401
        except ImportError:
            sys.modules["cityhash"] = _cityhash_stub()


def _cityhash_stub() -> types.ModuleType:
    module = types.ModuleType("cityhash", "A stub put in by crawlrank.frontera: cityhash is "
                              "not installed.")

    def CityHash64(*args, **kwargs):  # noqa: N802 (cityhash's name)
        raise NotImplementedError(
            "cityhash is not installed (crawlrank.frontera put a stub in its place): "
            "Frontera's FingerprintPartitioner needs the real module")

    module.CityHash64 = CityHash64  # type: ignore[attr-defined]
    module.__crawlrank_stub__ = True  # type: ignore[attr-defined]
    return module
