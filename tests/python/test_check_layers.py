"""scripts/check_layers.py on small made-up trees: each rule fails on the file and line that
break it, and passes a tree that keeps it."""
import importlib.util
import subprocess
import sys
from pathlib import Path

import pytest

SCRIPT = Path(__file__).resolve().parents[2] / "scripts" / "check_layers.py"


def run(root: Path, *args: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, str(SCRIPT), str(root), *args],
        capture_output=True,
        text=True,
        check=False,
    )


def write(root: Path, path: str, text: str) -> None:
    file = root / path
    file.parent.mkdir(parents=True, exist_ok=True)
    file.write_text(text)


@pytest.fixture
def tree(tmp_path: Path) -> Path:
    """A src/ whose includes all point down."""
    write(tmp_path, "src/base/bits.h", "#include <cstdint>\n")
    write(tmp_path, "src/url/url.cc", '#include "crawlrank/url.h"\n#include "base/bits.h"\n')
    write(tmp_path, "src/page_db/db.cc", '#include "crawlrank/page_db.h"\n#include "url/x.h"\n')
    write(tmp_path, "src/rank/kernel.cc", '#include "crawlrank/rank.h"\n#include "base/bits.h"\n')
    write(tmp_path, "src/rank_db/rank.cc", '#include "crawlrank/db_rank.h"\n#include "rank/k.h"\n')
    write(tmp_path, "include/crawlrank/page_db.h", '#include "crawlrank/edge_chunk.h"\n')
    return tmp_path


def test_a_tree_that_points_down_passes(tree: Path) -> None:
    result = run(tree)
    assert result.returncode == 0, result.stdout + result.stderr
    assert result.stdout == ""


def test_page_db_including_the_rank_layer_fails_naming_file_and_line(tree: Path) -> None:
    write(tree, "src/page_db/bad.cc", '#include <vector>\n\n#include "rank/rank_graph.h"\n')
    result = run(tree)
    assert result.returncode == 1
    expected = 'src/page_db/bad.cc:3: layers: page_db includes "rank/rank_graph.h" (rank)'
    assert expected in result.stdout


def test_an_installed_header_of_a_higher_floor_fails(tree: Path) -> None:
    write(tree, "src/url/bad.cc", '// uses the scheduler\n#include "crawlrank/scheduler.h"\n')
    result = run(tree)
    assert result.returncode == 1
    assert "src/url/bad.cc:2: layers: url includes" in result.stdout
    assert "(schedule)" in result.stdout


def test_rank_kernels_may_not_include_the_page_db(tree: Path) -> None:
    write(tree, "src/rank/bad.cc", '#include "crawlrank/page_db.h"\n')
    result = run(tree)
    assert result.returncode == 1
    assert "src/rank/bad.cc:1: layers: rank includes" in result.stdout


def test_includes_in_comments_do_not_count(tree: Path) -> None:
    write(tree, "src/page_db/ok.cc", '// #include "crawl/x.h"\n/*\n#include "rank/y.h"\n*/\n')
    assert run(tree).returncode == 0


def test_an_installed_header_including_a_higher_one_or_src_fails(tree: Path) -> None:
    write(tree, "include/crawlrank/url.h", '#include "crawlrank/rank.h"\n#include "base/bits.h"\n')
    result = run(tree)
    assert result.returncode == 1
    assert 'include/crawlrank/url.h:1: layers: url includes "crawlrank/rank.h"' in result.stdout
    expected = 'include/crawlrank/url.h:2: layers: installed header includes "base/bits.h"'
    assert expected in result.stdout


def test_unknown_folders_and_headers_fail(tree: Path) -> None:
    write(tree, "src/extra/thing.cc", "int x;\n")
    write(tree, "include/crawlrank/new_thing.h", "\n")
    result = run(tree)
    assert result.returncode == 1
    assert "src/extra/thing.cc:1: layers: not in a folder of LAYERS" in result.stdout
    assert "include/crawlrank/new_thing.h:1: public-headers: not in PUBLIC_HEADERS" in result.stdout


def test_a_header_implemented_on_another_floor_fails(tree: Path) -> None:
    write(tree, "src/rank/db_rank.cc", '#include "crawlrank/db_rank.h"\n')
    result = run(tree)
    assert result.returncode == 1
    assert "src/rank/db_rank.cc:1: public-headers: implements crawlrank/db_rank.h" in result.stdout


def test_files_over_800_lines_fail(tree: Path) -> None:
    write(tree, "src/base/long.cc", "int x;\n" * 800)
    assert run(tree).returncode == 0
    write(tree, "src/base/long.cc", "int x;\n" * 801)
    result = run(tree)
    assert result.returncode == 1
    assert "src/base/long.cc:801: max-lines: 801 lines, over 800" in result.stdout


def load_script():
    """The script as a module, to check it with tables of the test's own."""
    spec = importlib.util.spec_from_file_location("check_layers", SCRIPT)
    module = importlib.util.module_from_spec(spec)
    sys.modules["check_layers"] = module  # dataclasses look their module up by name
    spec.loader.exec_module(module)
    return module


