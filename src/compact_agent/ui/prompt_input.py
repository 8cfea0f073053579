"""The REPL's input line: multi-line entry, completion, and one history per project.

- Enter sends; Esc then Enter (or Alt-Enter), or a line ending in `\\`, starts a new line instead —
  the two ways Claude Code users type a long message. The line breaks of a paste that comes as keys
  (a terminal without bracketed paste) are line breaks of the input: it is sent with Enter once
  pasted, as one message (paste_keys.py).
- Tab completes slash commands, the session id of `/resume ID` (other sessions of the project,
  newest first, each with its first prompt), the model name of `/model NAME` (the known models), a
  command's options (`/compact --pre`: `--preview`; tab_values.py) and `@path` mentions (paths relative to the working directory; a name typed without its folder,
  `@file_12`, that no path begins with offers the files anywhere below whose name starts with it,
  then those whose name holds it); a
  path with a space is written escaped (`@odd\\ dir/`), or in the quote the mention was begun with
  (`@"odd dir/`, open for a folder), and Tab completes on inside it (agent/run/mention_syntax.py).
- Up-arrow history is shared by every session of the project (`prompt_history` beside them), so a
  command typed yesterday is one key away after `--continue` or `/clear`; Ctrl-R searches it (Enter or
  Esc takes the line found into the input, to edit or send with Enter; Ctrl-G gives up). An API
  key typed or pasted into a line is kept there as `[REDACTED]`, as in the session file. Each entry
  names the session it was typed in: removing that session takes it out (session/prompt_history.py).
- Ctrl-O shows the last turn's tool output in full above the prompt (what is typed stays), the key
  Claude Code uses; Ctrl-R keeps its shell meaning.
- A paste of more than a few lines shows as `[pasted 240 lines]` while it is edited and after it is
  sent; the message, the session and the history get it whole (pastes.py). An edit that touches the
  placeholder takes it whole (paste_guard.py).
"""

from __future__ import annotations

import contextlib
import os
import re
import sys
import time
from collections.abc import Awaitable, Callable, Iterable
from pathlib import Path
from typing import Any

from prompt_toolkit import PromptSession
from prompt_toolkit.application.current import create_app_session, get_app_session
from prompt_toolkit.completion import CompleteEvent, Completer, Completion
from prompt_toolkit.document import Document
from prompt_toolkit.filters import is_searching
from prompt_toolkit.history import FileHistory, InMemoryHistory
from prompt_toolkit.key_binding import KeyBindings, KeyPressEvent
from prompt_toolkit.keys import Keys
from prompt_toolkit.output.vt100 import Vt100_Output
from prompt_toolkit.utils import is_dumb_terminal

from .. import secrets
from ..agent.run.mention_syntax import comparable, partial, written
from ..session import prompt_history
from ..session.files import ensure_private_file
from .paste_guard import PlaceholderGuard
from .paste_keys import PasteKeys
from .pastes import Pastes
from .tab_values import Arguments, command_arguments, option_typed, options

SKIP = {".git", ".venv", "venv", "node_modules", "__pycache__", ".mypy_cache", ".pytest_cache", ".ruff_cache"}
MAX_PATH_COMPLETIONS = 50
MAX_WALKED = 50_000  # entries looked at for a name typed without its folder (named_anywhere)


