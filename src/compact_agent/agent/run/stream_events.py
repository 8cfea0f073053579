"""Tool calls and results of a run as plain JSON objects (for `--output-format stream-json`).

pydantic-ai reports them in the run's event stream (`FunctionToolCallEvent`,
`FunctionToolResultEvent`); scripts and CI want one stable, small shape per line instead. A result
is cut to `MAX_RESULT_CHARS`: the full text is in the session file, and a CI log that repeats every
file the agent read is unreadable.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Protocol

from pydantic_ai.messages import (
    FunctionToolCallEvent,
    FunctionToolResultEvent,
    PartDeltaEvent,
    PartStartEvent,
    RetryPromptPart,
    TextPart,
    TextPartDelta,
    ToolCallPart,
    ToolReturnPart,
)

from ... import secrets
from ...models import REGISTRY
from ...words import plural
from ..tools.arg_errors import shown_lines
from ..tools.base import is_failure
from .big_input import cut_line

if TYPE_CHECKING:
    from ...config import Settings
    from ...models import ModelInfo
    from .options import SessionOptions

MAX_RESULT_CHARS = 2_000


def tool_event(ev: Any) -> dict[str, Any] | None:
    """{"type": "tool_call" | "tool_result", ...} for a tool event, else None."""
    if isinstance(ev, FunctionToolCallEvent):
        p = ev.part
        # What is shown of a call (a tool line, stream-json): a key the model repeats is not.
        shown = json.loads(secrets.redact(json.dumps(call_args(p), ensure_ascii=False, default=str)))
        return {"type": "tool_call", "tool": p.tool_name, "id": p.tool_call_id, **shown}
    if isinstance(ev, FunctionToolResultEvent):
        r = ev.part
        if isinstance(r, ToolReturnPart):
            text, summary, error = shown_result(r)
        elif isinstance(r, RetryPromptPart):
            text, error = r.model_response(), True
            summary = result_summary(r.tool_name, text, error)
        else:
            return None
        out: dict[str, Any] = {"type": "tool_result", "tool": r.tool_name, "id": r.tool_call_id,
                               "error": error, "chars": len(text), "summary": summary}
        out["content"] = text if len(text) <= MAX_RESULT_CHARS else text[:MAX_RESULT_CHARS] + "…[cut]"
        if r.tool_name == "bash" and not _retried(r):
            from ..tools.shell import cut_from

            out["output_lines"], out["tail"] = bash_tail_lines(text)
            if cut := cut_from(text):  # the lines counted are those kept: the REPL says what went
                out["cut_chars"] = cut
        return out
    return None


def call_args(part: ToolCallPart) -> dict[str, Any]:
    """`{"args": {...}}`, a call's arguments as they are shown (its tool line, `/history`, `/expand`,
    stream-json). Arguments the model wrote as something other than a JSON object (`{not json`) are
    `{"args": {}, "args_raw": "{not json"}`, as written: pydantic-ai reads them as
    `{"INVALID_JSON": "{not json"}`, an argument no one sent, under a name of its own."""
    try:
        return {"args": part.args_as_dict(raise_if_invalid=True)}
    except (ValueError, AssertionError):  # not JSON, or JSON that is not an object
        return {"args": {}, "args_raw": str(part.args)}


def shown_result(part: ToolReturnPart) -> tuple[str, str, bool]:
    """(text, summary, error) of a result as the user is shown it (the tool line, ctrl+o, /history).
    A call sent back for its arguments shows its words, not pydantic-ai's `{"error": ...}` wrapper,
    and its summary is one line per problem (arg_errors.py), without the hint meant for the model."""
    retried = _retried(part)
    text = part.model_response_str(wrap_if_error=not retried)
    error = is_failure(part) or getattr(part, "outcome", "success") != "success"
    summary = "\n".join(shown_lines(text) if retried else []) or result_summary(part.tool_name, text, error)
    return text, summary, error


def _retried(part: Any) -> bool:
    return getattr(part, "outcome", "success") == "retried"


def result_summary(tool: str, text: str, error: bool) -> str:
    """How a call went, in a few words, from the whole result (the `content` of the event is cut):
    lines read, matches, files, or a command's exit code and last line of output (`SUMMARIES`). A
    failure is its text on one line, but a command's: its exit code and output say how it went."""
    if error and tool != "bash":
        return " ".join(text.split())
    return SUMMARIES.get(tool, _first_line)(text.splitlines())


