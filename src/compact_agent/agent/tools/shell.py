"""The bash tool: a command in its own process group, output capped head and tail, a timeout that
kills the whole group, and the exit code always shown.

It runs as an asyncio subprocess so the event loop (spinner, Ctrl-C) never stalls, and the child
does not inherit the provider's API key (a model running `env` must not put it in the session).
Its group is killed however the agent ends while it runs (shell_groups.py). A command a signal
ended shows the exit code a shell would, 128 + the signal's number, and the signal's name:
`exit code: 137 (killed by SIGKILL)`, never Python's negative return code.

It has no terminal: an editor it would open fails at once saying how to give the text instead
(NO_EDITOR), and its output is kept as a terminal would leave it, without colours or a progress
bar's redraws (`Screen`).
"""

from __future__ import annotations

import asyncio
import codecs
import contextlib
import logging
import re
import signal
from contextvars import ContextVar

from ... import secrets, stop_signals
from ..integrations.instructions import command_of, files_now
from ..safety.checked_open import workdir_gone
from ..safety.names import lone_surrogate
from .base import MAX_BASH_TIMEOUT_S, Killed, NotRun, ToolEnv, ToolFailure
from .shell_groups import kill_group, running, started
from .text_encoding import decode_output

log = logging.getLogger(__name__)

NOT_UTF8 = "[the output is not all UTF-8: each byte that is not is shown as its Windows-1252 (Latin-1) character]"
CUT_NOTE = "\n[… {n} characters of output cut from the middle …]\n"
_CUT = re.compile(re.escape(CUT_NOTE).replace(re.escape("{n}"), r"(\d+)"))  # the note, its count read back


#: What a command that opens an editor is told (`git commit` without -m, `git rebase -i`): with no
#: terminal an editor waited for keys until the timeout, its screen's escapes the output.
NO_EDITOR = ("compact-agent: no interactive editor here (the command has no terminal). Give the text "
             "on the command line instead (git commit -m or -F, --no-edit; git tag -m), or name a "
             "non-interactive editor for this one command (GIT_EDITOR=true keeps the text as it is; "
             "GIT_SEQUENCE_EDITOR=\"sed -i ...\" git rebase -i).")
#: The editor every program that opens one is given: it prints NO_EDITOR (from the variable, so
#: that git's own line naming the editor stays short) and fails. A command may still name its own.
_EDITOR = """sh -c 'printf "%s\\n" "$COMPACT_AGENT_NO_EDITOR" >&2; exit 1' editor"""
NO_EDITOR_ENV = {"COMPACT_AGENT_NO_EDITOR": NO_EDITOR, "EDITOR": _EDITOR, "VISUAL": _EDITOR,
                 "GIT_EDITOR": _EDITOR, "GIT_SEQUENCE_EDITOR": _EDITOR}


def cut_from(output: str) -> int:
    """How many characters `bash_impl` cut from the middle of `output` (0: none)."""
    found = _CUT.search(output)
    return int(found.group(1)) if found else 0


# A command writes for a terminal even without one: colours (`\x1b[32mPASSED\x1b[0m`), titles and
# links (OSC), cursor moves, progress bars that redraw one line with a carriage return
# (`\rprogress 1%\rprogress 2%…`: 30,000 characters for the one line a user sees). `Screen` reads
# the output as it comes and gives what a terminal leaves to read: each escape sequence removed
# (CSI, OSC, the two-byte ones; one split between two reads is held until it ends), and a line a
# lone CR rewrote in its last version (the last text after a CR that is not empty: `50%\r100%\r`
# is `100%`); CR LF ends a line and is kept as it was. On bytes: those it looks for are ASCII,
# which no byte of a UTF-8 character is; output with a NUL byte (binary, UTF-16 or 32, where they
# may be half a character) or a UTF-16 mark is given as it comes, from there on.

#: The longest unfinished line held back for a carriage return that may rewrite it; a longer one
#: is given as it is (a later rewrite of it is then added after it).
MAX_LINE = 65_536
#: The longest escape sequence held back while unfinished (an OSC never ended is given as text).
MAX_HELD = 4_096