class ReplCompleter(Completer):
    """`/com` → `/compact`; `@src/ma` → `@src/main.py` (directories end in `/` and complete further);
    `@odd` → `@odd\\ dir/` → `@odd\\ dir/sp\\ ace.txt`; `@"odd` → `@"odd dir/` → `@"odd dir/sp ace.txt"`."""

    def __init__(self, commands: Iterable[str] | Callable[[], Iterable[str]], cwd: Path,
                 arguments: Arguments | None = None) -> None:
        # A callable is asked at each completion: the REPL registers its commands while the prompt is up.
        self._commands = commands if callable(commands) else sorted(commands)
        self.cwd = cwd
        self.arguments = arguments  # `/resume 2026…`, `/model deep…`: the first argument's values

    @property
    def commands(self) -> list[str]:
        return sorted(self._commands()) if callable(self._commands) else self._commands

    def get_completions(self, document: Document, complete_event: CompleteEvent) -> Iterable[Completion]:
        text = document.text_before_cursor
        if text.startswith("/") and " " not in text:
            # composed, as the names are (custom_commands), and in any case: `/Com` + Tab is /compact
            typed = comparable(text[1:]).casefold()
            for name in self.commands:
                if comparable(name).casefold().startswith(typed):
                    yield Completion("/" + name, start_position=-len(text))
            return
        if self.arguments is not None and (arg := re.fullmatch(r"/(\S+)[ \t]+(\S*)", text)) is not None:
            found = list(self.arguments(arg[1], arg[2]))
            for value, note in found:
                yield Completion(value, start_position=-len(arg[2]), display_meta=note)
            if found:
                return
        if (opt := option_typed(text)) is not None and (found := options(*opt)):  # `/compact --pre`
            yield from (Completion(v, start_position=-len(opt[1]), display_meta=note) for v, note in found)
            return
        if (mention := partial(text)) is not None:
            yield from self._paths(mention.path, mention.typed, mention.quote, mention.escaped)

    def _paths(self, typed: str, length: int, quote: str | None, escaped: bool) -> Iterable[Completion]:
        """Entries of the folder `typed` (a path so far) is in, as `@…` replacing the `length`
        characters typed of the mention, written as they began (`quote`, `escaped`) or as needed."""
        folder, _, stem = typed.rpartition("/")
        base = (self.cwd / folder) if folder else self.cwd
        try:
            entries = sorted(os.scandir(base), key=lambda e: e.name)
        except OSError:
            return
        shown = 0
        for e in entries:
            if not comparable(e.name).startswith(comparable(stem)) or e.name in SKIP or (e.name.startswith(".") and not stem.startswith(".")):
                continue
            rel = f"{folder}/{e.name}" if folder else e.name
            is_dir = e.is_dir()
            if is_dir:
                rel += "/"
            yield Completion(written(rel, folder=is_dir, quote=quote, escaped=escaped), start_position=-length,
                             display=rel)
            shown += 1
            if shown >= MAX_PATH_COMPLETIONS:
                return
        if shown or folder or not stem:
            return  # no path begins with it: a file's name, anywhere below
        for rel in named_anywhere(self.cwd, stem, MAX_PATH_COMPLETIONS - shown):
            yield Completion(written(rel, folder=False, quote=quote, escaped=escaped), start_position=-length,
                             display=rel)


def named_anywhere(root: Path, typed: str, limit: int) -> list[str]:
    """The files anywhere under `root` whose name starts with `typed`, then those whose name holds
    it (either case), nearest first, at most `limit`: `@file_12` + Tab offers `flat/file_1234.py`.
    The same folders are left out as in a listing (SKIP, hidden ones unless `typed` is), and at most
    MAX_WALKED entries are looked at, so that Tab stays quick in a big tree."""
    want = comparable(typed).lower()
    hidden = typed.startswith(".")
    starts: list[str] = []
    holds: list[str] = []
    folders = [""]
    walked = 0
    while folders and walked < MAX_WALKED and len(starts) < limit:
        folder = folders.pop(0)  # breadth first: the nearest files first
        try:
            entries = sorted(os.scandir(root / folder), key=lambda e: e.name)
        except OSError:
            continue
        for e in entries[: MAX_WALKED - walked]:
            walked += 1
            if e.name in SKIP or (e.name.startswith(".") and not hidden):
                continue
            rel = f"{folder}/{e.name}" if folder else e.name
            try:
                is_dir = e.is_dir(follow_symlinks=False)
            except OSError:
                continue
            if is_dir:
                folders.append(rel)
            elif want in (name := comparable(e.name).lower()):
                (starts if name.startswith(want) else holds).append(rel)
    return (starts + holds)[:max(0, limit)]


def key_bindings(on_expand: Callable[[], Awaitable[None]] | None = None, pastes: Pastes | None = None,
                 paste_keys: PasteKeys | None = None) -> KeyBindings:
    kb = KeyBindings()

    if pastes is not None:  # Backspace or any edit that touches a placeholder takes it whole (paste_guard.py)
        paste_binding(kb, pastes)

    if on_expand is not None:
        @kb.add("c-o")
        async def _expand(event: KeyPressEvent) -> None:
            await on_expand()

    # Not while Ctrl-R searches: prompt_toolkit's Enter (and Esc) there take the line found into the
    # input; the REPL's own Enter, which sends, threw the match away and left the search open.
    @kb.add("escape", "enter", filter=~is_searching)
    def _newline(event: KeyPressEvent) -> None:
        event.current_buffer.insert_text("\n")

    @kb.add("escape", "/")
    def _slash(event: KeyPressEvent) -> None:
        # Esc is what the REPL teaches for "stop" and "just no"; pressed at the prompt, the emacs
        # binding Esc-/ (complete) swallowed the next "/", and "/cost" went to the model as "cost".
        event.current_buffer.insert_text("/")

    @kb.add("enter", filter=~is_searching)
    def _submit(event: KeyPressEvent) -> None:
        buf = event.current_buffer
        if paste_keys is not None and paste_keys.line_break(event):
            return  # a paste's, sent as keys: the paste stays in the input as pasted
        if buf.document.text_before_cursor.endswith("\\"):
            buf.delete_before_cursor(1)
            buf.insert_text("\n")
            return
        buf.validate_and_handle()

    return kb


