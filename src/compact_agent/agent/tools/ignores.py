"""What git ignores, as grep and glob skip it: inside a git work tree, the paths its `.gitignore`
files, `.git/info/exclude` and the user's global excludes file (`core.excludesFile`, else
`~/.config/git/ignore`) ignore — the generated `build/`, the 50 MB `app.log` — as ripgrep-based
tools do.

The rules are read here, in Python (the `pathspec` library matches gitignore patterns), not asked
of git: grep and glob run without asking the user, and git run in a repository runs what its
config names (`core.fsmonitor`), refuses one another user owns, and may not be installed. The
files are read as the walk enters each folder, so the walk's bounds cover them, and each is read
opened as checked (a FIFO in a `.gitignore`'s place is no rule, not a wait). A symlinked
`.gitignore` or `info/exclude` is not followed (git refuses a symlinked `.gitignore`): it could
lead out of the project. A UTF-8 byte-order mark before the first rule is dropped, as git drops
it, and a line git passes over (`\\`, `!`, `a\\`, `[z-a]`) is dropped alone: the other rules
hold, no search fails, and no rule's text is ever put in an error.

A repository is one whose `.git` this user (or root) owns, as git itself refuses the others: a
`/tmp/.git` made by someone else hides nothing. A folder holding its own `.git` inside the
searched tree (a nested repository, a submodule) starts its own rules. Tracked files a pattern
matches are skipped too (ripgrep does the same: the index is not read). An explicit path naming
an ignored file or folder is still searched: a pattern that ignores the searched folder itself is
not applied below it.
"""

from __future__ import annotations

import os
import re
from pathlib import Path

import pathspec
from pathspec.patterns.gitignore.spec import GitIgnoreSpecPattern

from ..safety.checked_open import open_read

MAX_RULES_BYTES = 1 << 20  # of one ignore file: past this, the rest is not read


def read_rules(path: Path, follow: bool = False) -> str:
    """An ignore file's text, '' when there is none (or it is no regular file, or unreadable). A
    link at its end is followed only when `follow` (a config file, the user's own excludes file):
    a symlinked `.gitignore` or `info/exclude` reads as none."""
    try:
        with open_read(path.resolve() if follow else path.parent.resolve() / path.name) as fh:
            return fh.read(MAX_RULES_BYTES).decode("utf-8", "surrogateescape")
    except (OSError, RuntimeError, ValueError):
        return ""


def _owned(path: Path) -> bool:
    """Whether `path` (a `.git`) belongs to this user or root: git refuses a repository another owns."""
    me = getattr(os, "geteuid", None)  # none on Windows, where files have no such owner
    try:
        return me is None or os.stat(path).st_uid in (me(), 0)
    except OSError:
        return False


def _git_dir(dot_git: Path) -> Path:
    """The folder holding a repository's `info/exclude`: `.git` itself, or, where `.git` is a file
    (a linked work tree, a submodule), the `gitdir:` it names, and its `commondir` if it has one."""
    if dot_git.is_dir():
        return dot_git
    text = read_rules(dot_git, follow=True)
    if not text.startswith("gitdir:"):
        return dot_git
    git_dir = dot_git.parent / text[len("gitdir:"):].strip()
    common = read_rules(git_dir / "commondir", follow=True).strip()
    return git_dir / common if common else git_dir


_EXCLUDES_FILE = re.compile(r"\s*excludesfile\s*=\s*(.*?)\s*$", re.IGNORECASE)


def _excludes_setting(config: str) -> str | None:
    """`core.excludesFile` as a git config file's text sets it (its last setting), else None."""
    value, section = None, ""
    for line in config.splitlines():
        stripped = line.strip()
        if stripped.startswith("["):
            section = stripped[1:].split("]", 1)[0].strip().lower()
        elif section == "core" and (m := _EXCLUDES_FILE.match(line)):
            raw = m.group(1)
            if raw.startswith('"'):
                raw = raw[1:].split('"', 1)[0]
            else:
                raw = re.split(r"\s[#;]", raw, maxsplit=1)[0].strip()
            value = raw
    return value


