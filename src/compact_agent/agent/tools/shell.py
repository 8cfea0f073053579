"""The bash tool: a command in its own process group, output capped head and tail, a timeout that
kills the whole group, and the exit code always shown.

It runs as an asyncio subprocess so the event loop (spinner, Ctrl-C) never stalls, and the child
does not inherit the provider's API key (a model running `env` must not put it in the session).
Its group is killed however the agent ends while it runs (shell_groups.py). A command a signal
ended shows the exit code a shell would, 128 + the signal's number, and the signal's name:
`exit code: 137 (killed by SIGKILL)`, never Python's negative return code.

It has no terminal: an editor it would open fails at once saying how to give the text instead
(NO_EDITOR), and its output is kept as a terminal would leave it, without colours or a progress
bar's redraws (`Screen`). Its input is empty (a prompt reads end of file); a program that waits for
keys anyway, from its error output (vim), is stopped within a second, and the result says how to run
it non-interactively (ASKED), as it does when the output ends in a prompt that got no answer.
"""

from __future__ import annotations

import asyncio
import atexit
import contextlib
import logging
import re
import shutil
import signal
import tempfile
from contextvars import ContextVar
from pathlib import Path

from ... import secrets, stop_signals
from ..integrations.instructions import command_of, files_now
from ..safety.checked_open import workdir_gone
from ..safety.names import lone_surrogate
from .base import MAX_BASH_TIMEOUT_S, Killed, NotRun, ToolEnv, ToolFailure
from .screen import Screen
from .shell_groups import exit_code, kill_group, reaped, running, started, waiting_for_keys
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
#: The editor every program that opens one is given (`editor_env`): a script that prints NO_EDITOR
#: (from the variable, so that git's own line naming the editor stays short) and fails. One path, no
#: arguments: a program that runs $EDITOR without a shell finds it too.
_EDITOR_SCRIPT = '#!/bin/sh\nprintf "%s\\n" "$COMPACT_AGENT_NO_EDITOR" >&2\nexit 1\n'
_editor_dir: list[Path] = []  # the private folder it is written in, once per process


def _editor() -> str:
    if not _editor_dir:
        folder = Path(tempfile.mkdtemp(prefix="compact-agent-editor-"))  # only ours can write there
        atexit.register(shutil.rmtree, folder, True)
        _editor_dir.append(folder)
    script = _editor_dir[0] / "no-editor"
    if not script.is_file():  # written again if a cleaner took it
        script.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
        script.write_text(_EDITOR_SCRIPT)
        script.chmod(0o700)
    return str(script)


#: A line of the result when the command waited for keys or asked for an answer (`_asked`).
ASKED = ("[{what}: a command runs here with no terminal and no input, so nothing can be typed to it. "
         "Run it non-interactively: answers on the command line or piped in (--yes, --no-input, "
         "printf 'y\\n' | cmd), git add <paths> rather than -p, python -c or a script rather than the "
         "bare REPL, the edit tools rather than an editor; a password prompt (sudo, ssh) cannot be answered]")
#: How often a running command's processes are looked at for one waiting for keys (`waiting_for_keys`);
#: one seen so at two looks in a row is stopped.
LOOK_S = 0.5


def _asked(out: str, timed_out: bool) -> str | None:
    """The ASKED line for output whose last line is a prompt left unanswered, with no line end after
    it or the one a program writes at end of input (`Stage this hunk [y,n,q,a,d,e,?]? `, `>>> `,
    `Password: `)."""
    out = out.removesuffix("\n")
    last = out[out.rfind("\n") + 1 :]
    if not (0 < len(last) <= 200 and last.endswith(("? ", ": ", "> ", "] ", ") "))):
        return None
    what = ("it looked like it was waiting for an answer to the prompt its output ends in" if timed_out
            else "its output ends in a prompt, which got no answer")
    return ASKED.format(what=what)


def editor_env(env: dict[str, str]) -> dict[str, str]:
    """`env` with the failing editor: EDITOR and VISUAL name it, and git's core.editor and
    sequence.editor, given as configuration the environment adds (GIT_CONFIG_COUNT, after any it
    has): above the user's and the repository's config, below `git -c core.editor=true` and
    GIT_EDITOR or GIT_SEQUENCE_EDITOR set for one command. The user's own GIT_EDITOR and
    GIT_SEQUENCE_EDITOR are left out: they would come first."""
    editor = _editor()
    out = {k: v for k, v in env.items() if k not in ("GIT_EDITOR", "GIT_SEQUENCE_EDITOR")}
    try:
        count = max(int(out.get("GIT_CONFIG_COUNT", "0")), 0)
    except ValueError:  # git itself refuses to run with it
        count = 0
    for n, key in enumerate(("core.editor", "sequence.editor"), count):
        out[f"GIT_CONFIG_KEY_{n}"], out[f"GIT_CONFIG_VALUE_{n}"] = key, editor
    out["GIT_CONFIG_COUNT"] = str(count + 2)
    return {**out, "COMPACT_AGENT_NO_EDITOR": NO_EDITOR, "EDITOR": editor, "VISUAL": editor}