#: An escape sequence: CSI, OSC (its text on one line, at most MAX_HELD bytes: a stray `ESC ]`
#: takes no text with it up to a BEL far below), or one of two bytes.
_ESCAPE = re.compile(rb"\x1b(?:\[[0-?]*[ -/]*[@-~]|\][^\x07\x1b\r\n]{0,%d}(?:\x07|\x1b\\)|[ -/]*[0-~])" % MAX_HELD)
#: One begun at the end of what has come so far.
_BEGUN = re.compile(rb"\x1b(?:\[[0-?]*[ -/]*|\][^\x07\x1b\r\n]{0,%d}\x1b?|[ -/]*)\Z" % MAX_HELD)
#: A line (its end of line excluded) with a carriage return that is not the CR of a CR LF.
_REWRITTEN = re.compile(rb"^[^\n]*\r(?!\n)[^\n]*", re.MULTILINE)


class Screen:
    """Feed it the output's chunks (`feed`), then `end`; each gives the bytes to keep."""

    def __init__(self) -> None:
        self._held = b""  # an escape sequence begun at the end of the last chunk
        self._line = bytearray()  # the line being written: a carriage return may still rewrite it
        self._raw: bool | None = None  # not text for a terminal: given as it comes

    def feed(self, chunk: bytes) -> bytes:
        if self._raw is None and chunk:  # UTF-16 (a .env catted, with its mark) is not ASCII's
            self._raw = chunk.startswith((codecs.BOM_UTF16_LE, codecs.BOM_UTF16_BE))
        if self._raw or b"\0" in chunk:  # nor are binary bytes, UTF-16 or 32: a CR, an ESC may be
            rest, self._raw = bytes(self._line) + self._held, True  # half a character there
            self._line, self._held = bytearray(), b""
            return rest + chunk
        data = self._held + chunk
        self._held = b""
        if b"\x1b" in data:
            if (begun := _BEGUN.search(data)) is not None and len(data) - begun.start() <= MAX_HELD:
                data, self._held = data[:begun.start()], data[begun.start():]
            data = _ESCAPE.sub(b"", data).replace(b"\x1b", b"")
        end = data.rfind(b"\n") + 1
        if end:
            done = bytes(self._line) + data[:end]
            self._line = bytearray(data[end:])
        else:
            done = b""
            self._line += data
        if b"\r" in data:
            self._line = bytearray(_open_line(bytes(self._line)))
        if len(self._line) > MAX_LINE:  # given as it is; a CR at its end stays, to end it or rewrite
            cr = self._line.endswith(b"\r")
            done += bytes(self._line[:-1] if cr else self._line)
            self._line = bytearray(b"\r" if cr else b"")
        return _rewritten(done) if b"\r" in done else done

    def end(self) -> bytes:
        """The rest: the last line if it did not end (without a CR at its end: no LF comes), and an
        escape begun and never finished, as text."""
        rest = bytes(self._line).rstrip(b"\r") + self._held.replace(b"\x1b", b"")
        self._line, self._held = bytearray(), b""
        return _rewritten(rest) if b"\r" in rest else rest


def _last_version(line: bytes) -> bytes:
    """A line's last version: its last text after a CR that is not empty, with the CR of a CR LF."""
    body = line.rstrip(b"\r")
    cr = b"\r" if len(body) < len(line) else b""
    return next((part for part in reversed(body.split(b"\r")) if part), b"") + cr


def _rewritten(lines: bytes) -> bytes:
    return _REWRITTEN.sub(lambda m: _last_version(m.group()), lines)


def _open_line(line: bytes) -> bytes:
    """A line not ended yet, reduced to its last version: a CR at its end is kept, for the LF that
    would make it a line end or the text that would rewrite the line."""
    return _last_version(line) if b"\r" in line.rstrip(b"\r") else line


class _Capped:
    """Keeps the head and tail of a stream so a chatty command cannot exhaust memory: of the output
    as a terminal would leave it (`Screen`: no colours, a progress bar's last state)."""

    def __init__(self, keep_bytes: int) -> None:
        self.keep = keep_bytes
        self.head = bytearray()
        self.tail = bytearray()
        self.dropped = 0
        self.screen = Screen()

    def add(self, chunk: bytes) -> None:
        self._keep(self.screen.feed(chunk))

    def _keep(self, chunk: bytes) -> None:
        room = self.keep - len(self.head)
        if room > 0:
            self.head += chunk[:room]
            chunk = chunk[room:]
        self.tail += chunk
        if len(self.tail) > self.keep:
            self.dropped += len(self.tail) - self.keep
            del self.tail[: len(self.tail) - self.keep]

    def text(self, max_chars: int) -> tuple[str, bool]:
        """The output kept, within `max_chars`, and whether some byte of it was not UTF-8."""
        self._keep(self.screen.end())
        if self.dropped:  # decoded apart, without the pieces of a character the cut split
            head, odd_head = decode_output(_whole_head(self.head))
            tail, odd_tail = decode_output(_whole_tail(self.tail))
            both, odd = head + tail, odd_head or odd_tail
        else:
            both, odd = decode_output(bytes(self.head + self.tail))
        if not self.dropped and len(both) <= max_chars:
            return both, odd
        keep_head, keep_tail = max_chars // 2, max_chars - max_chars // 2
        cut = len(both) - keep_head - keep_tail + self.dropped
        note = CUT_NOTE.format(n=cut)
        return both[:keep_head] + note + (both[-keep_tail:] if keep_tail else ""), odd