def test_an_allowed_long_file_back_within_the_limit_is_reported(
    tree: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    script = load_script()
    monkeypatch.setattr(script, "LONG_FILES_ALLOWED", {"src/schedule/scheduler.cc": "a test"})
    write(tree, "src/schedule/scheduler.cc", "int x;\n" * 900)
    assert [str(v) for v in script.check(tree, [])] == []
    write(tree, "src/schedule/scheduler.cc", "int x;\n" * 700)
    found = [str(v) for v in script.check(tree, [])]
    assert len(found) == 1
    assert "remove it from LONG_FILES_ALLOWED" in found[0]


def test_a_long_file_fails_when_none_is_allowed(tree: Path) -> None:
    write(tree, "src/schedule/scheduler.cc", "int x;\n" * 801)
    result = run(tree)
    assert result.returncode == 1
    assert "src/schedule/scheduler.cc" in result.stdout and "max-lines" in result.stdout


def test_forbid_call_flags_calls_only(tree: Path) -> None:
    write(
        tree,
        "src/page_db/s.cc",
        "// mdb_put(txn) in a comment\n"
        'const char* k = "mdb_get(";\n'
        "int n = 1'000;\n"
        "int y = obj.mdb_del(1);\n"
        "int z = mdb_put (txn, dbi, &k, &v, 0);\n",
    )
    assert run(tree).returncode == 0  # LMDB is page_db's own: no rule covers it unless asked for
    result = run(tree, "--forbid-call", "mdb_", "--under", "src/page_db")
    assert result.returncode == 1
    lines = result.stdout.splitlines()
    assert lines == [
        "src/page_db/s.cc:5: forbid-call: calls mdb_put: nothing under src/page_db calls mdb_*"
    ]


def test_nothing_above_src_page_db_calls_lmdb(tree: Path) -> None:
    write(tree, "src/schedule/s.cc", "int z = mdb_put(txn, dbi, &k, &v, 0);\n")
    write(tree, "src/rank_db/r.cc", "int z = mdb_get(txn, dbi, &k, &v);\n")
    result = run(tree)
    assert result.returncode == 1
    assert "src/schedule/s.cc:1: forbid-call: calls mdb_put" in result.stdout
    assert "src/rank_db/r.cc:1: forbid-call: calls mdb_get" in result.stdout


def test_forbid_call_needs_its_folder() -> None:
    result = subprocess.run(
        [sys.executable, str(SCRIPT), "--forbid-call", "mdb_"],
        capture_output=True,
        text=True,
        check=False,
    )
    assert result.returncode == 2


def function(signature: str, lines: int, indent: str = "") -> str:
    """A function definition of exactly `lines` lines, signature to closing brace."""
    body = "".join(f"{indent}  x += {k};\n" for k in range(lines - 2))
    return f"{indent}{signature} {{\n{body}{indent}}}\n"


def test_functions_over_80_lines_fail(tree: Path) -> None:
    write(tree, "src/base/long_fn.cc", "// a\n\n" + function("int Eighty(int x)", 80))
    assert run(tree).returncode == 0
    write(tree, "src/base/long_fn.cc", "// a\n\n" + function("int EightyOne(int x)", 81))
    result = run(tree)
    assert result.returncode == 1
    assert result.stdout.splitlines() == [
        "src/base/long_fn.cc:3: max-function-lines: EightyOne: 81 lines, over 80: "
        "split it into steps"
    ]


def test_function_length_counts_members_from_the_signature_line(tree: Path) -> None:
    member = (
        "namespace crawlrank {\n"
        "class Foo {\n"
        " public:\n"
        "  explicit Foo(int a) : a_{a}, b_(a) {}\n"
        + function("template <typename T>\n  auto Get(T t) const noexcept -> int", 80, "  ")
        + " private:\n  int a_{0};\n  int b_ = 0;\n};\n"
        "Foo::Foo(int a, int b)\n    : a_{a},\n      b_{b} {\n  x += 1;\n}\n"
        + function("Result<int> Foo::Make(\n    int a)", 81)
        + "}  // namespace crawlrank\n"
    )
    write(tree, "src/base/member.h", member)
    result = run(tree)
    assert result.returncode == 1
    assert result.stdout.splitlines() == [
        "src/base/member.h:5: max-function-lines: Get: 81 lines, over 80: split it into steps",
        "src/base/member.h:95: max-function-lines: Foo::Make: 82 lines, over 80: "
        "split it into steps",
    ]


def test_blocks_lambdas_comments_and_literals_inside_a_function_are_part_of_it(
    tree: Path,
) -> None:
    inside = (
        "int Outer(int x) {\n"
        '  const char* s = "{ not a brace";\n'
        "  // } nor this\n"
        "  char c = '}';\n"
        "  auto f = [&](int y) {\n"
        "    if (y) {\n"
        "      return y;\n"
        "    }\n"
        "    return 0;\n"
        "  };\n"
        "#define BRACE {\n" + "".join(f"  x += f({k});\n" for k in range(68)) + "  return x;\n}\n"
    )
    assert len(inside.splitlines()) == 81
    write(tree, "src/base/inside.cc", "static const int kTable[] = {1, 2};\n" + inside)
    result = run(tree)
    assert result.stdout.splitlines() == [
        "src/base/inside.cc:2: max-function-lines: Outer: 81 lines, over 80: split it into steps"
    ]


# ---- the edges (issue #42): tools/, python/src/, benchmarks/ and the Python package


def test_a_long_function_at_the_edges_fails_there_too(tree: Path) -> None:
    body = "  int x = 0;\n" * 78
    write(tree, "tools/tool.cc", "int Short() {\n" + body + "}\n")  # 80 lines
    assert run(tree).returncode == 0
    write(tree, "tools/tool.cc", "int Main() {\n" + body + "  x++;\n}\n")
    result = run(tree)
    assert result.returncode == 1
    assert "tools/tool.cc:1: max-function-lines: Main: 81 lines, over 80" in result.stdout
    write(tree, "benchmarks/long.cc", "int x;\n" * 801)
    assert "benchmarks/long.cc:801: max-lines: 801 lines, over 800" in run(tree).stdout


def test_python_functions_and_classes_are_measured_by_their_own_lines(tree: Path) -> None:
    method = "    def step(self):\n" + "        x = 1\n" * 80 + "\n"
    write(tree, "python/crawlrank/mod.py", "class Front:\n" + method)
    result = run(tree)
    assert result.returncode == 1
    assert "python/crawlrank/mod.py:2: max-function-lines: Front.step: 81 lines, over 80" in (
        result.stdout)
    small = "".join(f"    def m{i}(self):\n        pass\n" for i in range(150))
    write(tree, "python/crawlrank/mod.py", "class Front:\n" + small)
    result = run(tree)
    assert "python/crawlrank/mod.py:1: max-class-lines: Front: 301 lines, over 300" in (
        result.stdout)
    # One method fewer: 299 lines, within the limit (a file that still parses: one that
    # did not would have no class to measure).
    within = "".join(f"    def m{i}(self):\n        pass\n" for i in range(149))
    write(tree, "python/crawlrank/mod.py", "class Front:\n" + within)
    assert run(tree).returncode == 0


def test_the_allow_lists_only_shrink(tree: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    script = load_script()
    monkeypatch.setattr(script, "LONG_CLASSES_ALLOWED", {("python/crawlrank/mod.py", "Front"): "t"})
    monkeypatch.setattr(script, "LONG_FUNCTIONS_ALLOWED", {("tools/tool.cc", "Main"): "t",
                                                           ("tools/tool.cc", "Gone"): "t"})
    write(tree, "python/crawlrank/mod.py", "class Front:\n    pass\n")
    write(tree, "tools/tool.cc", "int Main() {\n" + "  int x = 0;\n" * 90 + "}\n")
    found = sorted(str(v) for v in script.check(tree, []))
    assert found == [
        "python/crawlrank/mod.py:1: max-class-lines: Front: 2 lines, within 300: "
        "remove it from LONG_CLASSES_ALLOWED",
        "tools/tool.cc:1: max-function-lines: Gone: not found: remove it from "
        "LONG_FUNCTIONS_ALLOWED",
    ]


def test_an_allow_list_entry_whose_file_is_gone_is_reported(
    tree: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    script = load_script()
    monkeypatch.setattr(script, "LONG_FILES_ALLOWED", {"tools/moved.cc": "t"})
    monkeypatch.setattr(script, "LONG_FUNCTIONS_ALLOWED", {("tools/moved.cc", "Main"): "t"})
    monkeypatch.setattr(script, "LONG_CLASSES_ALLOWED", {("python/crawlrank/old.py", "A"): "t"})
    # A made-up tree is not the one the lists name: nothing is reported unless asked.
    assert script.check(tree, []) == []
    found = sorted(str(v) for v in script.check(tree, [], report_gone=True))
    assert found == [
        "python/crawlrank/old.py:1: max-class-lines: file not found: remove it from "
        "LONG_CLASSES_ALLOWED",
        "tools/moved.cc:1: max-function-lines: file not found: remove it from "
        "LONG_FUNCTIONS_ALLOWED",
        "tools/moved.cc:1: max-lines: file not found: remove it from LONG_FILES_ALLOWED",
    ]


def test_an_include_cycle_fails_naming_each_file_of_it(tree: Path) -> None:
    write(tree, "src/base/a.h", '#include "base/b.h"\n')
    write(tree, "src/base/b.h", '#include <vector>\n#include "c.h"\n')
    write(tree, "src/base/c.h", '#include "base/a.h"\n')
    write(tree, "tools/tool.cc", '#include "base/a.h"\n#include "tool.h"\n')
    write(tree, "tools/tool.h", "// no includes\n")
    result = run(tree)
    assert result.returncode == 1
    assert ("src/base/c.h:1: include-cycle: src/base/a.h -> src/base/b.h -> src/base/c.h -> "
            "src/base/a.h") in result.stdout
    assert result.stdout.count("include-cycle") == 1
    write(tree, "src/base/c.h", "// the cycle broken\n")
    assert run(tree).returncode == 0
