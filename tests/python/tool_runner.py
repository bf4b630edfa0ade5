"""Runs one of crawlrank's command-line tools for a test and checks its exit code."""

from __future__ import annotations

import pathlib
import subprocess


def run(bin_dir: pathlib.Path, tool: str, *args: object, stdin: str | None = None,
        expect: int = 0) -> subprocess.CompletedProcess[str]:
    """Runs `bin_dir/tool args...`; fails the test unless it exits with `expect`."""
    proc = subprocess.run([str(bin_dir / tool), *map(str, args)], input=stdin,
                          capture_output=True, text=True, timeout=120)
    assert proc.returncode == expect, (
        f"{tool} {args}: exit {proc.returncode}, expected {expect}\n"
        f"stdout: {proc.stdout}\nstderr: {proc.stderr}")
    return proc