def _whole_head(data: bytearray) -> bytes:
    """`data` without the first bytes of a UTF-8 character cut off at its end."""
    for back in range(1, min(4, len(data)) + 1):
        byte = data[-back]
        if byte < 0x80:
            break
        if byte >= 0xC0:  # a lead byte: it announces 2, 3 or 4 bytes
            need = 2 if byte < 0xE0 else 3 if byte < 0xF0 else 4
            return bytes(data[:-back]) if need > back else bytes(data)
    return bytes(data)


def _whole_tail(data: bytearray) -> bytes:
    """`data` without the last bytes of a UTF-8 character cut off at its start."""
    skip = 0
    while skip < min(3, len(data)) and 0x80 <= data[skip] < 0xC0:
        skip += 1
    return bytes(data[skip:])


async def _pump(stream: asyncio.StreamReader, sink: _Capped) -> None:
    while chunk := await stream.read(65_536):
        sink.add(chunk)


async def _exit_code(proc: asyncio.subprocess.Process) -> int:
    # Process.wait() also waits for the pipe to close, which a background job (`cmd &`) may hold
    # open for ever; the return code alone tells when bash itself is done.
    while proc.returncode is None:
        await asyncio.sleep(0.02)
    return proc.returncode


#: Set by the agent around one tool call (agent/run/ended_calls.py): the command is marked in it once
#: it may run, past its approval. A call stopped before that (Ctrl-C at the approval question) never
#: ran its command, and its result can say so, where it said the command was killed if it had started.
MAY_RUN: ContextVar[list[bool] | None] = ContextVar("compact_agent_bash_may_run", default=None)


async def bash_impl(env: ToolEnv, command: str, timeout: float | None = None, *, max_chars: int | None = None) -> str:
    """Run `command`; its output, head and tail kept within `max_chars` (default: the setting
    `bash_output_max_chars`), then any notes and the exit code."""
    cap = env.settings.bash_output_max_chars if max_chars is None else max_chars
    if (gone := workdir_gone(env.cwd)) is not None:  # moved or deleted: said, not "No such file or directory"
        return NotRun(f"bash: {gone.strerror}")
    if refusal := env.permissions.check("bash", command):
        return NotRun(refusal)
    if (may_run := MAY_RUN.get()) is not None:
        may_run.append(True)
    if "\0" in command:  # no process can be given it (Python would say "embedded null byte")
        return ToolFailure("bash failed: a command cannot hold a NUL character")
    if (half := lone_surrogate(command)) is not None:  # (Python: "'utf-8' codec can't encode character")
        return ToolFailure(f"bash failed: a command cannot hold {half}, half of a UTF-16 pair and no character")
    # The instruction files later sessions obey, as they are now: one the command changes is told
    # (permissions.changed_note). Not for `!cmd`, whose environment tells nobody (the user typed it).
    before = _watched(env) if env.on_change is not None else None
    # not above 0 (NaN included, which killed the command at once 'after nans'): the default
    limit = env.settings.bash_timeout_s if timeout is None or not timeout > 0 else float(timeout)
    limit = min(limit, MAX_BASH_TIMEOUT_S)
    # No pager, editor or credential prompt may wait for input nobody can give.
    # Nor may it see the provider key: `env` or a debug print would put it in the session.
    child_env = {**secrets.scrubbed_env(), "PAGER": "cat", "GIT_PAGER": "cat", "GIT_TERMINAL_PROMPT": "0",
                 **NO_EDITOR_ENV}
    with contextlib.ExitStack() as group:
        # Its group is killed if the agent ends meanwhile (shell_groups.py); a SIGTERM that comes
        # before the group is known waits for it (the command may be running already).
        with stop_signals.deferred():
            try:
                proc = await started(asyncio.create_subprocess_exec(  # Esc meanwhile: its group killed
                    "bash", "-c", command, cwd=str(env.cwd), env=child_env,
                    stdin=asyncio.subprocess.DEVNULL, stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.STDOUT,
                    start_new_session=True,  # its own process group, so a timeout kills grandchildren too
                ))  # fmt: skip
            except OSError:  # the working directory gone since the approval question
                if (gone := workdir_gone(env.cwd)) is not None:
                    return NotRun(f"bash: {gone.strerror}")
                raise
            group.enter_context(running(proc.pid))
        code, timed_out, notes, out, odd = await _outcome(proc, limit, cap)
    if before is not None:
        _say_changed(env, before, command)
    # A file or a wrapper's /proc may still hold the key: redacted here, for the bash tool's result
    # and for `!cmd` in the REPL alike, whose output is shown and goes with the next message.
    out = secrets.redact(out.rstrip("\n")) or "(no output)"
    if odd:
        notes.append(NOT_UTF8)
    text = "\n".join([out, *notes, exit_line(code, limit if timed_out else None)])
    if code == 0:
        return text
    return Killed(text) if timed_out else ToolFailure(text)