def _lines_read(lines: list[str]) -> str:
    numbered = [ln for ln in lines if _NUMBERED.match(ln)]
    return plural(len(numbered), "line") if numbered else " ".join(" ".join(lines).split())


#: The note a grep or glob stopped with, by what stopped it: its time, its entries, an interrupt, a
#: pattern or glob too slow on one line or name (search.py, walk.py).
_STOPPED = re.compile(r"\[(?:grep|glob) (stopped after [\d.,]+ (?:s|entries)|interrupted"
                      r"|stopped: the (?:pattern|glob) took over [\d.]+ s)")
_HIDDEN = re.compile(r"^[\d,]+ entr(?:y|ies) hidden by deny_paths")


def _found(unit: str) -> Callable[[list[str]], str]:
    """grep's matches or glob's files, without the notes (in brackets, and the count of entries a
    deny rule hid); why it stopped when it did: its time or an interrupt (the search did not
    finish), else the cap on what it lists."""
    def summary(lines: list[str]) -> str:
        if not lines or lines[0].startswith("No "):
            return _first_line(lines)
        notes = [ln for ln in lines if ln.startswith("[") and ln.endswith("]")]
        found = [ln for ln in lines if not (ln.startswith("[") and ln.endswith("]")) and not _HIDDEN.match(ln)]
        n = plural(len(found), unit)
        for note in notes:
            if unit == "file" and (m := re.match(r"\[\d+ of (\d+) files", note)):
                return plural(int(m.group(1)), "file") + f" ({len(found)} listed)"
            if m := _STOPPED.match(note):
                return f"{n} ({m.group(1)}; search not finished)"
            if note.startswith("[stopped at "):
                return f"{n} (stopped: more not listed)"
        return n
    return summary


_NOW_READ = re.compile(r"; lines (\d+)-(\d+) now read:$")


def _first_line(lines: list[str]) -> str:
    """The result's first line, without a colon that introduced what follows (the summary shows
    none of it): `Edited a.py (1 replacement) · lines 3-9`, `Plan updated (1/3 done)`."""
    if not lines:
        return "(empty)"
    first = " ".join(lines[0].split())
    if first.endswith(":") and len(lines) > 1:
        first = _NOW_READ.sub(r" · lines \1-\2", first).rstrip(":").rstrip()
    return first


def bash_tail_lines(text: str, n: int = 3) -> tuple[int, list[str]]:
    """(lines of output, its last `n` non-empty lines): what the REPL shows under a command's line."""
    lines = text.splitlines()
    if lines and lines[-1].startswith("exit code:"):
        lines = lines[:-1]
    body = [ln for ln in lines if ln.strip()]
    return len(lines), [ln[:200] for ln in body[-n:]]


_NUMBERED = re.compile(r"^\s*\d+\t")


def _bash_tail(lines: list[str]) -> str:
    """The exit code and the last line of output before it."""
    code = lines[-1] if lines and lines[-1].startswith("exit code:") else ""
    body = [ln for ln in lines[:-1] if ln.strip()] if code else [ln for ln in lines if ln.strip()]
    last = " ".join(body[-1].split()) if body else "(no output)"
    return f"{code} · {last}" if code else last


