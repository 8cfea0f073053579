"""`compact-agent -p`: one user turn, the answer on stdout, everything else on stderr.

Scripts read the exit code and, with `--output-format json|stream-json`, one result object that
says whether the run failed (`is_error`), how long it took, how many model requests it made and
what it cost. A run that fails still prints that object (with the error), so a script never has
to parse stderr. Print mode never asks: actions that need approval are refused unless `--yes` or
`--allowed-tools` allow them, and the user — not only the model — is told which were refused.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import sys
import time
from typing import TYPE_CHECKING, Any

from pydantic_ai.usage import RunUsage

from .. import retry_notice, secrets, stop_signals
from ..agent.run.options import SessionOptions, session_root
from ..agent.run.runner import AgentSession, TurnResult
from ..agent.run.server_windows import HOW
from ..agent.run.stream_events import blocked_line, compaction_end, problem_line, window_choice
from ..agent.run.turn import CUT_NOTE
from ..agent.safety.bash_rules import refusal_kind
from ..cli_help import nothing_spent
from ..context.plumbing.events import Event
from ..early_prompt import Early, save_early, take_back
from ..models import UsageError
from ..pipes import reader_left
from ..session.prompt_history import Unsent, said_unsent
from . import print_commands, print_init, print_slash, print_unsaved, tool_lines
from .print_refusals import Refusals
from .print_slash import KEPT_HINT, RETRY_HINT
from .render import archive_line, compacted_text, failed_line, layer_line
from .session_feed import Foretold
from .visible import json_visible, visible

if TYPE_CHECKING:
    from pathlib import Path

    from ..agent.accounting.costs import CostReport
    from ..context import CompactionResult

#: Exit codes: 0 done, 1 failed, 3 finished but actions were refused (needing approval, or by a deny rule).
EXIT_REFUSED = 3  # (and 141 when the reader of stdout left early: pipes.py)
class PrintRun:
    """The state of one print-mode run, so the callbacks stay small."""

    def __init__(self, output_format: str, verbose: bool) -> None:
        self.format = output_format
        self.stream = output_format == "stream-json"
        self.verbose = verbose
        self.started = time.monotonic()
        self.refusals = Refusals()  # the calls refused, with why; said on stderr once (print_refusals.py)
        self.denied = self.refusals.denied  # the calls refused, whole (the JSON's permission_denials)
        self.told = Foretold()  # what a REPL turn's end said this run's first request frees (session_feed.py)
        self.calls: dict[str, dict[str, Any]] = {}
        #: instruction files the model wrote without a question (permissions.changed_note), each once
        self.instruction_files: list[str] = []
        #: the server's window learned in this run (`learned_window`): a script passes it next time
        self.learned: dict[str, Any] | None = None
        self.tool_lines = tool_lines.Lines()  # -p --verbose: a result not under its call names it
        self.session: AgentSession | None = None  # once made: what a result object of a terminated run reports
        self.held: list[dict[str, Any]] | None = None  # objects said before `init`, held to follow it (print_init.py)

    # -- output ------------------------------------------------------------------------------
    def emit(self, obj: dict[str, Any]) -> None:  # tool output, text, events: nothing printed may carry the key
        if self.held is not None and obj.get("type") != "result":  # until `init` is out (print_init.py)
            self.held.append(obj)
            return
        line = json_visible(secrets.redact(json.dumps(obj, ensure_ascii=False, default=str))) + "\n"
        if obj.get("type") == "result":  # a signal meanwhile waits, then writes no second one (stop_signals)
            with stop_signals.held():
                sys.stdout.write(line)
                stop_signals.result_written()
        else:
            sys.stdout.write(line)
        sys.stdout.flush()

    def terminated(self) -> dict[str, Any]:
        """What the result object of a run ended by SIGTERM or SIGHUP says besides that (stop_signals):
        how long it ran and, once its session is made, the session and its requests so far."""
        out: dict[str, Any] = {"duration_ms": self.duration_ms()}
        if self.session is not None:
            spent = self.spent(self.session)
            # the request out (its reply maybe coming): sent, its usage never came, and no entry counts it
            if self.session.ended_calls.out() and self.session.ext.ledger.uncounted:
                spent["num_turns"] += 1
                spent["usage"]["requests"] += 1
            return out | {"session_id": saved_id(self.session)} | spent
        return out | nothing_spent() | self.refused_and_changed()

    def note(self, text: str) -> None:
        sys.stderr.write(visible(secrets.redact(f"compact-agent: {text}")) + "\n")
        sys.stderr.flush()

    def trace(self, text: str) -> None:
        """A line of `--verbose` (a tool call, its result, a layer's saving, a compaction) on stderr as the REPL
        shows it, without a warning's `compact-agent: ` (one run's trace read as two kinds of message)."""
        sys.stderr.write(visible(secrets.redact(text)) + "\n")
        sys.stderr.flush()

    def refused_and_changed(self) -> dict[str, Any]:
        """What every result object ends with: the actions refused, the instruction files changed unasked, the window learned."""
        return self.refusals.fields() | {"instruction_files_changed": self.instruction_files,
                                         "learned_window": self.learned}

    def refused(self) -> int:
        """What print mode refused (it does not ask) said on stderr (tool_lines.refusal_line), once: exit 3 for
        a run that finished; a run that also failed says it before its error, and exits 1."""
        if (line := self.refusals.said()) is not None:
            self.note(line)
        return EXIT_REFUSED

    def duration_ms(self) -> int:
        return int((time.monotonic() - self.started) * 1000)

    # -- callbacks ---------------------------------------------------------------------------
    def on_event(self, ev: Event) -> None:
        if ev.layer == "window" and ev.action == "learned":  # said on stderr; the result object has it too
            choice = window_choice(self.session)
            self.learned = {"window": ev.tokens_after, "given": (ev.detail or {}).get("given"),
                            "server": choice.server or None, "model": choice.model or None,
                            "how": HOW.get(ev.trigger)}
        self.told.compacted(ev)
        if ev.layer == "compact" and ev.action == "failed" and not ev.detail.get("retry"):  # said it paused
            self.note(failed_line(ev, "auto-"))
        if ev.layer == "compact" and ev.action == "blocked" and ev.trigger != "manual":  # /compact says it itself
            self.note(blocked_line(ev))
        if (problem := problem_line(ev, window_choice(self.session))) is not None:
            self.note(problem)
        elif self.verbose and (line := self.layer_line(ev)) is not None:  # what the REPL says of it too
            self.trace(line)
        if self.verbose and ev.layer == "compact" and ev.action not in ("failed", "blocked") \
                and ev.trigger != "manual":  # -p /compact says it on stdout, as the REPL says it
            self.trace(compacted_text(ev))
            if (archived := archive_line(ev)) is not None:  # -p /compact writes it on stdout itself
                self.trace(archived)
        if self.stream:
            self.emit({"type": "event", **ev.to_json()})
            if (end := compaction_end(ev)) is not None:
                self.emit(end)

    def layer_line(self, ev: Event) -> str | None:
        """A layer's saving worth saying (render.layer_line), as the REPL says it: not what the end of
        the REPL turn this run continues said already (`-c`: session_feed.Foretold)."""
        window = self.session.cm.limits.window if self.session is not None else 0
        if not ev.tokens_freed or layer_line(ev) is None or (news := self.told.news(ev, self.session)) is None:
            return None
        return layer_line(news, window)

    def on_change(self, tool: str, info: dict[str, Any]) -> None:
        if self.stream and tool == "todo_write":
            self.emit({"type": "todos", "todos": info.get("todos", [])})
        if "instruction" in info:  # an instruction file written without a question (permissions.py)
            from ..agent.safety.permissions import changed_note

            self.note(f"warning: {changed_note(tool, info['instruction'], info['unasked'], info.get('custom_command'))}")
            if info["rel"] not in self.instruction_files:
                self.instruction_files.append(info["rel"])
            if self.stream:
                self.emit({"type": "instruction_file_changed", "tool": tool, "file": info["rel"],
                           "path": info["path"], "why_not_asked": info["unasked"], "said": info["instruction"],
                           "custom_command": info.get("custom_command")})

    def on_compact_start(self, trigger: str, tokens: int) -> None:
        if self.stream:
            self.emit({"type": "compaction_start", "trigger": trigger, "tokens_before": tokens})

    def on_tool(self, obj: dict[str, Any]) -> None:
        if obj["type"] == "tool_call":
            self.calls[obj["id"]] = obj
        elif obj.get("error") and (kind := refusal_kind(str(obj.get("content", "")))) is not None:
            self.refusals.add(self.calls.get(obj["id"], obj), kind)  # JSON, for programs: whole; with why
        if self.stream:
            self.emit(obj)
        if self.verbose:
            self.trace(self.tool_lines.line(obj))

    # -- results -----------------------------------------------------------------------------
    def result(self, s: AgentSession, output: str, usage: RunUsage, compactions: list[CompactionResult],
               cut: bool = False) -> dict[str, Any]:
        """The result object of a run that finished, a turn's or a slash command's alike (scripts
        parse both the same way): `usage`, the model requests (`num_turns`) and the compactions of
        this run, zero and empty where it made none. `cut_off`: the answer stopped at the model's
        output limit, which only stderr said, so a script took half an answer for a whole one."""
        from ..agent.accounting.context_report import cost_report

        refused = bool(self.denied)
        return {"type": "result", "subtype": "error_permission_denied" if refused else "success",
                "is_error": refused, "result": output, "cut_off": cut, "session_id": saved_id(s),
                "duration_ms": self.duration_ms(), "num_turns": usage.requests,
                "refused_requests": refused_requests(s), "total_cost_usd": cost_usd(cost_report(s), s),
                "usage": used(s, usage.input_tokens, usage.output_tokens, usage.cache_read_tokens, usage.requests),
                "compactions": [compaction_json(c) for c in compactions],
                **self.refused_and_changed()}

    def error_result(self, message: str, session_id: str | None, subtype: str = "error",
                     session: AgentSession | None = None) -> dict[str, Any]:
        """The result object of a run that failed. Once a session was made (`session`), with what
        its requests cost and used before the failure, in the fields of a finished run's result: a
        turn stopped by --max-turns has paid for every request it made."""
        out: dict[str, Any] = {"type": "result", "subtype": subtype, "is_error": True, "error": message,
                               "result": None, "cut_off": False, "session_id": session_id,
                               "duration_ms": self.duration_ms()}
        if session is not None:
            return out | self.spent(session)
        return out | nothing_spent() | self.refused_and_changed()

    def spent(self, s: AgentSession) -> dict[str, Any]:
        """This run's requests as recorded one by one (a failed turn reports no usage of its own):
        their count, cost, tokens, the compactions made and what was refused."""
        from ..agent.accounting.context_report import cost_report

        report = cost_report(s)
        main = [e for e in s.ext.ledger.entries if e.kind == "main"]
        return {"num_turns": len(main), "refused_requests": refused_requests(s),
                "total_cost_usd": cost_usd(report, s),
                "usage": used(s, sum(e.input_tokens for e in main), sum(e.output_tokens for e in main),
                              sum(e.cache_read for e in main), len(main)),
                "compactions": [compaction_json(c) for c in s.cm.compactions],
                **self.refused_and_changed()}


def refused_requests(s: AgentSession) -> int:
    """This run's model requests the provider refused with an HTTP error (a prompt too long, then
    compacted and sent again; a rate limit): sent, yet in neither `num_turns` nor `usage`, which
    count the requests answered (costs.UsageLedger)."""
    return s.ext.ledger.refused


def used(s: AgentSession, input_tokens: int, output_tokens: int, cache_read: int, requests: int) -> dict[str, int]:
    """A result's `usage`: the tokens of this run's requests, those of its turns (`requests`, given)
    and of the summary and session-notes requests, which `total_cost_usd` prices too (a `/compact`
    cost money while its usage said 0 tokens); the count of each kind apart. Read after `cost_report`,
    which records the side requests."""
    side = [e for e in s.ext.ledger.entries if e.kind != "main"]
    return {"input_tokens": input_tokens + sum(e.input_tokens for e in side),
            "output_tokens": output_tokens + sum(e.output_tokens for e in side),
            "cache_read_tokens": cache_read + sum(e.cache_read for e in side), "requests": requests,
            "summary_requests": len(s.summary_usage),
            "memory_requests": len(s.memory.usage) if s.memory is not None else 0}


async def run_print(opts: SessionOptions, prompt: str, output_format: str = "text", verbose: bool = False,
                    typed: str | None = None, saved_in: Early | None = None, unsaved: str | None = None) -> int:
    """One turn of `prompt`; `typed` is the part the user typed (the query argument), the only
    place `@path` attaches a file — never piped input (None: all of `prompt` was typed).
    `saved_in`: where the command line saved `prompt` already (early_prompt.py), or `unsaved`, why
    it could not (the run stops there); else a prompt that is a turn's is saved here, before the
    session is built."""
    from ..error_text import describe_error

    run = PrintRun(output_format, verbose)
    stop_signals.reporting(run.terminated, run.refusals.said)  # a signal says what was refused too
    if unsaved is not None:
        return _failed(run, unsaved, None)
    # What was typed (the query; with `-p -`, what came on stdin is the query)
    said = typed or prompt
    custom = print_commands.custom(opts.cwd, said)
    if custom is None and (refusal := print_commands.refusal(prompt, opts.cwd)) is not None:  # before a session is made for nothing
        return _failed(run, refusal, None, code=2)
    command = None  # a custom command line whose file's text alone is the prompt: its turn listed as typed later
    if custom is not None:
        from ..agent.run.options import unreadable_before
        from .command_registry import CommandError
        from .custom_commands import custom_prompt

        path, args, more = custom
        piped = prompt[len(said):] if typed and prompt.startswith(typed) else ""
        try:  # as if typed (@path in it attaches); what was piped after it, or all of stdin with `-p -`, attaches nothing
            prompt, typed = (text := custom_prompt(path, args, unreadable_before(opts))) + more + piped, (None if typed is None or typed and not piped else text + (more if typed else ""))
        except CommandError as e:
            return _failed(run, str(e), None)
        command = None if more or piped else said.strip()  # lines after it, or piped in: the line would hide them
    if saved_in is None and print_commands.slash_command(prompt) is None:  # a custom command's prompt, a path's question
        saved_in, problem = save_early(opts, prompt)
        if problem is not None:
            return _failed(run, problem, None)
    try:
        session = AgentSession(opts, on_event=run.on_event, on_compact_start=run.on_compact_start,
                               on_change=run.on_change, on_tool=run.on_tool,
                               resolved=saved_in.resolved if saved_in is not None else None)
    except Exception as e:  # noqa: BLE001 - one line (and the JSON error object), never a traceback
        if isinstance(e, UsageError):  # refused as bad usage: nothing ran, nothing stays saved
            if saved_in is not None:
                take_back(opts, saved_in)
            return _failed(run, describe_error(e, RETRY_HINT, KEPT_HINT), None, code=2)
        # Else the prompt stays in its session, unanswered (-c or -r ID goes on): the JSON result names it.
        saved = saved_in.session_id if saved_in is not None and saved_in.entry_id else None
        retry, kept = _hints(session_root(opts.cwd.resolve(), opts.home), saved)
        said = describe_error(e, retry, kept)  # a missing key's line takes no hint: the -r ID that -c would not find
        return _failed(run, said + (retry if retry != RETRY_HINT and retry not in said else ""), None, session_id=saved)
    run.session, session.command_file = session, custom is not None  # a command file's words attach inside the fence
    try:  # whatever ends it (an error, a reader that left before the first line), the session is closed
        outcome = await _in_session(run, session, prompt, typed)
    finally:
        print_commands.note_typed(session, command, prompt)
        await session.aclose()
    if isinstance(outcome, int):
        return outcome
    turn = outcome
    if output_format == "text":
        sys.stdout.write(visible(secrets.redact(turn.output.rstrip("\n"))) + "\n")
    else:
        run.emit(run.result(session, turn.output, turn.usage, turn.compactions, cut=turn.cut))
    if turn.cut:  # an answer that ends mid-sentence must not read as whole
        run.note(f"note: {CUT_NOTE}")
    return run.refused() if run.denied else 0


async def _in_session(run: PrintRun, session: AgentSession, prompt: str, typed: str | None) -> TurnResult | int:
    """The turn (or the slash command) once the session is made: its result, or the exit code."""
    from ..error_text import describe_error, max_turns_message

    for w in session.warnings:
        run.note(f"warning: {w}")
    for line in session.notes:  # a turn the user stopped
        run.note(line)
    for line in session.notices:  # a window remembered from an earlier session (server_windows.py)
        run.note(line)
    for line in said_unsent(Unsent.take_left(session.store.dir)):  # typed ahead in the REPL, never sent
        run.note(line)
    if print_commands.command_name(prompt) == "mcp" and session.ext.mcp is not None:
        session.ext.mcp.listed = True  # the servers connect for `init`: a failure is said in /mcp's list only
    if run.stream:
        await print_init.emit_init(run, session)  # its tools the first request's: the MCP servers connect for it
    if (slash := print_commands.slash_command(prompt)) is not None:
        return await print_slash.run_slash(run, session, slash,
                                           lambda said, code: _failed(run, said, session, code=code),
                                           run.refused)
    for attached in session.attachments(prompt if typed is None else typed):
        run.note(attached.line)  # what went with the message (an @file, a pasted image), or why not
    prompt, too_large = session.fit_input(prompt, typed)  # input larger than a request goes as a file
    if too_large is not None:
        run.note(too_large)
        if session.store.prompt_pending():  # saved as it came: saved again as it goes (the request names it)
            with contextlib.suppress(OSError):
                session.store.save_prompt(prompt)
    try:
        on_text = (lambda t: run.emit({"type": "text", "text": t})) if run.stream else None
        # --verbose says a refused request's wait, as the REPL does (retry_notice.py)
        with retry_notice.telling(run.trace) if run.verbose else contextlib.nullcontext():
            return await session.run_turn(prompt, on_text=on_text, on_tool=run.on_tool, typed=typed)
    except Exception as e:  # noqa: BLE001
        subtype = "error_max_turns" if max_turns_message(e) else "error"  # an answer not saved is shown all the same
        hints = _hints(session.store.root, saved_id(session))
        return print_unsaved.shown(run, session, e, saved_id(session)) or _failed(run, describe_error(e, *hints), session, subtype)
    except BaseException as e:  # Ctrl-C, or a reader that closed the pipe (`| head -1`, pipes.py): `-c` says the user stopped it
        if isinstance(e, asyncio.CancelledError | KeyboardInterrupt) or reader_left(e):  # as the REPL's
            with contextlib.suppress(OSError):
                session.store.note_stopped()
        raise


def _hints(root: Path, session_id: str | None) -> tuple[str, str]:
    """How a failure says the session its prompt is saved in goes on: `-c`, or `-r ID` where `-c` opens another."""
    from ..session.answered import answered, continued_id

    if session_id is None or (was := stop_signals.passed_over(session_id)) is None:  # else known from the start
        return print_slash.hints(session_id, session_id is None or continued_id(root) == session_id)
    return print_slash.hints(session_id, not was or answered(root / f"{session_id}.jsonl"))


def saved_id(s: AgentSession) -> str | None:
    """The session's id for a result object, or None where nothing is saved in it (a slash command
    in a new session: `-r ID` would find no such session), or nothing to resume (a failed `/init`
    in a new session, removed as the run ends: session/unused.py)."""
    return s.session_id if s.store.path.exists() and not s.store.keeps_nothing() else None


def compaction_json(c: CompactionResult) -> dict[str, Any]:
    return {"trigger": c.trigger, "strategy": c.strategy, "tokens_before": c.tokens_before,
            "tokens_after": c.tokens_after, "archive": str(c.archive or "")}


def cost_usd(report: CostReport, s: AgentSession) -> float | None:
    """What the run cost, or None (JSON null) when a model in it, or the session's model, has no
    known price: 0.0 would read as free. A run that made no request (an endpoint not reached, a
    slash command) has no model in its report, so the session's own model says it."""
    return round(report.total_cost, 6) if report.priced and s.info.has_prices else None


def _failed(run: PrintRun, message: str, session: AgentSession | None, subtype: str = "error", code: int = 1,
            session_id: str | None = None) -> int:
    """Say why the run failed (stderr; a JSON result in json and stream-json), and its exit code.
    `session`: the session once made, whose requests so far the result reports; `session_id`: the
    one the prompt was saved in when the session could not be made."""
    run.refused()  # what a run that failed refused before: only its JSON listed it
    run.note(message)
    if run.format != "text":
        run.emit(run.error_result(message, saved_id(session) if session is not None else session_id, subtype,
                                  session))
    return code