def global_excludes(git_dir: Path) -> Path | None:
    """The excludes file git reads for every repository of this user: `core.excludesFile` (the
    repository's config over the user's, as git reads them), else `$XDG_CONFIG_HOME/git/ignore`."""
    home = Path(os.environ.get("HOME") or os.path.expanduser("~"))
    xdg = Path(os.environ.get("XDG_CONFIG_HOME") or home / ".config")
    user_config = os.environ.get("GIT_CONFIG_GLOBAL")
    configs = [xdg / "git" / "config", Path(user_config) if user_config else home / ".gitconfig",
               git_dir / "config"]
    named = None
    for config in configs:
        if (setting := _excludes_setting(read_rules(config, follow=True))) is not None:
            named = setting
    if named is None:
        return xdg / "git" / "ignore"
    if named.startswith("~/"):
        named = str(home / named[2:])
    return Path(named) if named and os.path.isabs(named) else None


def _spec(text: str) -> pathspec.GitIgnoreSpec | None:
    """An ignore file's rules, each line compiled alone: one git passes over (`!`, a trailing `\\`, a
    range `[z-a]`) is dropped, as git drops it: compiled at once, the whole file failed on it."""
    patterns = []
    for line in text.removeprefix("\ufeff").split("\n"):
        try:
            patterns.append(GitIgnoreSpecPattern(line.removesuffix("\r")))
        except (ValueError, re.error, RecursionError, OverflowError):
            continue
    return pathspec.GitIgnoreSpec(patterns) if any(p.include is not None for p in patterns) else None


class Rules:
    """The ignore rules in force in one folder of a repository: each ignore file's patterns with
    the folder they are relative to (`base`, relative to the repository's root, '' for it), the
    outermost first, so a deeper `.gitignore` overrides the ones above it, as in git."""

    def __init__(self, specs: tuple[tuple[str, pathspec.GitIgnoreSpec], ...]) -> None:
        self.specs = specs

    @classmethod
    def of_repository(cls, root: Path) -> Rules | None:
        """The rules that hold at the root of the repository at `root` (its `.git` there), before its
        own `.gitignore` (read as the walk lists that folder); None when another user owns it."""
        dot_git = root / ".git"
        if not _owned(dot_git):
            return None
        git_dir = _git_dir(dot_git)
        texts = [read_rules(path, follow=True) if (path := global_excludes(git_dir)) else "",
                 read_rules(git_dir / "info" / "exclude")]
        return cls(tuple(("", spec) for text in texts if (spec := _spec(text)) is not None))

    def ignored(self, rel: str, folder: bool) -> bool:
        """Whether the entry at `rel` (relative to the repository's root) is ignored."""
        verdict = None
        for base, spec in self.specs:
            if base:
                if not rel.startswith(base + "/"):
                    continue
                sub = rel[len(base) + 1:]
            else:
                sub = rel
            result = spec.check_file(sub + "/" if folder else sub).include
            if result is not None:
                verdict = result
        return bool(verdict)

    def with_file(self, base: str, text: str) -> Rules:
        """These rules and those of a `.gitignore` in the folder `base`."""
        spec = _spec(text)
        return self if spec is None else Rules((*self.specs, (base, spec)))

    def not_ignoring(self, rel: str) -> Rules:
        """These rules without the patterns that ignore the folder `rel` itself, which was named as
        the path to search: what it holds is searched, its contents checked against the rest."""
        kept = []
        for base, spec in self.specs:
            sub = rel[len(base) + 1:] if base else rel
            if base and not rel.startswith(base + "/"):
                kept.append((base, spec))
                continue
            patterns = [p for p in spec.patterns if not (p.include and p.match_file(sub + "/") is not None)]
            if patterns:
                kept.append((base, pathspec.GitIgnoreSpec(patterns)))
        return Rules(tuple(kept))


def rules_above(root: Path) -> tuple[Rules, str] | None:
    """The rules in force at the resolved folder `root` (before its own `.gitignore`), and its path
    relative to its repository's root ('' at the root): None outside a repository this user owns.
    When `root` lies in an ignored folder, or is one, the patterns that ignore it are dropped."""
    for top in (root, *root.parents):
        if os.path.lexists(top / ".git"):
            break
    else:
        return None
    rules = Rules.of_repository(top)
    if rules is None:
        return None
    rel = root.relative_to(top).as_posix() if root != top else ""
    folder = top
    for part in Path(rel).parts if rel else ():
        rules = rules.with_file(folder.relative_to(top).as_posix() if folder != top else "",
                                read_rules(folder / ".gitignore"))
        folder = folder / part
    if rel and any(rules.ignored(prefix, True) for prefix in _prefixes(rel)):
        rules = rules.not_ignoring(rel)
    return rules, rel


def _prefixes(rel: str) -> list[str]:
    parts = rel.split("/")
    return ["/".join(parts[: i + 1]) for i in range(len(parts))]