#: Each built-in tool's summary of its result (agent/tools/names.py's TOOL_NAMES are all here: a
#: test holds them to it); any other tool's (the plan's, an MCP server's) is its first line.
SUMMARIES: dict[str, Callable[[list[str]], str]] = {
    "read_file": _lines_read, "write_file": _first_line, "edit_file": _first_line, "bash": _bash_tail,
    "grep": _found("match"), "glob": _found("file")}


def dumps(obj: dict[str, Any]) -> str:
    return json.dumps(obj, ensure_ascii=False, default=str)


def compaction_end(ev: Any) -> dict[str, Any] | None:
    """The `compaction_end` line for a finished (or failed) compaction event."""
    if getattr(ev, "layer", "") != "compact":
        return None
    detail = ev.detail or {}
    if ev.action == "failed":
        return {"type": "compaction_end", "ok": False, "trigger": ev.trigger, "error": detail.get("error", ""),
                "duration_ms": ev.duration_ms,
                **({"skipped": True} if detail.get("skipped") else {}),
                **({"paused": True} if detail.get("paused") else {}),
                **({"retry_in_s": wait} if isinstance(wait := detail.get("retry_in_s"), int | float) else {})}
    if ev.action == "blocked":
        return {"type": "compaction_end", "ok": False, "blocked": True, "trigger": ev.trigger,
                "reason": detail.get("reason", ""), "fallback": detail.get("fallback", "")}
    hook_ms = detail.get("hook_ms")  # of `duration_ms`, what the PreCompact hooks took
    return {"type": "compaction_end", "ok": True, "trigger": ev.trigger, "strategy": ev.action,
            "tokens_before": ev.tokens_before, "tokens_after": ev.tokens_after,
            "archive": detail.get("archive", ""), "duration_ms": ev.duration_ms,
            **({"hook_ms": hook_ms} if isinstance(hook_ms, int | float) and not isinstance(hook_ms, bool) else {})}


def blocked_line(ev: Any) -> str:
    """`compaction (auto) blocked by the PreCompact hook `x`: reason; this request is shrunk to fit …`"""
    detail = ev.detail or {}
    return (f"compaction ({ev.trigger}) blocked by {detail.get('reason') or 'its before_compact handler'}; "
            f"{detail.get('fallback') or 'nothing was changed'}")


@dataclass(frozen=True)
class WindowChoice:
    """Where the window a server turned out smaller than came from: `given` by the user (the flag,
    the setting, `/model --window`, or remembered by the session from one of those), else the
    registry's for a model it knows (`model`), else assumed for one it does not (models.py)."""

    model: str = ""
    given: bool = False
    remembered: bool = False  # given, but remembered by the resumed session, not by this command line
    source: str = ""  # where a window given came from (settings_file.Loaded.sources): "flag", "user file", …
    server: str = ""  # the session's server: its base URL (passwords hidden), or the provider's name
    minimum: int = 0  # the smallest window that can be given at start (window_check.py): none under it is advised
    reported: bool = False  # not given: the server reported it (start_notes.reported_window)

    def named(self) -> str:
        """The server in words: `the server at http://127.0.0.1:8000/v1`, `DeepSeek's API`, or `the
        server` where the session is not known."""
        api = {"deepseek": "DeepSeek's API", "anthropic": "Anthropic's API", "openai": "OpenAI's API"}
        return api.get(self.server) or (f"the server at {self.server}" if self.server else "the server")

    def cut_hint(self) -> str:
        """What sets the context length of a server that cuts prompts to it: Ollama's variable, said
        only for an address that is Ollama's (its port, 11434, or its name); any other server's
        line named Ollama all the same."""
        ollama = re.search(r"ollama|:11434(?:/|$)", self.server.lower()) is not None
        return " (an Ollama server does, at its context length: OLLAMA_CONTEXT_LENGTH)" if ollama else ""

    def words(self, window: int) -> str:
        """`the 64,000 given`, `the 32,768 assumed`, `deepseek-chat's own 128,000`; a window no flag
        of this run gave is said where it came from: `the 32,000 the session remembers` (`-c`), `the
        32,000 set in the config file`, `the 32,000 set by COMPACT_AGENT_CONTEXT_WINDOW`."""
        if self.given:
            whence = ("the session remembers" if self.remembered else "set in the config file"
                      if self.source.endswith(" file") else f"set by {self.source[4:]}"
                      if self.source.startswith("env ") else "given")
            return f"the {window:,} {whence}"
        if self.reported:
            return f"the {window:,} it reported"
        return f"{self.model}'s own {window:,}" if self.model in REGISTRY else f"the {window:,} assumed"

    def start_there(self, learned: int) -> str:
        """How the next run skips the refusal (or the prompts cut) that taught `learned`: give it;
        under the minimum, which would be refused at start, the server's own window is what to raise.
        Nothing for a window the resumed session remembered: it keeps the one learned (`-c`)."""
        if self.remembered:
            return ""
        if learned < self.minimum:
            return (f" (a window under {self.minimum:,} is too small to start in: start that server with a "
                    "larger context to work in more)")
        return f" (give --context-window {learned}, or context_window = {learned} in config.toml, to start there)"


