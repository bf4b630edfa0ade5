"""The crawlrank package's modules import each other without a circle
(scripts/check_py_imports.py), and the check finds the circles it is meant to find."""

from __future__ import annotations

import subprocess
import sys
import textwrap
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
CHECK = ROOT / "scripts" / "check_py_imports.py"


def check(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, str(CHECK), *args], capture_output=True, text=True,
                          timeout=60)


def write_package(root: Path, files: dict) -> Path:
    for name, text in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(textwrap.dedent(text))
    return root


def test_crawlrank_modules_import_each_other_without_a_cycle():
    proc = check(str(ROOT / "python" / "crawlrank"))
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "of crawlrank" in proc.stdout and "no cycle" in proc.stdout


# A package whose imports hide a cycle in each place the check must look: under
# TYPE_CHECKING, inside a function, relative (one and two dots), and an import of a module
# through its package (`from pkg import b`). Its __init__ imports its own modules, which is
# not a cycle.
CYCLE = {
    "pkg/__init__.py": """\
        from pkg import a
        from .sub import c
        """,
    "pkg/a.py": """\
        from typing import TYPE_CHECKING

        if TYPE_CHECKING:
            from pkg import b
        """,
    "pkg/b.py": """\
        def later():
            from .sub.c import name
            return name
        """,
    "pkg/sub/__init__.py": "",
    "pkg/sub/c.py": """\
        import os

        from .. import a

        name = os.sep
        """,
}


def test_the_check_finds_a_cycle_of_hidden_imports(tmp_path):
    package = write_package(tmp_path, CYCLE) / "pkg"
    proc = check(str(package))
    assert proc.returncode == 1, proc.stdout + proc.stderr
    lines = proc.stdout.splitlines()
    assert lines[0] == "import cycle: pkg.a -> pkg.b -> pkg.sub.c -> pkg.a"
    assert lines[1:] == [
        f"  {package / 'a.py'}:4: pkg.a imports pkg.b",
        f"  {package / 'b.py'}:2: pkg.b imports pkg.sub.c",
        f"  {package / 'sub' / 'c.py'}:3: pkg.sub.c imports pkg.a",
    ]


def test_the_check_passes_the_same_package_without_the_closing_import(tmp_path):
    files = dict(CYCLE)
    files["pkg/sub/c.py"] = "import os\n\nname = os.sep\n"
    proc = check(str(write_package(tmp_path, files) / "pkg"))
    assert proc.returncode == 0, proc.stdout + proc.stderr
    # __init__: a and sub.c; a: b; b: sub.c.
    assert proc.stdout == "check_py_imports: 5 modules of pkg, 4 imports of them: no cycle\n"


def test_the_check_finds_a_module_importing_itself(tmp_path):
    package = write_package(tmp_path, {"pkg/__init__.py": "", "pkg/m.py": "import pkg.m\n"})
    proc = check(str(package / "pkg"))
    assert proc.returncode == 1
    assert proc.stdout.splitlines()[0] == "import cycle: pkg.m -> pkg.m"


def test_the_check_refuses_a_folder_that_is_not_a_package(tmp_path):
    proc = check(str(tmp_path))
    assert proc.returncode == 2 and "not a package" in proc.stderr
