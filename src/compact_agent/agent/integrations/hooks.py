"""User hooks: shell commands run around compaction and at session start (Claude Code's convention).

* `PreCompact` gets `{hook_event_name, session_id, transcript_path, cwd, trigger,
  custom_instructions}` on stdin; its stdout is merged into the compaction instructions.
* `PostCompact` gets the boundary: trigger, strategy, tokens before/after, archive path.
* `SessionStart` gets `source` (startup / resume / clear / compact); its stdout is added to the
  context. After a compaction this is how project context the summary may have lost comes back.

What a hook prints has the provider key redacted, as a tool's result has, before it is used.

Stdout is plain text, or a JSON object whose `additionalContext` (also under
`hookSpecificOutput`) is taken, as Claude Code hooks print it.

A `PreCompact` hook can block the compaction, as Claude Code's hooks block: it exits with 2 (its
stderr is the reason), or prints `{"decision": "block", "reason": "..."}`. The session then raises
the library's `CompactionBlocked` (extensions.py): a `/compact` says so, an automatic compaction is
skipped, and a request over the hard limit is shrunk to fit instead (never sent over the window).

A hook is the user's code and may hang, fail or print rubbish. None of that may break a
compaction: each command runs in its own process group with a timeout (the group is killed), and
a non-zero exit, a timeout, or unreadable output becomes one `HookRun.problem` line that the
session reports as an event; the output is then ignored. A timeout is said as bash says it
(`timed out after 10s: killed by SIGKILL, with its child processes`). Nor may a hook outlive the
agent: its group is killed with it, as a bash command's is, when a SIGTERM or SIGHUP ends the agent
while the hook runs (agent/tools/shell_groups.py).
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import re
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ... import secrets, stop_signals
from ...setting_names import meant
from ...setting_values import shown
from ...words import quoted
from ..tools.shell_groups import kill_group, reaped, running, started, timed_out

EVENTS = ("PreCompact", "PostCompact", "SessionStart")
#: What a key under [hooks] may be meant as: an event, or the setting that may sit beside them.
LIKE_EVENTS = (*EVENTS, "hook_timeout_s")
BLOCKING = ("PreCompact",)  # the events whose hook may say no (exit 2, or "decision": "block")
BLOCK_EXIT = 2
#: The keys of a hook's table, in both shapes (parse_hooks); any other is a mistake to say: a
#: `timout = 5` was ignored without a word, and the hook ran with the default timeout.
KEYS = ("type", "command", "timeout", "matcher", "hooks")
MAX_OUTPUT_CHARS = 10_000
MAX_TIMEOUT_S = 600  # a hook's own timeout, as hook_timeout_s (config.ShortSeconds)
_CONTROL = re.compile(r"[\x00-\x08\x0e-\x1f\x7f]")


class HookConfigError(ValueError):
    """The [hooks] table has a shape we cannot run; the message is one line."""


@dataclass(frozen=True)
class HookCommand:
    event: str
    command: str
    matcher: str = ""  # regex on the trigger/source ("auto", "manual|auto", "compact"); "" or "*" = all
    timeout_s: float = 10.0

    def matches(self, value: str) -> bool:
        if self.matcher in ("", "*"):
            return True
        try:
            return re.fullmatch(self.matcher, value) is not None
        except re.error:
            return self.matcher == value


@dataclass
class HookRun:
    """What one command did: `output` is usable text; `problem` is the one-line report, if any."""

    hook: HookCommand
    output: str = ""
    problem: str = ""
    exit_code: int | None = None
    duration_s: float = 0.0
    blocked: bool = False  # a PreCompact hook said no (exit 2, or "decision": "block")
    reason: str = ""  # why, in the hook's words (its stderr's first line, or the JSON's "reason")


def parse_hooks(table: dict[str, Any] | None, default_timeout_s: float = 10.0) -> list[HookCommand]:
    """Normalise the [hooks] table. Accepted per event, as in Claude Code or shorter:

        PreCompact = "cmd"                                   # one command
        PreCompact = [{command = "cmd", timeout = 5, matcher = "auto"}]
        [[hooks.PreCompact]]                                 # Claude Code's shape
        matcher = "auto"
        timeout = 30                                         # for its hooks that give none
        hooks = [{type = "command", command = "cmd", timeout = 5}]

    A group's `matcher` and `timeout` go to each of its hooks that gives none of its own (the
    timeout was taken as a key and ignored: its hooks ran at hook_timeout_s).
    """
    out: list[HookCommand] = []
    for event, spec in (table or {}).items():
        if event not in EVENTS:
            raise HookConfigError(f"unknown hook event {quoted(str(event))}{meant(str(event), LIKE_EVENTS)}; "
                                  f"expected one of {', '.join(EVENTS)}")
        for entry in spec if isinstance(spec, list) else [spec]:
            out += _entry(event, entry, "", default_timeout_s)
    return out


def _entry(event: str, entry: Any, matcher: str, timeout: float) -> list[HookCommand]:
    """The commands of one entry of an event; a HookConfigError naming every bad key of it in one
    line (no command and a timeout of -1 are both said, not the first alone)."""
    commands, problems = _commands(event, entry, matcher, timeout)
    if problems:
        raise HookConfigError(f"hooks.{event}: " + " and ".join(dict.fromkeys(problems)))
    return commands


def _commands(event: str, entry: Any, matcher: str, timeout: float) -> tuple[list[HookCommand], list[str]]:
    """(the commands, what is wrong) of one entry and the entries inside it (Claude Code's shape)."""
    if isinstance(entry, str):
        return [HookCommand(event, entry, matcher, timeout)], []
    if not isinstance(entry, dict):
        return [], [f"expected a command string or a table, got {_kind(entry)}"]
    matcher = str(entry.get("matcher", matcher) or "")
    problems: list[str] = [f"unknown key {key}" + (meant(str(key), KEYS) or f" (a hook takes {', '.join(KEYS)})")
                           for key in entry if key not in KEYS]
    if entry.get("matcher") is not None and not isinstance(entry["matcher"], str):  # `true` matched "True"
        problems.append(f"matcher must be text (a pattern of the trigger or source), not {shown(entry['matcher'])}")
    if "hooks" in entry:
        if "command" in entry:  # a group runs its hooks: its own command would never run, unsaid
            problems.append("a table with hooks = [...] runs those; move its command into them")
        if "timeout" in entry:  # the group's: for its hooks that give none
            if (group_problem := _timeout_problem(entry["timeout"])) is not None:
                problems.append(group_problem)
            else:
                timeout = float(entry["timeout"])
        inner = entry["hooks"]
        commands: list[HookCommand] = []
        for e in inner if isinstance(inner, list) else [inner]:
            found, wrong = _commands(event, e, matcher, timeout)
            commands += found
            problems += wrong
        return commands, problems
    if entry.get("type", "command") != "command" or not isinstance(entry.get("command"), str):
        problems.append('each hook needs command = "..." (type "command")')
    t = entry.get("timeout", timeout)
    if (timeout_problem := _timeout_problem(t)) is not None:
        problems.append(timeout_problem)
    if problems:
        return [], problems
    return [HookCommand(event, entry["command"], matcher, float(t))], []


def _timeout_problem(t: Any) -> str | None:
    """What is wrong with `t` as a hook's timeout (a hook's own or its group's), or None."""
    if isinstance(t, bool) or not isinstance(t, int | float) or t <= 0:
        return "timeout must be a positive number of seconds"
    if not t <= MAX_TIMEOUT_S:  # inf and nan too: a hook that hangs must not hold a compaction for ever
        return f"timeout must be at most {MAX_TIMEOUT_S} seconds, not {shown(t)}"
    return None


def _kind(value: Any) -> str:
    """A value that is no command, in the words of a config file (`a number`), not Python's (`int`)."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int | float):
        return "a number"
    if isinstance(value, list):
        return "a list"
    return "nothing (null)" if value is None else "a value of another kind"


async def run_command(hook: HookCommand, payload: dict[str, Any], cwd: Path,
                      env: dict[str, str] | None = None) -> HookRun:
    """Run one hook; never raises (except cancellation, after killing the command)."""
    loop = asyncio.get_running_loop()
    t0 = loop.time()
    run = HookRun(hook)
    data = json.dumps(payload, ensure_ascii=False).encode()
    with contextlib.ExitStack() as group:
        try:
            # Its group is killed if the agent ends meanwhile (shell_groups.py); a SIGTERM that comes
            # before the group is known waits for it (the command may be running already).
            with stop_signals.deferred():
                proc = await started(asyncio.create_subprocess_exec(  # cancelled meanwhile: its group killed
                    "bash", "-c", hook.command, cwd=str(cwd), env={**secrets.scrubbed_env(), **(env or {})},
                    stdin=asyncio.subprocess.PIPE, stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE,
                    start_new_session=True))  # its own group: a timeout kills what it started too
                group.enter_context(running(proc.pid))
        except OSError as e:
            run.problem = f"could not start: {e.strerror or e}"
            return run
        output = await _output(proc, data, hook.timeout_s)
    run.duration_s = loop.time() - t0
    if output is None:
        run.problem = timed_out(hook.timeout_s)
        return run
    out, err = output
    run.exit_code = proc.returncode
    if proc.returncode != 0:
        reason = _first_line(err.decode("utf-8", errors="replace")) or _first_line(out.decode("utf-8", "replace"))
        if proc.returncode == BLOCK_EXIT and hook.event in BLOCKING:
            run.blocked, run.reason = True, _clean(reason)
            return run
        run.problem = f"exited with {proc.returncode}" + (f": {reason}" if reason else "")
        return run
    run.output, run.problem, block = _usable(out)
    if block is not None and hook.event in BLOCKING:
        run.blocked, run.reason = True, _clean(block)
    elif block is not None:
        run.problem = f"printed JSON without additionalContext; ignored (a {hook.event} hook cannot block)"
    return run


async def _output(proc: asyncio.subprocess.Process, data: bytes, limit: float) -> tuple[bytes, bytes] | None:
    """What the hook printed (stdout, stderr), the key redacted, once it ended; None when it ran
    past `limit` seconds (its group is killed: the command and what it started)."""
    try:
        out, err = await asyncio.wait_for(proc.communicate(data), limit)
    except TimeoutError:
        kill_group(proc.pid)
        with contextlib.suppress(Exception):
            await asyncio.wait_for(proc.wait(), 2)
        return None
    except BaseException as stop:
        kill_group(proc.pid)
        if isinstance(stop, asyncio.CancelledError):
            await reaped(proc)
        raise
    finally:
        if proc.returncode is None:
            kill_group(proc.pid)
    # What it prints goes into the context (SessionStart), the summary's instructions (PreCompact)
    # and the lines shown: a hook that prints a project's .env must not carry the key there.
    return secrets.redact_bytes(out), secrets.redact_bytes(err)


def _usable(raw: bytes) -> tuple[str, str, str | None]:
    """(text, problem, block reason or None): binary or undecodable output is refused; long output is cut."""
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError:
        return "", "printed output that is not UTF-8 text; ignored", None
    if _CONTROL.search(text):
        return "", "printed binary/control characters; output ignored", None
    text = text.strip()
    stripped = text.lstrip()
    if stripped.startswith("{"):
        try:
            obj = json.loads(stripped)
        except (ValueError, RecursionError):
            obj = None  # not JSON after all: plain text
        if isinstance(obj, dict):
            if obj.get("decision") == "block":
                return "", "", str(obj.get("reason") or "")
            specific = obj.get("hookSpecificOutput")
            if not isinstance(specific, dict):
                specific = {}
            ctx = specific.get("additionalContext", obj.get("additionalContext"))
            if ctx is None:
                return "", "" if "decision" in obj else "printed JSON without additionalContext; ignored", None
            text = str(ctx).strip()
    if len(text) > MAX_OUTPUT_CHARS:
        return (text[:MAX_OUTPUT_CHARS] + "\n[hook output cut]",
                f"printed {len(text):,} characters; kept the first {MAX_OUTPUT_CHARS:,}", None)
    return text, "", None


def _clean(reason: str) -> str:
    """A hook's reason as one printable line (it is the user's code: it may print anything)."""
    return " ".join(_CONTROL.sub("", reason).split())[:300]


def _first_line(text: str) -> str:
    lines = [x for x in text.strip().splitlines() if x.strip()]
    return lines[0][:200] if lines else ""


class Hooks:
    """The configured hooks of one session; `run(event, value, payload)` runs the matching ones in order."""

    def __init__(self, commands: Sequence[HookCommand], cwd: Path, session_id: str, transcript: Path) -> None:
        self.commands = list(commands)
        self.cwd = cwd
        self.session_id = session_id
        self.transcript = transcript

    def configured(self, event: str) -> bool:
        return any(c.event == event for c in self.commands)

    async def run(self, event: str, match_value: str, payload: dict[str, Any]) -> list[HookRun]:
        base = {"hook_event_name": event, "session_id": self.session_id,
                "transcript_path": str(self.transcript), "cwd": str(self.cwd)}
        env = {"COMPACT_AGENT_PROJECT_DIR": str(self.cwd), "COMPACT_AGENT_SESSION_ID": self.session_id}
        runs = []
        for hook in self.commands:
            if hook.event == event and hook.matches(match_value):
                runs.append(await run_command(hook, {**base, **payload}, self.cwd, env))
        return runs


def joined_output(runs: Sequence[HookRun]) -> str:
    return "\n\n".join(r.output for r in runs if r.output)