class ChosenWindow(Protocol):
    """What `window_choice` reads of a session (the runner imports this module: not its class)."""

    @property
    def opts(self) -> SessionOptions: ...
    @property
    def settings(self) -> Settings: ...
    @property
    def info(self) -> ModelInfo: ...
    @property
    def window_minimum(self) -> int: ...


def window_choice(session: ChosenWindow | None) -> WindowChoice:
    """The session's `WindowChoice` (before it is built: a window given, the old wording)."""
    if session is None:
        return WindowChoice(given=True)
    from ...session.remembered import this_run

    option = session.opts.context_window or session.settings.context_window  # a known model switched to
    given = bool(option) and option == session.info.window  # has its own
    run = this_run()
    remembered = given and run is not None and "context_window" in run.applied
    config = session.opts.config
    source = config.sources.get("context_window", "") if config is not None and given else ""
    from .server_keys import endpoint

    # No --base-url: the server at OPENAI_BASE_URL (ANTHROPIC_BASE_URL), as windows kept for it are keyed.
    server = endpoint(session.opts.base_url, session.info.provider).removesuffix(":")  # the provider's name, no URL
    reported = getattr(session, "reported", None)  # a window reported and worked in, not given
    return WindowChoice(session.info.name, given=given, remembered=remembered, source=source, server=server,
                        minimum=session.window_minimum,
                        reported=not given and reported is not None and reported.window == session.info.window)


def problem_line(ev: Any, choice: WindowChoice | None = None) -> str | None:
    """The one line a user should see for a hook or MCP server that misbehaved, a server whose
    window is smaller than the one it was given or assumed to have, the turn's input cut to that
    window, or checkpoints an edited history left without their place (else None)."""
    if getattr(ev, "layer", "") == "window" and getattr(ev, "action", "") == "learned":
        return window_line(ev, choice)
    if getattr(ev, "layer", "") == "window" and getattr(ev, "action", "") == "forgotten":  # window_proof.py
        from .server_windows import forgotten_line

        return forgotten_line(ev)
    detail = ev.detail or {}
    if getattr(ev, "layer", "") == "checkpoints" and ev.action == "dropped":  # an edited history (rewinding.py)
        return str(detail.get("line", ""))
    if getattr(ev, "layer", "") == "input" and ev.action == "cut":  # to a window a refusal taught (turn.py)
        window = int(detail.get("window", 0))
        return cut_line(int(detail.get("size", ev.tokens_before)), int(detail.get("threshold", window)), window,
                        detail.get("path", ""), server=(choice or WindowChoice(given=True)).named())
    if getattr(ev, "action", "") != "failed":
        return None
    if ev.layer == "input":
        return str(detail.get("error", "could not save the large input beside the session"))
    if ev.layer == "hook":  # a configured hook's error names it ('SessionStart hook `cmd` exited with 3')
        error = str(detail.get("error", "failed"))
        return error if detail.get("hook") else f"hook: {error}"
    if ev.layer == "mcp":  # not again for a /mcp whose list says it (`-p /mcp` said it on stderr too)
        return None if detail.get("listed") else str(detail.get("message", "MCP server failed"))
    return None