def _watched(env: ToolEnv) -> dict[str, tuple[int, int, int] | None]:
    """The instruction files and custom commands as they are now (instructions.files_now), the
    user-level instruction files beside the config file included."""
    from ...settings_file import user_config_path

    return files_now(env.cwd, user_config_path().parent)


def _say_changed(env: ToolEnv, before: dict[str, tuple[int, int, int] | None], command: str) -> None:
    """Tell the UI of each instruction file the command changed (made, written, removed)."""
    if (notify := env.on_change) is None:
        return
    after = _watched(env)
    for name in (n for n in {**before, **after} if after.get(n) != before.get(n)):  # made, written, removed
        path = env.cwd.resolve() / name
        info = {"instruction": name, "rel": name, "path": str(path), "unasked": None, "command": command,
                "custom_command": command_of(env.cwd, path)}
        try:
            notify("bash", info)
        except Exception:  # the UI must not turn a finished command into a failed call
            log.exception("on_change callback failed")


async def _outcome(proc: asyncio.subprocess.Process, limit: float, cap: int
                   ) -> tuple[int, bool, list[str], str, bool]:
    """Wait for `proc` (at most `limit` seconds): its return code, whether it timed out, the notes
    so far, the output kept (within `cap` characters) and whether some of it was not UTF-8."""
    sink = _Capped(cap * 4)
    assert proc.stdout is not None
    reader = asyncio.ensure_future(_pump(proc.stdout, sink))
    notes = []
    timed_out = False
    try:
        try:
            await asyncio.wait_for(_exit_code(proc), limit)
        except TimeoutError:
            kill_group(proc.pid)
            timed_out = True
        done, _ = await asyncio.wait({reader}, timeout=0.5)
        if not done:
            # Background jobs still write to our pipe: they would block on it once we stop reading.
            # Jobs started with their output redirected (`nohup cmd > log 2>&1 &`) are not affected.
            kill_group(proc.pid)
            notes.append(
                "[killed background processes still attached to the output; redirect a job's output to keep it running]"
            )
            done, _ = await asyncio.wait({reader}, timeout=2)
        code = await asyncio.wait_for(_exit_code(proc), 5)
    except BaseException:  # cancelled (user interrupt) or stuck: leave nothing running behind us
        kill_group(proc.pid)
        reader.cancel()
        raise
    if not done:
        reader.cancel()
    out, odd = sink.text(cap)
    return code, timed_out, notes, out, odd


def exit_line(code: int, timed_out_after: float | None = None) -> str:
    """The result's last line: the exit status as a shell shows it (`$?`). Python gives a command a
    signal ended a negative code (-9); a shell says 128 + the number (137), which is what a user, and
    the model, know. `timed_out_after`: the limit, when the command was killed at it."""
    if code >= 0:
        return f"exit code: {code}"
    try:
        name = signal.Signals(-code).name
    except ValueError:
        name = f"signal {-code}"
    if timed_out_after is not None:
        why = f"timed out after {timed_out_after:g}s: killed by {name}, with its child processes"
    else:
        why = f"killed by {name}"
    return f"exit code: {128 - code} ({why})"