class RedactedHistory(FileHistory):
    """The prompt history with every registered key replaced by `[REDACTED]`: in the file, and in
    what up-arrow and Ctrl-R bring back (also from a file an earlier version wrote with the key).
    A line holding `[pasted 240 lines]` is kept with the paste in it: the placeholder means nothing
    once the line is sent. Each entry is written with the id of the session it was typed in
    (`session`, asked at each line: /clear and /resume change it), under the file's lock."""

    def __init__(self, filename: str, pastes: Pastes | None = None,
                 session: Callable[[], str | None] = lambda: None) -> None:
        super().__init__(filename)
        self.pastes = pastes
        self.session = session
        self.failed: OSError | None = None  # why the last line could not be written (`store_string`)
        self.said = False

    def load_history_strings(self) -> Iterable[str]:
        return [secrets.redact(line) for line in super().load_history_strings()]

    def append_string(self, string: str) -> None:
        super().append_string(secrets.redact(self.pastes.expand(string) if self.pastes is not None else string))

    def store_string(self, string: str) -> None:
        """Append the line to the file. One that cannot be written (a read-only or full disk) is
        kept in memory, where up-arrow finds it, and `failed` says why: raised here, inside the
        prompt's Enter, it stopped every line with a traceback and 'Press ENTER to continue'."""
        try:
            prompt_history.append(Path(os.fsdecode(self.filename)), string, self.session())
        except OSError as e:
            self.failed = self.failed or e
        else:
            self.failed, self.said = None, False  # written again: a later failure is said again

    def said_failure(self) -> str | None:
        """The warning line for the history that could not be written, once until a line is written again."""
        if self.failed is None or self.said:
            return None
        self.said = True  # in words here: error_text imports pydantic-ai, which the session's build may be importing
        why = self.failed.strerror or str(self.failed)
        return (f"compact-agent: warning: the prompt history could not be written ({why}: {os.fsdecode(self.filename)}): "
                "up-arrow recalls this run's lines, and each line you type is tried again")


class HistoryPrompt(PromptSession[str]):
    """The prompt, which says once that the history could not take a line
    (`RedactedHistory.said_failure`): under the line just entered, once the prompt is done, or
    before the next prompt for a line typed ahead during a turn; never while the prompt is drawn."""

    async def prompt_async(self, *args: Any, **kwargs: Any) -> str:
        self._say_failure()
        try:
            return await super().prompt_async(*args, **kwargs)
        finally:
            self._say_failure()

    def _say_failure(self) -> None:
        if isinstance(self.history, RedactedHistory) and (line := self.history.said_failure()) is not None:
            print(line, file=sys.stderr, flush=True)


def history_lines(path: Path) -> Callable[[], list[str]]:
    """The lines of the prompt history at `path`, read when asked (when a paste is named: the
    history the prompt loads in the background may not be loaded yet)."""
    return HistoryLines(path)


