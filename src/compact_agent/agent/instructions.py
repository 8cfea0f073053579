"""Instruction files: what the user and the project tell the agent before any request.

As Claude Code and Codex users lay them out: a user-level file (`AGENTS.md` or `CLAUDE.md` beside
the user config file) for every project, then `AGENTS.md` and `CLAUDE.md` in each directory from
the repository root (the nearest folder holding `.git`) down to the working directory, so a
monorepo's root rules and a package's own rules both apply; the nearer file comes later and wins
where they disagree. The same file reached twice (a symlink `CLAUDE.md -> AGENTS.md`) counts once.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

NAMES = ("AGENTS.md", "CLAUDE.md")
MAX_CHARS = 40_000  # all files together: they are sent with every request


@dataclass
class Instructions:
    text: str
    paths: list[Path]


def repo_root(cwd: Path) -> Path | None:
    for d in (cwd, *cwd.parents):
        if (d / ".git").exists():
            return d
    return None


def search_dirs(cwd: Path) -> list[Path]:
    """The repository root first, down to `cwd` (just `cwd` outside a repository)."""
    root = repo_root(cwd)
    if root is None:
        return [cwd]
    chain = [cwd]
    while chain[-1] != root:
        chain.append(chain[-1].parent)
    return list(reversed(chain))


def load_instructions(cwd: Path, user_dir: Path | None) -> Instructions:
    candidates = [user_dir / n for n in NAMES] if user_dir is not None else []
    candidates += [d / n for d in search_dirs(cwd.resolve()) for n in NAMES]
    seen: set[Path] = set()
    sections: list[str] = []
    paths: list[Path] = []
    room = MAX_CHARS
    for p in candidates:
        try:
            real = p.resolve()
            if real in seen or not p.is_file():
                continue
            seen.add(real)
            text = p.read_text(encoding="utf-8", errors="replace").strip()
        except OSError:
            continue
        if not text or room <= 0:
            continue
        text = text[:room]
        room -= len(text)
        label = "user instructions" if user_dir is not None and p.parent == user_dir else _shown(p, cwd)
        sections.append(f"## {label}\n{text}")
        paths.append(p)
    return Instructions("\n\n".join(sections), paths)


def _shown(p: Path, cwd: Path) -> str:
    try:
        return str(p.relative_to(cwd.resolve())) or p.name
    except ValueError:
        return str(p)
