#!/usr/bin/python3
"""Checks that the modules of a Python package do not import each other in a circle.

    scripts/check_py_imports.py [PACKAGE_DIR]     (default: python/crawlrank)

Reads every .py file under PACKAGE_DIR without importing any (ast only) and collects each
import of the package's own modules, wherever it stands: at the top, inside a function,
under ``if TYPE_CHECKING:``, absolute or relative. An import names one module: ``import a.b``
and ``from a import b`` (b a module of the package) name a.b; ``from a.b import name`` names
a.b. The parent packages an import runs on the way are not counted, or every package whose
``__init__`` imports its own modules would make a circle. Dynamic imports
(``importlib.import_module``) are not seen.

Exits 0 and prints one summary line when the graph has no cycle; exits 1 printing each cycle,
every step with the file and line of its import; exits 2 for a usage error or a file that
does not parse.
"""

from __future__ import annotations

import ast
import sys
from pathlib import Path
from typing import Dict, List, Optional, Sequence, Set, Tuple

# An import of one of the package's modules: (importing module, imported module, file, line).
Import = Tuple[str, str, str, int]


def module_names(package_dir: Path) -> Dict[str, Path]:
    """The dotted name of each .py file under `package_dir`, the package named after it."""
    out: Dict[str, Path] = {}
    for path in sorted(package_dir.rglob("*.py")):
        out[_dotted(package_dir, path)] = path
    return out


def _dotted(package_dir: Path, path: Path) -> str:
    parts = [package_dir.name, *path.relative_to(package_dir).parts]
    parts[-1] = parts[-1].split(".")[0]  # scheduler.py, _core.pyi, _core.cpython-311-....so
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def _absolute(module: str, is_package: bool, level: int, name: Optional[str]) -> str:
    """The absolute name of a relative import (`level` dots, then `name`) in `module`."""
    base = module.split(".")
    if not is_package:
        base.pop()  # a module's imports are relative to its package
    if level > 1:
        base = base[:len(base) - (level - 1)]
    return ".".join(base + ([name] if name else []))


def imports_of(module: str, path: Path, known: Set[str], root: str) -> List[Import]:
    """The imports of the package's modules in the file `path` of `module`, in file order.
    `known`: every module name of the package, extension modules and stubs included."""
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    is_package = path.name == "__init__.py"
    out: List[Import] = []

    def own(name: str) -> bool:
        return name == root or name.startswith(root + ".")

    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                if own(alias.name):
                    out.append((module, alias.name, str(path), node.lineno))
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                source = _absolute(module, is_package, node.level, node.module)
            else:
                source = node.module or ""
            if not own(source):
                continue
            for alias in node.names:
                target = f"{source}.{alias.name}"
                out.append((module, target if target in known else source, str(path),
                            node.lineno))
    return sorted(set(out), key=lambda i: (i[3], i[1]))  # one per module named a line


def find_cycles(graph: Dict[str, List[Import]]) -> List[List[Import]]:
    """One cycle in each strongly connected part of `graph` that has one (Tarjan's
    algorithm), as the imports that make it; a module importing itself is a cycle of one."""
    index: Dict[str, int] = {}
    low: Dict[str, int] = {}
    stack: List[str] = []
    on_stack: Set[str] = set()
    parts: List[List[str]] = []

    def enter(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)

    for start in sorted(graph):
        if start in index:
            continue
        # Depth first without recursion: (module, how many of its imports were followed).
        enter(start)
        work = [(start, 0)]
        while work:
            node, followed = work.pop()
            edges = graph.get(node, [])
            if followed < len(edges):
                work.append((node, followed + 1))
                target = edges[followed][1]
                if target not in index:
                    enter(target)
                    work.append((target, 0))
                elif target in on_stack:
                    low[node] = min(low[node], index[target])
                continue
            if work:  # the frame below is the module that imported this one
                parent = work[-1][0]
                low[parent] = min(low[parent], low[node])
            if low[node] == index[node]:
                part = []
                while not part or part[-1] != node:
                    part.append(stack.pop())
                    on_stack.discard(part[-1])
                parts.append(part)

    cycles = []
    for part in parts:
        first = min(part)
        if len(part) > 1 or any(i[1] == first for i in graph.get(first, [])):
            cycles.append(_shortest_cycle(first, set(part), graph))
    return cycles


def _shortest_cycle(first: str, members: Set[str], graph: Dict[str, List[Import]]
                    ) -> List[Import]:
    """The imports of a shortest cycle from `first` back to it through `members`, which are
    strongly connected (breadth first)."""
    reached_by: Dict[str, Import] = {}
    frontier = [first]
    while frontier:
        following = []
        for node in frontier:
            for imp in graph.get(node, []):
                target = imp[1]
                if target == first:
                    cycle = [imp]
                    while cycle[0][0] != first:
                        cycle.insert(0, reached_by[cycle[0][0]])
                    return cycle
                if target in members and target not in reached_by:
                    reached_by[target] = imp
                    following.append(target)
        frontier = following
    raise AssertionError(f"no cycle through {first}")


def main(argv: Sequence[str]) -> int:
    if len(argv) > 2 or (len(argv) == 2 and argv[1].startswith("-")):
        print("usage: check_py_imports.py [PACKAGE_DIR]", file=sys.stderr)
        return 2
    default = Path(__file__).resolve().parent.parent / "python" / "crawlrank"
    package_dir = Path(argv[1]) if len(argv) == 2 else default
    if not (package_dir / "__init__.py").is_file():
        print(f"check_py_imports: {package_dir}: not a package (no __init__.py)",
              file=sys.stderr)
        return 2
    modules = module_names(package_dir)
    # Extension modules and stubs can be imported too, though they import nothing here.
    known = set(modules) | {_dotted(package_dir, p) for pattern in ("*.pyi", "*.so", "*.pyd")
                            for p in package_dir.rglob(pattern)}
    graph: Dict[str, List[Import]] = {}
    try:
        for module, path in modules.items():
            graph[module] = imports_of(module, path, known, package_dir.name)
    except (SyntaxError, UnicodeDecodeError) as error:
        print(f"check_py_imports: cannot parse: {error}", file=sys.stderr)
        return 2
    cycles = find_cycles(graph)
    for cycle in cycles:
        print("import cycle: " + " -> ".join([cycle[0][0]] + [i[1] for i in cycle]))
        for source, target, file, line in cycle:
            print(f"  {file}:{line}: {source} imports {target}")
    if cycles:
        return 1
    count = sum(len(edges) for edges in graph.values())
    print(f"check_py_imports: {len(modules)} modules of {package_dir.name}, {count} imports "
          "of them: no cycle")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
