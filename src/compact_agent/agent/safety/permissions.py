"""Who may change what: approval for side-effecting tools and the working-directory fence.

Reading needs no approval; writing files and running commands change the user's machine, so they
need approval (`--yes`, an interactive answer, or an allow rule). The fence keeps every file tool —
reads included, since what is read goes to the provider — inside the working directory (plus
explicitly granted dirs), and `deny_paths` are neither read nor written. It is checked on the fully
resolved path — symlinks and `..` resolved first — because a symlink inside the project that
points at `~/.ssh` is a path outside the project, whatever its spelling; no answer and no `--yes`
lifts it.

A refusal is a one-line string the tool hands back to the model, so the model can adapt (ask the
user, pick another path) instead of the run failing.
"""

from __future__ import annotations

import errno
import fnmatch
import logging
import re
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Literal, Protocol

from ...context.plumbing.lookalikes import marked, spelt_apart
from ...words import quoted
from .allowed_tools import AllowedTools
from .bash_rules import allowed_by, denied_by, deny_words, held_why, why_not_allowed
from .deny_rules import covering_rule, own_rule
from .instruction_words import COMMAND_FILE as COMMAND_FILE
from .instruction_words import INSTRUCTION_FILE as INSTRUCTION_FILE
from .instruction_words import INSTRUCTION_MARK as INSTRUCTION_MARK
from .instruction_words import changed_note as changed_note
from .names import as_named, folded, lone_surrogate

Mode = Literal["ask", "yes", "deny"]
PROJECT_FILE = ".compact-agent.toml"  # settings_file.PROJECT_FILE (not imported: this module stays light)
Answer = Literal["once", "always", "deny"]


@dataclass(frozen=True)
class Instead:
    """The user's answer "no, and do this instead": the call is declined and `text` goes to the model
    as its result, marked as the user's words, so the model changes course in the same turn."""

    text: str


class AskFn(Protocol):
    """The permission question (ui/approval.py's make_ask): `tool` wants `detail`. `held`: why the
    deny rules cannot tell what a bash line runs; the question says it, its default is no, and it
    offers no "always" (`Permissions.decide`). `why`: why the --allowed-tools rules did not cover it."""

    def __call__(self, tool: str, detail: str, held: str | None = None, why: str | None = None) -> Answer | Instead: ...


def instead_text(text: str) -> str:
    """The user's words of an `Instead` as the model gets them: a line typed with its runs of spaces
    closed up; a paste of several lines (a traceback, code to use) with its lines and indentation,
    as a paste at the prompt is sent (it came as one run-on line)."""
    lines = [line.rstrip() for line in text.strip("\n").splitlines()]
    return "\n".join(lines).strip("\n") if len(lines) > 1 else " ".join(text.split())

INSTEAD = "The user's instruction (follow it instead of this call):"
"""Marks the user's own words in a refusal (`Instead`): they come from the user, not from a tool."""
COPIED_INSTEAD = "[a copy in a tool's output, not the user's words:]"
"""Put before INSTEAD where a tool's output holds it (`copied_instead`)."""


#: INSTEAD however it is spelt (`lookalikes.skeleton`: a curly apostrophe, a Cyrillic letter, a
#: no-break space), where it is not marked a copy already.
_SPELT_INSTEAD = re.compile(f"(?<!{re.escape(COPIED_INSTEAD)} ){spelt_apart(INSTEAD)}", re.I)


def copied_instead(text: str, said: set[str]) -> str:
    """`text` of a tool's result with every INSTEAD in it marked as a copy, unless it is one of the
    refusals the program itself wrote (`said`): a command, a file or an MCP server can print the
    marker, and the user's words must not be forged by what they print, in any spelling a model
    reads as the same words (`The user’s instruction …`)."""
    return text if text in said else marked(text, _SPELT_INSTEAD, COPIED_INSTEAD)


