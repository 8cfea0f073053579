"""Every command the README and the docs show is one the program accepts.

A reader copies commands from the pages. Each `compact-agent` command shown in a shell block or an
inline code span is parsed by the real command line (flags, values, subcommands) without running
it; each `make` target shown exists; each benchmark script shown exists and accepts the options
shown; each extra named in a `pip install` exists. (The library page's programs run whole, in
test_docs.py; `make demo` runs in test_demo.py.)
"""

from __future__ import annotations

import re
import shlex
import tomllib
from pathlib import Path

import pytest
import typer

from compact_agent.cli import app
from compact_agent.cli_query import split_query

ROOT = Path(__file__).resolve().parents[1]
PAGES = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
_BLOCK = re.compile(r"^```(?:sh|bash|console|shell)\n(.*?)^```$", re.S | re.M)
_INLINE = re.compile(r"`((?:\.venv/bin/)?compact-agent\b[^`]*)`")
_ENV = re.compile(r"^(?:[A-Z_][A-Z0-9_]*=\S*\s+)+")


def _shown() -> list[tuple[str, str]]:
    """(page, command line) for every shell line and inline `compact-agent ...` span."""
    out: list[tuple[str, str]] = []
    for page in PAGES:
        text = page.read_text(encoding="utf-8")
        for block in _BLOCK.findall(text):
            for line in block.splitlines():
                line = line.split(" # ", 1)[0].strip()
                if line and not line.startswith("#"):
                    out.append((page.name, line))
        # A synopsis in prose: optional parts in brackets go, placeholders (QUERY, W, ID) stand for a value.
        for span in _INLINE.findall(text):
            span = re.sub(r"\s*\[[^\]]*\]", "", span)
            out.append((page.name, re.sub(r"\b[A-Z][A-Z_]*\b(?!=)", "32000", span)))
    return out


def _segments(line: str) -> list[list[str]]:
    """The simple commands of a shell line (pipes and `&&` split), environment prefixes dropped."""
    out = []
    for part in re.split(r"\s*(?:\|\||&&|\|)\s*", line):
        part = _ENV.sub("", part.strip())
        if part:
            try:
                out.append(shlex.split(part))
            except ValueError:
                out.append(part.split())
    return out


SHOWN = _shown()
AGENT = [(p, seg) for p, line in SHOWN for seg in _segments(line)
         if seg and seg[0] in ("compact-agent", ".venv/bin/compact-agent")]


def test_the_pages_show_commands() -> None:
    assert len(AGENT) >= 15


@pytest.mark.parametrize(("page", "argv"), AGENT, ids=lambda v: " ".join(v) if isinstance(v, list) else v)
def test_each_compact_agent_command_shown_parses(page: str, argv: list[str]) -> None:
    args = [a for a in argv[1:] if a not in ("...", "…")]
    # A subcommand named in prose without its arguments ("`compact-agent analyze`") is a name, not a run.
    required = {"analyze": ["x"]}
    if len(args) == 1 and args[0] in required:
        args += required[args[0]]
    group = typer.main.get_command(app)  # typer's own click: not the `click` package's classes
    try:
        ctx = group.make_context("compact-agent", split_query(args, typer.main.get_command(app)), resilient_parsing=False)
        with ctx:
            rest = [*getattr(ctx, "protected_args", getattr(ctx, "_protected_args", [])), *ctx.args]
            if rest:
                name, sub, sub_args = group.resolve_command(ctx, rest)
                assert sub is not None, f"{page}: {' '.join(argv)}: unknown command {name}"
                sub.make_context(name or "", sub_args, parent=ctx).close()
    except typer.Exit as done:  # --version, --help (also a command's: `analyze --help`): parsed, and they end there
        assert done.exit_code == 0


MAKE = [seg for _, line in SHOWN for seg in _segments(line) if seg and seg[0] == "make"]


def test_each_make_target_shown_exists() -> None:
    targets = set(re.findall(r"^([\w-]+):", (ROOT / "Makefile").read_text(), re.M))
    shown = {seg[1] for seg in MAKE if len(seg) > 1}
    assert shown and shown <= targets


SCRIPTS = [(p, seg) for p, line in SHOWN for seg in _segments(line)
           if len(seg) > 1 and seg[0].endswith("python") and seg[1].startswith("benchmarks/")]


@pytest.mark.parametrize(("page", "argv"), SCRIPTS, ids=lambda v: " ".join(v) if isinstance(v, list) else v)
def test_each_benchmark_run_shown_takes_its_options(page: str, argv: list[str]) -> None:
    source = (ROOT / argv[1]).read_text(encoding="utf-8")
    for option in re.findall(r"--[\w-]+", " ".join(argv[2:])):
        assert f'"{option}"' in source, f"{page}: {argv[1]} takes no {option}"


def test_each_script_and_module_named_exists() -> None:
    named = {(page.name, m) for page in PAGES
             for m in re.findall(r"\b((?:benchmarks|tests|src/compact_agent)/[\w/.-]+\.(?:py|md))", page.read_text())}
    src = {(page.name, m) for page in PAGES
           for m in re.findall(r"(?<![\w/])((?:context|replay|agent|session|ui)/[\w/]+\.py)", page.read_text())}
    missing = [(page, m) for page, m in named if not (ROOT / m).exists()]
    missing += [(page, m) for page, m in src if not (ROOT / "src" / "compact_agent" / m).exists()]
    assert named and src and not missing, missing


def test_each_extra_shown_in_an_install_exists() -> None:
    extras = set(tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["optional-dependencies"])
    shown = {e for _, line in SHOWN for e in re.findall(r"compact-agent\[(\w+)\]", line)}
    assert shown and shown <= extras