def cut_from(output: str) -> int:
    """How many characters `bash_impl` cut from the middle of `output` (0: none)."""
    found = _CUT.search(output)
    return int(found.group(1)) if found else 0


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
    child_env = editor_env({**secrets.scrubbed_env(), "PAGER": "cat", "GIT_PAGER": "cat", "GIT_TERMINAL_PROMPT": "0"})
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
        code, killed, notes, out, odd, screen = await _outcome(proc, limit, cap)
    if before is not None:
        _say_changed(env, before, command)
    if killed != "keys" and (asked := _asked(out, killed == "timeout")) is not None:
        notes.append(asked)
    # A file or a wrapper's /proc may still hold the key: redacted here, for the bash tool's result
    # and for `!cmd` in the REPL alike, whose output is shown and goes with the next message.
    out = secrets.redact(out.rstrip("\n")) or "(no output)"
    if odd:
        notes.append(NOT_UTF8)
    # What the output lost to look as on a terminal comes first: the last line before the exit code
    # stays the output's own (the tool line's summary, the lines the REPL shows under a command).
    text = "\n".join([*([screen] if screen else []), out, *notes,
                      exit_line(code, limit if killed == "timeout" else None)])
    if code == 0:
        return text
    return Killed(text) if killed else ToolFailure(text)


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


async def _exit_or_keys(proc: asyncio.subprocess.Process) -> str | None:
    """Wait for bash to end (None), or for a process of its session to be seen waiting for keys
    (`waiting_for_keys`) at two looks in a row, LOOK_S apart: its name."""
    loop = asyncio.get_running_loop()
    seen, look_at = None, loop.time() + LOOK_S
    while proc.returncode is None:
        await asyncio.sleep(0.02)
        if loop.time() >= look_at:
            now = waiting_for_keys(proc.pid)
            if now is not None and now == seen:
                return now[1]
            seen, look_at = now, loop.time() + LOOK_S
    return None


async def _outcome(proc: asyncio.subprocess.Process, limit: float, cap: int
                   ) -> tuple[int, str, list[str], str, bool, str]:
    """Wait for `proc` (at most `limit` seconds): its return code, why it was killed ("timeout", "keys"
    if it waited for keys, "" if it was not), the notes so far, the output kept (within `cap`
    characters), whether some of it was not UTF-8, and the line saying what was removed or rewritten
    to keep it as a terminal leaves it (`Screen.note`)."""
    sink = _Capped(cap * 4)
    assert proc.stdout is not None
    reader = asyncio.ensure_future(_pump(proc.stdout, sink))
    notes = []
    killed = ""
    try:
        try:
            waiting = await asyncio.wait_for(_exit_or_keys(proc), limit)
        except TimeoutError:
            kill_group(proc.pid)
            killed = "timeout"
        else:
            if waiting is not None:  # SIGTERM first: vim then removes its swap file
                kill_group(proc.pid, signal.SIGTERM)
                with contextlib.suppress(TimeoutError):
                    await asyncio.wait_for(exit_code(proc), 1)
                kill_group(proc.pid)
                killed = "keys"
                notes.append(ASKED.format(what=f"{waiting} was waiting for keys from a terminal and was stopped"))
        done, _ = await asyncio.wait({reader}, timeout=0.5)
        if not done:
            # Background jobs still write to our pipe: they would block on it once we stop reading.
            # Jobs started with their output redirected (`nohup cmd > log 2>&1 &`) are not affected.
            kill_group(proc.pid)
            notes.append(
                "[killed background processes still attached to the output; redirect a job's output to keep it running]"
            )
            done, _ = await asyncio.wait({reader}, timeout=2)
        code = await asyncio.wait_for(exit_code(proc), 5)
    except BaseException as stop:  # cancelled (user interrupt) or stuck: leave nothing running behind us
        kill_group(proc.pid)
        reader.cancel()
        if isinstance(stop, asyncio.CancelledError):
            await reaped(proc)
        raise
    if not done:
        reader.cancel()
    out, odd = sink.text(cap)
    return code, killed, notes, out, odd, sink.screen.note()


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
