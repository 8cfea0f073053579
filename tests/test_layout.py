"""No module of the package imports, however indirectly, a module that imports it back; and every
module is named in docs/layout.md, in its package's block, so a reader can find it.

A circle makes the order of imports matter and hides which module is the lower one; the shared
piece belongs below both. Every import counts: at the top of a module, inside a function (run
later, but still a dependency), and under `TYPE_CHECKING` (a dependency of the types a reader and
a checker follow).

docs/layout.md used to be the README's Layout, and 32 modules were named nowhere (31 of ui/, and
agent/tools/images.py, which only `context/compaction/images.py` seemed to name): its test checked
that a module named exists, never that a module exists named.
"""

from __future__ import annotations

import ast
import functools
import re
from pathlib import Path

import compact_agent

ROOT = Path(compact_agent.__file__).resolve().parent
REPO = Path(__file__).resolve().parents[1]


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
        # Importing `a.b.c` first runs `a.b`'s __init__ (and `a`'s): an edge to each package it enters
        # that this module is not inside already. `layers/__init__` imports `order`, which builds every
        # layer, so a module outside `layers/` importing `layers.digest` imports the layers too.
        found |= {".".join(m.split(".")[:i]) for m in found if m in mods for i in range(1, m.count(".") + 1)
                  if not (name + ".").startswith(".".join(m.split(".")[:i]) + ".")}
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


@functools.cache
def package_imports() -> dict[str, set[str]]:
    """`imports(ROOT)`, made once for the two tests that read it (1 s each: every module parsed)."""
    return imports(ROOT)


def test_no_module_imports_one_that_imports_it_back() -> None:
    assert circles(package_imports()) == []


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


def test_the_check_sees_a_circle_through_a_package_init(tmp_path: Path) -> None:
    """`pkg.c` imports `pkg.sub.b`, which runs `pkg/sub/__init__`, which imports `pkg.sub.a`, which
    imports `pkg.c` back (inside a function: it runs later, and still a dependency)."""
    pkg = tmp_path / "pkg"
    (pkg / "sub").mkdir(parents=True)
    (pkg / "__init__.py").write_text("")
    (pkg / "sub" / "__init__.py").write_text("from .a import A\n")
    (pkg / "sub" / "a.py").write_text("class A:\n    def f(self):\n        from ..c import C\n")
    (pkg / "sub" / "b.py").write_text("B = 1\n")
    (pkg / "c.py").write_text("from .sub.b import B\nclass C: ...\n")
    assert circles(imports(pkg)) == [["pkg.c", "pkg.sub", "pkg.sub.a"]]
    # A module inside the package does not enter it again: no circle through its own __init__.
    (pkg / "c.py").write_text("class C: ...\n")
    (pkg / "sub" / "b.py").write_text("from . import a\n")
    assert circles(imports(pkg)) == []


#: The view layers, each with the modules that are its own parts (docs/pipeline.md, "Changing one
#: layer"); `order.py` builds them all and `frozen.py` keeps their decisions, so they are no layer.
LAYERS = {"budget": {"budget", "previews", "spills", "rereads"}, "snip": {"snip"},
          "microcompact": {"microcompact"}, "collapse": {"collapse", "collapse_log", "digest"}}


def test_no_layer_imports_another_layer_or_the_compaction() -> None:
    """What two layers share lives in `context/plumbing/` (`result_text.result_lines`,
    `file_changes.changed_files`): budget.py imported the compaction's ledger inside a function,
    which imports the digest, whose package builds budget.py, so moved to the top it made
    `import compact_agent.context.compaction.ledger` fail."""
    graph = package_imports()
    layers = "compact_agent.context.layers"
    owner = {f"{layers}.{m}": layer for layer, parts in LAYERS.items() for m in parts}
    assert set(owner) | {f"{layers}.order", f"{layers}.frozen"} == {m for m in graph if m.startswith(layers + ".")}
    crossings = sorted(f"{m} imports {n}" for m, layer in owner.items() for n in graph[m]
                       if (n in owner and owner[n] != layer) or n == layers
                       or n.startswith("compact_agent.context.compaction"))
    assert crossings == []