class HistoryLines:
    """The prompt history's lines, read again only when the file changed (its size, mtime or inode:
    a removal renames a rewritten file over it). Every large paste asks for them, and a history of
    years of prompts is megabytes to read and parse each time."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self._key: tuple[int, int, int] | None = None
        self._lines: list[str] = []

    def __call__(self) -> list[str]:
        try:
            st = os.stat(self.path)
        except OSError:  # none yet (or unreadable): nothing in it to avoid
            self._key = None
            return []
        key = (st.st_ino, st.st_size, st.st_mtime_ns)
        if key != self._key:
            self._lines, self._key = list(RedactedHistory(str(self.path)).load_history_strings()), key
        return self._lines


def history_path(project_root: Path) -> Path:
    return project_root / prompt_history.NAME


def make_prompt(project_root: Path, commands: Iterable[str] | Callable[[], Iterable[str]], cwd: Path,
                toolbar: Any = None, on_expand: Callable[[], Awaitable[None]] | None = None,
                pastes: Pastes | None = None, clock: Callable[[], float] = time.monotonic,
                session_id: Callable[[], str | None] = lambda: None, **io: Any) -> PromptSession[str]:
    """`io` passes prompt_toolkit's `input=`/`output=` (tests drive the REPL through a pipe);
    `toolbar` is the status line under the input (a callable giving its text); `on_expand` runs on Ctrl-O;
    `pastes` holds large pastes behind placeholders (the caller expands the line it gets: pastes.py);
    `clock` tells the keys of a paste from typing (paste_keys.py); `session_id`, the id of the session
    a line is typed in (what its history entry names)."""
    try:
        history: Path | None = ensure_private_file(history_path(project_root))  # everything typed: 0600, in 0700
    except OSError as e:  # a FIFO or a folder in its place: the REPL runs, without a history to keep
        from ..error_text import describe_error

        print(f"compact-agent: no prompt history this session: {describe_error(e)}", file=sys.stderr)
        history = None
    paste_keys = PasteKeys(clock)
    with dumb_terminal_output(io.get("output")):  # the output the session keeps, made as it is
        session: PromptSession[str] = HistoryPrompt(
            history=RedactedHistory(str(history), pastes, session_id) if history is not None else InMemoryHistory(),
            completer=ReplCompleter(commands, cwd, command_arguments(project_root, session_id)),
            bottom_toolbar=toolbar,
            key_bindings=key_bindings(on_expand, pastes, paste_keys), multiline=True, complete_while_typing=False,
            prompt_continuation="  ", **io)
    paste_keys.watch(session.app, pastes)  # a large paste that comes as keys held too
    if pastes is not None:
        pastes.elsewhere = history_lines(history) if history is not None else list  # a line brought back is none of its placeholders
        guard_placeholders(session, pastes)
    return session


class CursorlessOutput(Vt100_Output):
    """A dumb terminal's output: it has no cursor to show or hide, so nothing is sent for one."""

    def show_cursor(self) -> None:
        return None

    def hide_cursor(self) -> None:
        return None


def dumb_terminal_output(output: Any) -> contextlib.AbstractContextManager[Any]:
    """Where the prompt is made for a dumb terminal (TERM=dumb): prompt_toolkit then prompts with
    plain text, but the prompt's application, made first, tells its output to show the cursor
    (`\\x1b[?12l\\x1b[?25h`), printed there before the first prompt. The prompt is made with a
    `CursorlessOutput` on the terminal instead, through prompt_toolkit's own `create_app_session`
    (an output passed to the prompt itself would turn its plain-text prompt off), which leaves the
    output other questions use as it was. A given `output` (a test's pipe) is kept."""
    default = get_app_session().output
    if output is not None or not isinstance(default, Vt100_Output) or not is_dumb_terminal(default.term or ""):
        return contextlib.nullcontext()
    cursorless = CursorlessOutput(default.stdout, default.get_size, term=default.term,
                                  default_color_depth=default.default_color_depth, enable_bell=default.enable_bell)
    return create_app_session(input=get_app_session().input, output=cursorless)


def paste_binding(kb: KeyBindings, pastes: Pastes) -> None:
    """A bracketed paste goes into the input as it is when small, else as its placeholder, the text
    held in `pastes` (pastes.py): the prompt's input, and the answer to what to do instead of a
    declined call (approval.instruction)."""
    @kb.add(Keys.BracketedPaste)
    def _paste(event: KeyPressEvent) -> None:
        held = len(pastes.held)
        text = pastes.insert(event.data, event.current_buffer.text)
        pastes.typing = len(pastes.held) == held  # a small paste: typed text, whatever its words
        try:
            event.current_buffer.insert_text(text)
        finally:
            pastes.typing = False


def guard_placeholders(session: PromptSession[str], pastes: Pastes) -> None:
    """Each placeholder of `session`'s input is one unit: an edit that touches it takes it whole (paste_guard.py)."""
    guard = PlaceholderGuard(pastes)
    session.default_buffer.on_text_changed += guard.changed
    session.app.key_processor.before_key_press += lambda _: guard.key(session.app.clipboard)
    session.app.key_processor.after_key_press += lambda _: guard.cut(session.app.clipboard)  # a cut whole
    session.app.on_reset += lambda app: guard.reset(session.default_buffer)  # a new input, and what it starts with
