"""`/expand` (and Ctrl-O at the prompt): tool calls with their whole output.

While a turn runs, each tool call gets one line and a command its last three lines; the rest is in
the session, where a user who wants to read it could not get at it. This prints it, as Claude
Code's Ctrl-O and Codex's transcript view do: the calls of the last turn by default, or the last N
calls. What a compaction replaced is in its archive (`/history` names it), not here.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from pydantic_ai.messages import (
    ModelMessage,
    ModelRequest,
    ModelResponse,
    RetryPromptPart,
    ToolCallPart,
    ToolReturnPart,
)
from rich.console import Console
from rich.text import Text

from ..agent.run.runner import AgentSession
from ..agent.run.stream_events import call_args, shown_result
from ..context.plumbing.markers import users_request
from . import tool_lines
from .command_registry import CommandError, command
from .visible import visible

MARK = "  ⎿ "


@dataclass
class Call:
    part: ToolCallPart
    output: str | None  # None: no result yet (an interrupted turn)
    error: bool
    turn: int  # which user prompt it answered (counting from 1)


def tool_calls(messages: Sequence[ModelMessage]) -> list[Call]:
    """Every tool call in `messages` with its whole result, oldest first."""
    calls: dict[str, Call] = {}
    turn = 0
    for m in messages:
        if isinstance(m, ModelRequest):
            if users_request(m):
                turn += 1
            for p in m.parts:
                if isinstance(p, ToolReturnPart | RetryPromptPart) and p.tool_call_id in calls:
                    call = calls[p.tool_call_id]
                    if isinstance(p, ToolReturnPart):
                        call.output, _, call.error = shown_result(p)
                    else:
                        call.output, call.error = p.model_response(), True
        elif isinstance(m, ModelResponse):
            for part in m.parts:
                if isinstance(part, ToolCallPart):
                    calls[part.tool_call_id] = Call(part, None, False, turn)
    return list(calls.values())


def chosen(calls: list[Call], args: str) -> list[Call] | str:
    """The last turn's calls, or the last N; a one-line usage error for anything else."""
    if not args:
        return [c for c in calls if c.turn == calls[-1].turn] if calls else []
    if not args.isdigit() or int(args) < 1:
        return "usage: /expand [N] (the last turn's tool calls in full, or the last N calls)"
    return calls[-int(args):]


def show(calls: list[Call], c: Console) -> None:
    for call in calls:
        c.print(tool_lines.call_line({"tool": call.part.tool_name, **call_args(call.part)},
                                     min(tool_lines.WIDTH, c.width)), style="bold", highlight=False)
        if call.output is None:
            c.print("  ⎿ (no result: the turn was interrupted)", style="dim")
            continue
        if (told := tool_lines.told_instead({"error": call.error, "content": call.output})) is not None:
            # The user's answer, not a failure: in the live turn's words, whole (it was red, as an error).
            c.print(_under_mark(c, f"declined; the model is told: {told}", "dim"), highlight=False)
            continue
        c.print(_under_mark(c, call.output.rstrip("\n"), "red" if call.error else ""), highlight=False)
    if calls:
        c.print(f"{len(calls)} tool call{'s' if len(calls) != 1 else ''} in full", style="dim")


def _under_mark(c: Console, output: str, style: str) -> Text:
    """`  ⎿ output`, each of its lines under the first, and a line longer than the terminal wrapped
    under its own text (at 60 columns its rest went on at column 0, under the mark, and read as a
    line of its own)."""
    shown = Text(style=style)  # one style for the whole: the mark and the text are one segment
    for i, row in enumerate(Text(visible(output)).wrap(c, max(10, c.width - len(MARK)))):
        shown.append("\n" + " " * len(MARK) if i else MARK)
        shown.append_text(row)
    return shown


def expand(s: AgentSession, args: str, c: Console) -> None:
    picked = chosen(tool_calls(s.messages), args.strip())
    if isinstance(picked, str):
        raise CommandError(picked)
    if not picked:
        from .history_view import all_boundaries, compactions

        compacted = bool(compactions(all_boundaries(s.store)))  # this run's or before a resume
        c.print("no tool calls since the last compaction (/history names the archive that holds the earlier ones)"
                if compacted else "no tool calls in this session yet")
    else:
        show(picked, c)


@command("expand", "the last turn's tool calls with their whole output (Ctrl-O); /expand N: the last N calls")
async def _expand(s: AgentSession, args: str, c: Console) -> None:
    expand(s, args, c)