#: A section header: `# ---- name` or `# -- name ----`, a rule of dashes with the section's name.
HEADER = re.compile(r"^# -{2,}.*\w.*|^# .*\w.* -{4,}$")


def test_no_section_header_heads_nothing() -> None:
    """agent/tools/shell.py ended with '# ---- grep / glob' and search.py with '# ---- toolset,
    mentions', left behind when those sections moved to modules of their own."""
    empty = []
    for f in sorted(ROOT.rglob("*.py")):
        lines = [line for line in f.read_text(encoding="utf-8").splitlines() if line.strip()]
        empty += [f"{f.relative_to(ROOT)}: {line.strip('# -')!r}" for i, line in enumerate(lines)
                  if HEADER.match(line) and (i + 1 == len(lines) or HEADER.match(lines[i + 1]))]
    assert empty == []


def tree(page: Path) -> str:
    """The first fenced block after the page's `## Layout` or `## The modules` heading: the tree."""
    text = page.read_text(encoding="utf-8")
    at = min(i for h in ("## Layout", "## The modules") if (i := text.find(h)) >= 0)
    return text[at:].split("```")[1]


def blocks(block: str) -> dict[str, str]:
    """The text of the tree under each package header (`  context/`, `    layers/`), by the
    package's path under src/compact_agent ("" for `src/compact_agent/` itself, "/tests" for a
    folder outside it). A line belongs to the nearest header above it that is less indented."""
    out: dict[str, str] = {}
    stack: list[tuple[int, str]] = []
    for line in block.splitlines():
        indent = len(line) - len(line.lstrip(" "))
        while stack and stack[-1][0] >= indent:
            stack.pop()
        header = re.match(r" *(src/compact_agent|[a-z_]+)/(?:\s|$)", line)
        if header:
            name = header.group(1)
            parent = stack[-1][1] if stack else None
            path = "" if name == "src/compact_agent" else f"/{name}" if parent is None else \
                f"{parent}/{name}".lstrip("/") if parent == "" else f"{parent}/{name}"
            stack.append((indent, path))
            out.setdefault(path, "")
            line = line[header.end():]
        if stack:
            out[stack[-1][1]] += line + "\n"
    return out


def test_every_module_is_named_in_its_package_block_of_docs_layout() -> None:
    named = blocks(tree(REPO / "docs" / "layout.md"))
    missing = []
    for f in sorted(ROOT.rglob("*.py")):
        if f.name in ("__init__.py", "__main__.py"):
            continue
        package = f.parent.relative_to(ROOT).as_posix().replace(".", "")
        if not re.search(rf"(?<![\w.]){re.escape(f.name)}\b", named.get(package, "")):
            where = f"the {package}/ block" if package else "the top-level lines, before `context/`"
            missing.append(f"{f.relative_to(ROOT)}: name it, with what it is for, in {where} of docs/layout.md")
    assert not missing, "modules named nowhere:\n" + "\n".join(missing)


def test_the_readme_layout_has_a_line_for_every_package_and_links_docs_layout() -> None:
    text = (REPO / "README.md").read_text(encoding="utf-8")
    packages = {f.parent.relative_to(ROOT).as_posix() for f in ROOT.rglob("__init__.py")} - {"."}
    listed = {p for p in blocks(tree(REPO / "README.md")) if p and not p.startswith("/")}
    assert listed == packages, (packages - listed, listed - packages)
    layout = text[text.index("## Layout"):]
    assert "(docs/layout.md)" in layout.split("```")[0]


def test_the_block_reader_sees_a_module_left_out_of_its_package() -> None:
    block = """src/compact_agent/
  cli.py  words.py
  context/          the library
    pipeline.py     ContextManager
    layers/         L1 budget.py, L2 snip.py,
                    L3 microcompact.py
    state.py
  ui/               repl.py
tests/              mirrors src/
"""
    found = blocks(block)
    assert "cli.py" in found[""] and "pipeline.py" in found["context"] and "state.py" in found["context"]
    assert "microcompact.py" in found["context/layers"] and "state.py" not in found["context/layers"]
    assert "repl.py" in found["ui"] and "pipeline.py" not in found[""] and "/tests" in found