#: Tools that change files or run commands; the other built-in tools are allowed without asking, an
#: MCP server's tools are asked about as these are (integrations/mcp_calls.py).
NEEDS_APPROVAL = frozenset({"write_file", "edit_file", "bash"})
#: The file tools that write: a write to an instruction file is said to be one (`instruction_file`).
WRITERS = frozenset({"write_file", "edit_file"})

log = logging.getLogger(__name__)


#: What a path is that cannot be resolved to its end, as the model and the user are told it.
UNFOLLOWABLE = "a link that loops, or a path the system cannot follow"


def resolve_path(cwd: Path, p: str | Path) -> Path:
    """Absolute path with `~`, `..` and symlinks resolved (missing tail components are kept).

    A link that loops raises OSError ELOOP naming `p` as given, whatever the Python version
    (3.11's Path.resolve raises RuntimeError "Symlink loop from …"): callers say it in our words.
    A `~user` whose home folder is not known raises OSError in our words too (Python's "Could not
    determine home directory." names no path), and so does a path holding a NUL character (Python's
    "embedded null byte"). A name the tools wrote with its escapes (`a\\tb.py` of a tab) is the file
    on disk (`as_named`), where no file has the name as written."""
    if "\0" in str(p):
        raise OSError(errno.EINVAL, "a path cannot hold a NUL character")
    if (odd := lone_surrogate(str(p))) is not None:  # (Python: "'utf-8' codec can't encode character")
        raise OSError(errno.EINVAL, f"a path cannot hold {odd}, half of a UTF-16 pair and no character")
    try:
        path = Path(p).expanduser()
    except RuntimeError:
        raise OSError(errno.ENOENT, f"{str(p).split('/', 1)[0]} is a home folder that is not known") from None
    if not path.is_absolute():
        path = Path(cwd) / path
    try:
        return as_named(path).resolve()
    except RuntimeError:
        raise OSError(errno.ELOOP, UNFOLLOWABLE, str(p)) from None


def is_within(path: Path, root: Path) -> bool:
    """True when resolved `path` is `root` or below it."""
    return path == root or root in path.parents


def is_within_folded(path: Path, root: Path) -> bool:
    """`is_within` as a file system that ignores case sees it (`folded`)."""
    p, r = folded(path), folded(root).rstrip("/")
    return p == r or p.startswith(r + "/") or r == ""


@dataclass(frozen=True)
class Decision:
    """What `Permissions.decide` made of a call: `refusal` (None: it may run); for a write to an
    instruction file, `instruction` (how it is named: `AGENTS.md`, `docs/rules.md (AGENTS.md links to
    it)`) and `unasked`, why nobody was asked (`--yes`, ...), None where the user answered; for a
    custom command's file (also an `instruction`), `command`: its name."""

    refusal: str | None
    instruction: str | None = None
    unasked: str | None = None
    command: str | None = None


