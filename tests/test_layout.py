"""No module of the package imports, however indirectly, a module that imports it back.

A circle makes the order of imports matter and hides which module is the lower one; the shared
piece belongs below both. Every import counts: at the top of a module, inside a function (run
later, but still a dependency), and under `TYPE_CHECKING` (a dependency of the types a reader and
a checker follow).
"""

from __future__ import annotations

import ast
from pathlib import Path

import compact_agent

ROOT = Path(compact_agent.__file__).resolve().parent


def modules(root: Path) -> dict[str, tuple[Path, bool]]:
    """Every module under `root` by dotted name, with its file and whether it is a package."""
    out = {}
    for f in root.rglob("*.py"):
        parts = list(f.relative_to(root.parent).with_suffix("").parts)
        package = parts[-1] == "__init__"
        out[".".join(parts[:-1] if package else parts)] = (f, package)
    return out


def imports(root: Path) -> dict[str, set[str]]:
    """The package's own modules each module imports."""
    mods = modules(root)
    graph: dict[str, set[str]] = {}
    for name, (path, package) in mods.items():
        found: set[str] = set()
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Import):
                found |= {a.name for a in node.names}
            elif isinstance(node, ast.ImportFrom):
                base = name.split(".") if package else name.split(".")[:-1]
                target = node.module or ""
                if node.level:
                    target = ".".join(base[:len(base) - node.level + 1] + ([node.module] if node.module else []))
                # `from . import x` imports the module x; `from .m import y`, the module m.
                found |= {f"{target}.{a.name}" if f"{target}.{a.name}" in mods else target for a in node.names}
        graph[name] = {m for m in found if m in mods and m != name}
    return graph


def circles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected groups of more than one module (Tarjan's algorithm, iteratively)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    out: list[list[str]] = []
    for start in graph:
        if start in index:
            continue
        work = [(start, iter(sorted(graph[start])))]
        index[start] = low[start] = len(index)
        stack.append(start)
        on_stack.add(start)
        while work:
            node, edges = work[-1]
            for nxt in edges:
                if nxt not in index:
                    index[nxt] = low[nxt] = len(index)
                    stack.append(nxt)
                    on_stack.add(nxt)
                    work.append((nxt, iter(sorted(graph[nxt]))))
                    break
                if nxt in on_stack:
                    low[node] = min(low[node], index[nxt])
            else:
                work.pop()
                if work:
                    low[work[-1][0]] = min(low[work[-1][0]], low[node])
                if low[node] == index[node]:
                    group = []
                    while True:
                        m = stack.pop()
                        on_stack.discard(m)
                        group.append(m)
                        if m == node:
                            break
                    if len(group) > 1:
                        out.append(sorted(group))
    return out


def test_no_module_imports_one_that_imports_it_back() -> None:
    assert circles(imports(ROOT)) == []


def test_the_check_sees_a_circle_through_a_type_only_import(tmp_path: Path) -> None:
    pkg = tmp_path / "pkg"
    (pkg / "sub").mkdir(parents=True)
    (pkg / "__init__.py").write_text("")
    (pkg / "sub" / "__init__.py").write_text("")
    (pkg / "a.py").write_text("from .sub import b\n")
    (pkg / "sub" / "b.py").write_text("from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from ..c import C\n")
    (pkg / "c.py").write_text("def f():\n    from . import a\n")
    assert circles(imports(pkg)) == [["pkg.a", "pkg.c", "pkg.sub.b"]]
    (pkg / "c.py").write_text("")
    assert circles(imports(pkg)) == []