def window_line(ev: Any, choice: WindowChoice | None = None) -> str:
    """`the server at http://127.0.0.1:8000/v1 refused a request whose prompt was 8,962 tokens: its
    window is 8,000, not the 64,000 given; working within 8,000 from now on`: said once, when the
    limit is learned (state.py), from a refusal or from prompts the server cut to its limit and
    reported at that size, naming the session's server alike (`choice.named()`). `choice` says where
    the larger window came from ("given", "assumed", the model's own); None: given. The figure a
    refusal names is its prompt's (OpenAI's '8000 in the messages', vLLM's 'prompt (length N)'):
    said as 'a request of 7,900 tokens' beside a window of 8,192 it read as a request that fitted.
    `(besides the room asked for its answer)` follows it where the request asked for room, which the
    server counts too (the event's `room`); the agent's main requests ask for none, yet every line
    said it."""
    given = (ev.detail or {}).get("given")
    choice = choice or WindowChoice(given=True)
    than = f", not {choice.words(given)}" if isinstance(given, int) else ""
    then = f"working within {ev.tokens_after:,} from now on{choice.start_there(ev.tokens_after)}"
    if getattr(ev, "trigger", "") == "cut":  # learned from its usage reports: it cut prompts, silently
        return (f"{choice.named()} cut requests of about {ev.tokens_before:,} tokens to {ev.tokens_after:,} "
                f"without saying so{choice.cut_hint()}: its window is {ev.tokens_after:,}{than}; {then}")
    what = {"summary": "a summary request", "notes": "a session-notes request"}.get(  # compacting.py
        (ev.detail or {}).get("request", ""), "a request")
    room = " (besides the room asked for its answer)" if (ev.detail or {}).get("room") else ""
    refused = f"refused {what} whose prompt was {ev.tokens_before:,} tokens{room}" if ev.tokens_before else (
        f"refused {what}")
    return f"{choice.named()} {refused}: its window is {ev.tokens_after:,}{than}; {then}"


def stream_handler(on_text: Callable[[str], None] | None,
                    on_tool: Callable[[dict[str, Any]], None] | None = None,
                    partial: list[str] | None = None) -> Callable[..., Any]:
    """`partial` collects the text of the stream in progress (cleared when a new one starts).

    `on_text` is shown the text with the key redacted, also a key the stream cut in two (a provider
    sends a few characters at a time): the end that could still become one is held back until the
    next piece, a tool call or the end of the stream."""
    seen: list[str] = partial if partial is not None else []

    async def handler(ctx: Any, events: Any) -> None:
        seen.clear()
        shown = secrets.StreamRedactor()

        def text(piece: str, flush: bool = False) -> None:
            if not isinstance(piece, str):  # a number for a text (an SDK checks no streamed event): not
                piece = ""  # shown nor kept as cut, the reply refused once it has come (retry.py)
            if piece:
                seen.append(piece)
            if on_text and (safe := shown.feed(piece) + (shown.flush() if flush else "")):
                on_text(safe)

        async for ev in events:
            if isinstance(ev, PartStartEvent) and isinstance(ev.part, TextPart) and ev.part.content:
                text(ev.part.content)
            elif isinstance(ev, PartDeltaEvent) and isinstance(ev.delta, TextPartDelta):
                text(ev.delta.content_delta)
            elif on_tool is not None and (obj := tool_event(ev)) is not None:
                text("", flush=True)  # the text before the call is shown before it
                on_tool(obj)
        text("", flush=True)
    return handler