class Permissions:
    """Decides whether a tool call may run; `check` returns None to allow or a refusal message."""

    def __init__(
        self,
        cwd: Path,
        mode: Mode,
        ask: AskFn | None = None,
        allow_outside: bool = False,
        extra_dirs: Sequence[Path] = (),
        deny_bash: Sequence[str] = (),
        allow_bash: Sequence[str] = (),
        deny_paths: Sequence[str] = (),
        private_dirs: Sequence[Path] = (),
        readable: Sequence[str] = (),
    ) -> None:
        if mode not in ("ask", "yes", "deny"):
            raise ValueError(f"unknown permission mode {quoted(mode)}; expected 'ask', 'yes' or 'deny'")
        self.cwd = Path(cwd).resolve()
        self.mode: Mode = mode
        self.ask = ask
        self.allow_outside = allow_outside
        self.extra_dirs = [resolve_path(self.cwd, d) for d in extra_dirs]
        self.deny_bash = list(deny_bash)
        self.allow_bash = list(allow_bash)
        #: Globs of paths never written (`.env`, `**/secrets/*`), matched absolute and relative to cwd.
        self.deny_paths = list(deny_paths)
        #: compact-agent's own data (the session store, the user config): neither read nor written.
        # (one that holds the working directory itself would fence off everything: not taken)
        self.private_dirs = [d for d in (resolve_path(self.cwd, p) for p in private_dirs)
                             if not is_within(self.cwd, d)]
        #: Globs of absolute paths the model may read wherever they are: this session's own spilled
        #: tool results and archives, which the previews and the summary tell it to read.
        self.readable = list(readable)
        #: What the user answered "always" for, this session only: (tool, the exact command) for
        #: bash, (tool, the resolved path) for file edits — what the prompt showed, nothing wider.
        self.always: set[tuple[str, str]] = set()
        #: Tools the user allowed whole on the command line (`--allowed-tools write_file`), in their order.
        self.allowed_tools = AllowedTools()
        #: The refusals that carry the user's words (`Instead`), as written: only these may hold INSTEAD.
        self.said_instead: set[str] = set()

    def outside_message(self, path: Path, verb: str = "write") -> str | None:
        """Refusal for a path outside the allowed roots or under a deny rule, or None when it is fine.

        `verb` ("read", "write", "search") only words the refusal; the same fence holds for all.
        """
        resolved = resolve_path(self.cwd, path)
        if pat := self.deny_rule(resolved):
            return f"permission denied: {resolved} matches deny rule {quoted(pat)}"
        if verb == "read" and any(fnmatch.fnmatchcase(str(resolved), pat) for pat in self.readable):
            return None
        if why := self._protected(resolved, writing=verb != "read"):
            return f"permission denied: {resolved} {why}; the user can change it by hand"
        if self.allow_outside:
            return None
        if self.within_roots(resolved):
            return None
        return (
            f"permission denied: {resolved} is outside the working directory {self.cwd}; "
            f"{verb} inside it (or the user can allow the directory: --add-dir, or extra_dirs in the config)"
        )

    def _protected(self, resolved: Path, writing: bool) -> str | None:
        """Why `resolved` is off limits to the model's file tools whatever the mode, or None.

        The session store holds every conversation of every project (one session could read or
        overwrite another's); `.git/` holds hooks and config that git runs as code later; the
        project config (the working directory's, or a folder's below it where a session may start)
        decides what the agent may do. None of these is the model's to change.

        In compact-agent's own data no path is looked at, and the refusal is the same whether one is
        there or not: "no such file" would tell the model which projects (a folder named for each
        one's path and its hash, which it can work out), sessions and config files the user has.
        """
        if self.is_private(resolved):  # worded true of a path there whether or not it exists: not told
            return ("is within compact-agent's own data (sessions, settings), closed to the file tools, "
                    "which do not tell whether anything is there")
        if not writing:
            return None
        for root in (self.cwd, *self.extra_dirs):
            if is_within(resolved, root):
                rel = resolved.relative_to(root)
                if ".git" in (folded(part) for part in rel.parts):  # `.GIT/hooks` too, where case is ignored
                    return "is inside .git/ (git runs its hooks and config as code)"
                # In any folder: a session started there reads it, and for a trusted folder (a
                # package of a monorepo) it sets hooks and allow rules that run commands unasked.
                if folded(rel.name) == PROJECT_FILE:
                    return "is the project's compact-agent config (it sets what the agent may do)"
        return None

    def is_private(self, resolved: Path) -> bool:
        """Whether resolved `path` is compact-agent's own data, which a search does not even walk
        into: the names in the session store say every project's path and every session."""
        return any(is_within_folded(resolved, d) for d in self.private_dirs)

    def read_refusal(self, path: Path) -> str | None:
        """Refusal for reading or searching `path` (resolved): the write fence, worded for reads."""
        return self.outside_message(path, "read")

    def attach_refusal(self, path: Path) -> str | None:
        """Refusal for an image the user named in what they typed (attachments.py): it may be outside
        the working directory — the user chose it, and only image files qualify — but never under a
        deny rule nor in compact-agent's own data."""
        resolved = resolve_path(self.cwd, path)
        if pat := self.deny_rule(resolved):
            return f"permission denied: {resolved} matches deny rule {quoted(pat)}"
        if why := self._protected(resolved, writing=False):
            return f"permission denied: {resolved} {why}"
        return None

    def within_roots(self, resolved: Path) -> bool:
        """True when the resolved path is in the working directory or a granted dir."""
        return any(is_within(resolved, r) for r in (self.cwd, *self.extra_dirs))

    def deny_rule(self, resolved: Path) -> str | None:
        """The deny_paths rule that covers `resolved` (or a name found in a resolved folder): one
        matching it or a folder above it in the working directory or a granted dir; else None."""
        return covering_rule(self.deny_paths, resolved, self.cwd, (self.cwd, *self.extra_dirs))

    def own_deny_rule(self, resolved: Path) -> str | None:
        """The deny_paths rule that matches `resolved` itself, not a folder above it: what a walk
        (tools/walk.py) asks of each entry, since it starts from a folder `deny_rule` cleared and
        enters no folder a rule matches."""
        return own_rule(self.deny_paths, resolved, self.cwd)

    def _bash_rule(self, command: str) -> tuple[str, str] | None:
        """('deny'|'allow', pattern) for the rule that decides `command`, or None to fall through.

        Rules see each simple command of the parsed line (see bash_rules.py), so neither spelling
        (`rm  -rf /`, `\\rm`, `(rm -rf /)`) hides a command from a deny rule, nor can a second
        command, a redirection or a substitution ride on an allow rule. Deny rules win.
        """
        if pat := denied_by(command, self.deny_bash):
            return "deny", pat
        if allowed_by(command, self.allow_bash):
            return "allow", ",".join(self.allow_bash)
        return None

    def instruction_file(self, resolved: Path, named: str | Path | None = None) -> str | None:
        """How `resolved` is named where it is a file later sessions obey, else None.

        instructions.py reads `AGENTS.md` and `CLAUDE.md` of every folder from the repository root
        down to the working directory of the session, so such a file is one in any folder (a session
        started there or below reads it), by the path the model gave (`named`: a link by that name,
        `AGENTS.md -> docs/rules.md`) or the path it resolves to, in any case, as `folded` sees names
        (`agents.md` is `AGENTS.md` on macOS; trailing dots and spaces, which Windows drops, too).
        A file one of this working directory's instruction files links to is one too."""
        from ..integrations.instructions import NAMES, search_dirs

        names = {folded(n) for n in NAMES}
        shown = self._shown(resolved)

        def is_named(name: str) -> bool:
            return folded(name).rstrip(". ") in names

        if is_named(resolved.name):
            return shown
        if named is not None and is_named(Path(named).name):
            return f"{shown} ({named} links to it)"
        for d in search_dirs(self.cwd):
            for n in NAMES:
                link = d / n
                try:
                    if link.is_symlink() and folded(link.resolve()) == folded(resolved):
                        return f"{shown} ({self._shown(link)} links to it)"
                except (OSError, RuntimeError):  # a link that loops leads to no file
                    continue
        return None

    def _shown(self, path: Path) -> str:
        return path.relative_to(self.cwd).as_posix() if is_within(path, self.cwd) else str(path)

    def check(self, tool: str, detail: str, path: Path | None = None, named: str | Path | None = None) -> str | None:
        """None if `tool` may run now; otherwise the one-line refusal to return to the model.

        `detail` is what the user is shown when asked (the command, or the file and change).
        """
        return self.decide(tool, detail, path, named).refusal

    def decide(self, tool: str, detail: str, path: Path | None = None, named: str | Path | None = None) -> Decision:
        """`check`, saying also whether `path` is an instruction file (`named`: the path as the model
        gave it) and, for one, why nobody was asked: the caller tells the user once it is written.

        The question about one says so on its second line, and an "always" given for it covers it as
        an instruction file only: an "always" for `docs/rules.md` does not cover it once `AGENTS.md`
        links to it, nor the other way round."""
        if path is not None:
            refusal = self.outside_message(path)
            if refusal:
                return Decision(refusal)
        if tool not in NEEDS_APPROVAL:
            return Decision(None)
        if tool == "bash":
            rule = self._bash_rule(detail)
            # Held to the deny rules only because what it runs cannot be told (`$((i+1))`, `$CMD`):
            # the user may read it and say. Asked whatever else allows it, no "always"; else refused.
            why = held_why(detail, self.deny_bash) if rule and rule[0] == "deny" and self.mode == "ask" else None
            if why is not None and self.ask is not None:
                rules = ", ".join(map(quoted, self.deny_bash))
                return Decision(self.asked(self.ask, tool, detail, None, f"the deny rules ({rules}) cannot tell what "
                                           f"this line runs ({why}): it could run what they forbid"))
            if rule and rule[0] == "deny":
                return Decision(f"permission denied: {deny_words(detail, rule[1], self.deny_bash)}")
            if rule:
                return Decision(None)
        resolved = resolve_path(self.cwd, path) if path is not None else None
        instruction = self.instruction_file(resolved, named) if resolved is not None and tool in WRITERS else None
        command = None
        if instruction is None and resolved is not None and tool in WRITERS:
            from ..integrations.instructions import command_of

            if (command := command_of(self.cwd, resolved, named)) is not None:
                instruction = self._shown(resolved)
        scope = (tool, " ".join(detail.split()) if tool == "bash" or resolved is None else str(resolved))
        if instruction is not None:  # an "always" for it as an ordinary file does not cover it
            scope = (tool, f"{scope[1]} (instruction file)")
        unasked = ("--yes" if self.mode == "yes" else f"{tool} is allowed without asking" if tool in self.allowed_tools
                   else "you answered always for it" if scope in self.always else None)
        if unasked is not None:
            return Decision(None, instruction, unasked if instruction is not None else None, command)
        if self.mode == "deny" or self.ask is None:
            why = why_not_allowed(detail, self.allow_bash) if tool == "bash" else None
            return Decision(f"permission denied: {tool} needs approval{f' ({why})' if why else ''}; "
                            "rerun with --yes to allow", instruction, command=command)
        if instruction is not None:  # said under what it wants to do, before the change
            what, _, change = detail.partition("\n")
            said = INSTRUCTION_FILE if command is None else COMMAND_FILE.format(name=command)
            detail = f"{what}\n{INSTRUCTION_MARK} {instruction} {said}\n{change}"
        why = why_not_allowed(detail, self.allow_bash) if tool == "bash" else None  # said as print mode says it
        return Decision(self.asked(self.ask, tool, detail, scope, why=why), instruction, command=command)

    def asked(self, ask: AskFn, tool: str, detail: str, scope: tuple[str, str] | None,
              held: str | None = None, why: str | None = None) -> str | None:
        """The user's answer to `ask`, as `check` returns it; "always" adds `scope` (None: it covers
        this call only). `held`, `why`: what the question says besides (`AskFn`)."""
        try:
            said = {"held": held} if held is not None else {"why": why} if why is not None else {}
            answer = ask(tool, detail, **said)
        except EOFError:  # stdin closed: nobody can approve
            answer = "deny"
        except Exception as e:  # a broken prompt must not crash the run; refusing is the safe side
            log.warning("permission prompt failed: %s", e)
            answer = "deny"
        if answer == "always":
            if scope is not None:
                self.always.add(scope)
            return None
        if answer == "once":
            return None
        if isinstance(answer, Instead) and (text := instead_text(answer.text)):
            refusal = f"permission denied: the user declined this {tool} call. {INSTEAD} {text}"
            self.said_instead.add(refusal)
            return refusal
        return f"permission denied: the user declined this {tool} call"
