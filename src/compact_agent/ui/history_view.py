"""The last exchanges of a resumed session, so `--continue` shows where the work stopped."""

from __future__ import annotations

import itertools
from collections.abc import Callable, Iterable, Sequence
from typing import TYPE_CHECKING

from pydantic_ai.messages import (
    ModelMessage,
    ModelRequest,
    ModelResponse,
    RetryPromptPart,
    TextPart,
    ToolCallPart,
    ToolReturnPart,
    UserPromptPart,
)

from ..agent.run.stream_events import call_args, result_summary, shown_result
from ..agent.run.unfinished import CUT, SIGNAL_CUT, STOPPED, calls_unsaved, closes_unsaved
from ..context.compaction.summary import compaction_part, is_summary, is_synthetic_text
from ..session.last_run import SIGNAL_WORDS, closed_by_signal, signal_words
from ..session.store import SessionStore
from ..session.typed import as_typed
from ..words import plural
from .history_rewrites import EDITED as EDITED  # re-exported: /history, /status and /rewind read them here
from .history_rewrites import WORDS_AT as WORDS_AT
from .history_rewrites import all_boundaries as all_boundaries
from .history_rewrites import boundary_lines as boundary_lines
from .history_rewrites import boundary_words as boundary_words
from .history_rewrites import compactions as compactions

if TYPE_CHECKING:
    from rich.console import Console

WIDTH = 160


def _clip(text: str) -> str:
    from .render import clip_words

    return clip_words(text, WIDTH)


#: What a resumed session shows under a prompt whose turn the program closed without an answer
#: (agent/run/unfinished.py): live, the REPL said `interrupted` or why the request failed; the
#: close is the program's, not the model's, and is not shown as an answer.
NO_ANSWER = "(no answer: the turn was interrupted, hit its request limit, or failed)"
#: … and under the prompt of a turn the model answered whose answer could not be saved (a full disk:
#: agent/run/unsaved_answer.py): the user read it then; the conversation does not hold it.
ANSWER_NOT_SAVED = "(answered, but the answer could not be saved: it was shown then, and is not in the conversation)"
#: … and under the prompt of a turn whose tool calls ran and could not be saved with their results (a
#: full disk: unsaved_answer.keep_calls), `{tools}` their names: what they changed may be in place.
RAN_NOT_SAVED = ("(the model's tool calls ({tools}) ran, but they and their results could not be saved: files may "
                 "have changed, and the conversation does not hold them)")
#: Under the answer of a turn the program closed after the model's text (a tool call's request cut short).
ENDED = "(the turn ended here: it was interrupted, hit its request limit, or failed)"
#: …of one a signal ended while its request was out (unfinished.signalled_close), `{signal}` in words.
SIGNALLED = "(no answer: the turn was stopped by {signal}; the session was saved)"
SIGNALLED_AFTER = "(the turn ended here: it was stopped by {signal}; the session was saved)"
#: The row of a read of the program's own (toolset.mention_messages), by its kind: not the model's call.
READ_BY_US = {"mention": "attached", "restore": "restored"}
#: Under the part of a reply the stream tore, instead of the marker the model reads.
CUT_OFF = "(the reply was cut off here; this answer is incomplete)"
#: … and of a reply the user stopped (Esc, Ctrl-C) while it was being written.
STOPPED_HERE = "(you stopped this reply here; it is incomplete)"
#: … and of one a signal ended the run in (unfinished.SIGNAL_CUT), `{signal}` in words.
SIGNAL_CUT_HERE = "(the reply was cut off here: the turn was stopped by {signal}; the session was saved)"
#: Each marker a reply kept cut off ends in (agent/run/unfinished.py) with the note shown instead (/history too).
CUT_OFFS = ((CUT, CUT_OFF), (STOPPED, STOPPED_HERE),
            *((SIGNAL_CUT.format(signal=w), SIGNAL_CUT_HERE.format(signal=w)) for w in SIGNAL_WORDS.values()))


def _exchanges(messages: Sequence[ModelMessage], not_saved: bool = False,
               ran: Sequence[str] = (), signal: str = "") -> list[tuple[str, str, str]]:
    """(prompt as typed, the answer's text, a status line) for every user prompt, oldest first. The
    status says what the program noted of the turn: closed without an answer, or a reply cut off.
    A history that ends at the prompt itself (its turn stopped, failed or killed, and not closed
    yet: the next message closes it) has no answer either: its prompt showed with nothing under it,
    as if it were the prompt waiting for input; nor has one that ends at the results of the model's
    tool calls (stopped at work), whose words before the calls showed as if they were its answer.
    `not_saved`: the history ends at a prompt the model answered, the answer not saved (the file's
    mark: SessionStore.answer_not_saved); it and the close that follows such a prompt say so. `ran`:
    the tools of the model's calls for the prompt the history ends at, which ran and were not saved
    (SessionStore.calls_not_saved); said as `not_saved` is, as is the close that names them. `signal`:
    a signal ended the run while the request the history ends at was out (SessionStore.signalled),
    said as the close the next turn gives it says it."""
    words = signal_words(signal)
    pairs: list[tuple[str, str, str]] = []
    for i, m in enumerate(messages):
        last = i == len(messages) - 1
        if isinstance(m, ModelRequest) and is_summary(m):  # a prompt kept verbatim in it, with the answer after it
            prompts = _carried(m) or _turn_going_on(m, itertools.islice(messages, i + 1, None))
            if prompts and not last:  # …else its answer went into the summary
                pairs.append((as_typed(prompts[-1]), "", ""))
        elif isinstance(m, ModelRequest):
            prompts = [p for p in _typed(m) if isinstance(p, str)]
            if prompts:
                ended = ANSWER_NOT_SAVED if not_saved else _ran(ran) if ran else \
                    SIGNALLED.format(signal=words) if signal else NO_ANSWER
                pairs.append((as_typed(prompts[-1]), "", ended if last else ""))
            elif last and pairs and _results(m) and _calls(messages[i - 1]):  # stopped at work: no answer to them
                ended = ANSWER_NOT_SAVED if not_saved else ENDED if pairs[-1][1] else NO_ANSWER  # …or none saved
                if signal and not not_saved:
                    ended = (SIGNALLED_AFTER if pairs[-1][1] else SIGNALLED).format(signal=words)
                pairs[-1] = (pairs[-1][0], pairs[-1][1], ended)
        elif isinstance(m, ModelResponse) and pairs:
            text = "".join(p.content for p in m.parts if isinstance(p, TextPart)).strip()
            ours = _synthetic(m)
            if ours == "unanswered" and closes_unsaved(m):
                pairs[-1] = (pairs[-1][0], pairs[-1][1], ANSWER_NOT_SAVED)
            elif ours == "unanswered" and (tools := calls_unsaved(m)):
                pairs[-1] = (pairs[-1][0], pairs[-1][1], _ran(tools))
            elif ours == "unanswered" and (signal := closed_by_signal(m)):
                said = (SIGNALLED_AFTER if pairs[-1][1] else SIGNALLED).format(signal=signal_words(signal))
                pairs[-1] = (pairs[-1][0], pairs[-1][1], said)
            elif ours == "unanswered":
                pairs[-1] = (pairs[-1][0], pairs[-1][1], ENDED if pairs[-1][1] else NO_ANSWER)
            elif text:
                body, note = cut_off(text) if ours == "cut" else (text, "")
                pairs[-1] = (pairs[-1][0], body, note)
    return pairs


def _ran(tools: Sequence[str]) -> str:
    return RAN_NOT_SAVED.format(tools=", ".join(dict.fromkeys(tools)))


def _carried(summary: ModelRequest) -> list[str]:
    """The user's prompts a compaction message carries after its summary: the round it kept verbatim,
    whose answer follows. One before it was kept by `/compact --from N`, which summarised its answer:
    the answer after the message is that of a later prompt, which the summary quotes (`_turn_going_on`)."""
    at = next((k for k, p in enumerate(summary.parts) if compaction_part(p)), 0)
    return [p for p in _typed(ModelRequest(parts=summary.parts[at:])) if isinstance(p, str)]


def _turn_going_on(summary: ModelRequest, after: Iterable[ModelMessage]) -> list[str]:
    """The prompt of a turn a compaction came in the middle of: the model's work goes on right
    after the summary (`after`: the messages that follow it), which carries the turn's prompt among
    the user's messages it quotes, the newest last in its metadata. A long turn compacted as it ran
    left no prompt in the history, and a session resumed after it showed nothing of where the work
    stopped, not even its answer. The reads the compaction put back (files, results in use) are
    the program's, not that work: after them a message you typed starts a turn of its own."""
    for m in after:
        if isinstance(m, ModelRequest) and _typed(m):
            return []
        if isinstance(m, ModelResponse) and _synthetic(m) not in (*READ_BY_US, "kept"):
            break
    else:
        return []
    ours = summary.metadata.get("compact_agent") if isinstance(summary.metadata, dict) else None
    users = ours.get("user_messages") if isinstance(ours, dict) else None
    return [users[-1]] if isinstance(users, list) and users and isinstance(users[-1], str) else []


def cut_off(text: str) -> tuple[str, str]:
    """A reply kept as far as it came (agent/run/unfinished.py): its text, and the note shown under it
    instead of the marker the model reads; the note is empty for a text without a marker."""
    mark, note = next(((m, n) for m, n in CUT_OFFS if text.endswith(m)), ("", ""))
    return (text.removesuffix(mark).rstrip() if mark else text), note


def _results(m: ModelRequest) -> bool:
    """Whether `m` holds the results of tool calls (a history that ends at them: a turn stopped
    while the model was at work, by its request limit, Esc or a signal)."""
    return any(isinstance(p, ToolReturnPart | RetryPromptPart) for p in m.parts)


def _calls(m: ModelMessage) -> bool:
    """Whether `m` is the model's answer that called tools (not the reads a compaction or an
    attached file made in the program's name)."""
    return isinstance(m, ModelResponse) and not _synthetic(m) and any(isinstance(p, ToolCallPart) for p in m.parts)


def _synthetic(m: ModelResponse) -> str:
    """What kind of response of the program's own `m` is ('unanswered', 'cut'); '' for the model's."""
    ours = m.metadata.get("compact_agent") if isinstance(m.metadata, dict) else None
    kind = ours.get("synthetic") if isinstance(ours, dict) else None
    return kind if isinstance(kind, str) else ""


def last_exchanges(messages: Sequence[ModelMessage], n: int = 3) -> list[str]:
    """`› prompt` / `  answer` lines for the last `n` user prompts and the answer each got."""
    pairs = _exchanges(messages)
    if not pairs:
        return []
    lines = [f"… {plural(len(pairs) - n, 'earlier exchange')}"] if len(pairs) > n else []
    for prompt, answer, status in pairs[-n:]:
        lines.append(f"› {_clip(prompt)}")
        if answer:
            lines.append(f"  {_clip(answer)}")
        if status:
            lines.append(f"  {status}")
    return lines


def show_last_exchanges(console: Console, messages: Sequence[ModelMessage], n: int = 3,
                        shown: Callable[[str], str] | None = None, not_saved: bool = False,
                        ran: Sequence[str] = (), signal: str = "") -> None:
    """The last `n` exchanges of a resumed session (`-c`, `/resume`) as they looked when they were
    live: the prompt as it was shown when sent, by `shown` (a paste as its `[pasted 26 lines]`:
    sent_record.shown_as), else as typed (its first rows when long: prompt_excerpt.py), the answer's
    markdown rendered after its `⏺` by the very code that draws a live answer (turn_view.py). They
    were a one-line clip of the raw markdown (`**`, fences and all). A turn the program closed
    without an answer is a dim line under its prompt (`NO_ANSWER`), not an answer: it showed as
    `⏺ [compact-agent: this turn ended before an answer …]`. `not_saved`, `ran`, `signal`: as `_exchanges` takes them."""
    from .prompt_excerpt import print_prompt
    from .turn_view import TurnView

    pairs = _exchanges(messages, not_saved, ran, signal)
    if len(pairs) > n:
        console.print(f"… {plural(len(pairs) - n, 'earlier exchange')}", style="dim")
    for prompt, answer, status in pairs[-n:]:
        # a paste as its placeholder; a long prompt the record does not know as its first rows and `… 22 more lines`
        print_prompt(console, shown(prompt) if shown is not None else prompt)
        if answer:
            view = TurnView(console, lambda: 0, spinner=False)
            for line in answer.splitlines(keepends=True):  # as a stream brings it: block by block
                view.on_text(line)
            view.end()
        if status:  # two columns in, also where a narrow terminal breaks it (at 40, its second line was at column 0)
            from . import cells

            for line in cells.wrap(status, max(20, console.width - 3), fold=False):
                console.print(f"  {line}", style="dim", markup=False, highlight=False, soft_wrap=True)


def show_resumed(console: Console, warnings: Sequence[str], messages: Sequence[ModelMessage],
                 notes: Sequence[str] = (), store: SessionStore | None = None) -> None:
    """What a resumed session brings (`-c`, `-r`, `/resume`): its load's warnings (a message a run
    left unanswered, lines skipped) and notes (a turn the user stopped, no problem), then its last
    exchanges, each prompt as it was shown when sent where the record beside `store` says
    (sent_record.shown_as: a paste as its placeholder)."""
    from .sent_record import shown_as

    for w in warnings:
        console.print(f"warning: {w}", style="yellow", markup=False, highlight=False)
    for n in notes:
        console.print(n, style="dim", markup=False, highlight=False)
    show_last_exchanges(console, messages, shown=shown_as(store.root, store.session_id) if store else None,
                        not_saved=store is not None and store.answer_not_saved(messages),
                        ran=store.calls_not_saved(messages) if store is not None else (),
                        signal=store.signalled(messages) if store is not None else "")


def message_rows(m: ModelMessage, shown: Callable[[str], str] | None = None,
                 after: Iterable[ModelMessage] = ()) -> list[tuple[str, str]]:
    """(who, what) rows for one message of `/history`'s list, in the words of the conversation: what
    you typed (as it was shown when sent, by `shown`: a paste as its placeholder), the assistant's
    text, its tool calls as the turn showed them (`read_file(a.py)`), a tool result as its one-line
    summary (`read_file: 241 lines`), the summary a compaction left.

    One request can hold tool results and what you typed (the results of the calls the last answer
    made, or of a file you attached, with the message that follows them): it gets a `you` row and a
    row for the results, so every message you typed has its number for `/compact --from N`. The rows
    go in the order the model reads them: results of its calls before your words (those a compaction
    kept from before your newest message: cuts.kept_before) above your row, the number on theirs;
    the program's reads with your message (an @file, files restored) under it. So does a compaction's message that carries a prompt kept verbatim: a `summary` row and a `you` row, also
    for the prompt of a turn compacted part-way through, which it quotes (`after`: the messages after
    `m`, where that turn's work goes on: `_turn_going_on`). The read of an @file, or of a file a
    compaction put back, is `attached` or `restored`: no call of the model's."""
    from .tool_lines import call_line

    if isinstance(m, ModelResponse):
        kind = _synthetic(m)
        if kind == "unanswered" and closes_unsaved(m):  # the model's answer came, and could not be saved
            return [("not saved", ANSWER_NOT_SAVED.strip("()"))]
        if kind == "unanswered" and (tools := calls_unsaved(m)):  # its tool calls ran, and could not be saved
            return [("not saved", _ran(tools).strip("()"))]
        if kind == "unanswered" and (signal := closed_by_signal(m)):  # a signal ended the run during its request
            return [signalled_row(signal)]
        if kind == "unanswered":  # the program's close of a turn, not the model's words (_exchanges)
            return [("no answer", NO_ANSWER.strip("()").removeprefix("no answer: "))]  # said once, as its row's name
        if kind in READ_BY_US:  # an @file or a file a compaction put back: no call of the model's
            paths = [str(call_args(p).get("args", {}).get("path", "?")) for p in m.parts if isinstance(p, ToolCallPart)]
            return [(READ_BY_US[kind], ", ".join(paths))]
        text = " ".join(p.content for p in m.parts if isinstance(p, TextPart))
        if kind == "cut" and (cut := cut_off(text))[1]:
            text = f"{cut[0]} {cut[1]}"
        calls = [call_line({"tool": p.tool_name, **call_args(p)})[2:] for p in m.parts if isinstance(p, ToolCallPart)]
        return [(("assistant" if text.strip() else "tool call"), " · ".join(x for x in [text, *calls] if x.strip()))]
    summary = [" ".join(str(p.content) for p in m.parts if isinstance(p, UserPromptPart)
                        and is_synthetic_text(p.content))] if is_summary(m) else []
    # Results of the model's calls ahead of what you typed (`earlier`) are shown ahead of it, as the model
    # reads them: one a compaction kept from an earlier turn showed under the message it came before.
    you_at = next((k for k, p in enumerate(m.parts)
                   if isinstance(p, UserPromptPart) and not is_synthetic_text(p.content)), 0)
    results: list[str] = []
    earlier: list[str] = []  # the program's reads (an @file, a file restored) stay under your message
    for k, p in enumerate(m.parts):
        into = earlier if k < you_at and not (isinstance(p, ToolReturnPart) and _read_by_us(p)) else results
        if isinstance(p, ToolReturnPart) and p.outcome != "retried" and (told := _told(p)) is not None:
            into.append(f"{p.tool_name}: declined; the model is told: {told}")  # the user's answer, as live
        elif isinstance(p, ToolReturnPart):  # a failure as the tool line says it (tool_lines.result_line)
            went, error = shown_result(p)[1:]  # a call sent back for its arguments: a line per problem
            if error and not went.startswith("exit code:"):  # a failed grep was `grep: 1 match`
                into.append(f"{p.tool_name}: error: {'; '.join(_unnamed(p.tool_name, went))}")
            else:
                into.append(f"{p.tool_name}: {went}")
        elif isinstance(p, RetryPromptPart):
            said = "\n".join(_unnamed(p.tool_name or "", p.model_response()))
            into.append(f"{p.tool_name or 'tool'}: error: {result_summary('', said, True)}")
    typed = [shown(t) if shown is not None else t for t in (_words(c) for c in _typed(m))]
    if summary and not typed and isinstance(m, ModelRequest):  # the prompt of the turn still going on after it
        typed = [shown(t) if shown is not None else t for t in _turn_going_on(m, after)]
    ours = [_words(p.content) for p in m.parts if isinstance(p, UserPromptPart) and is_synthetic_text(p.content)]
    rows = [*_results_row(earlier), *([("you", as_typed(" ".join(typed)))] if typed else []), *_results_row(results)]
    if summary:  # with a prompt kept verbatim, which the compaction message joins: the prompt keeps its row
        first = next(p for p in m.parts if isinstance(p, UserPromptPart | ToolReturnPart | RetryPromptPart))
        # the summary first (a full compaction's newest round after it), or after what `--from N` kept
        ahead = isinstance(first, UserPromptPart) and is_synthetic_text(first.content)
        return [("summary", summary[0]), *rows] if ahead else [*rows, ("summary", summary[0])]
    if ours and not typed and not results:
        rows.append(("context", " ".join(ours)))
    return rows or [("context", "")]


def _unnamed(tool: str, text: str) -> list[str]:
    """The lines of a failed call's error, each without the tool's name in front where it begins
    with it (arg_errors.py words each problem `read_file: …`, an MCP server may too): the row names
    the tool already, and said `read_file: error: read_file: …`. A line that does not begin with
    `TOOL: ` keeps every word."""
    head = f"{tool}: "
    return [line.removeprefix(head) if tool else line for line in text.splitlines()]


def _results_row(results: list[str]) -> list[tuple[str, str]]:
    return [("tool result" if len(results) == 1 else "tool results", "; ".join(results))] if results else []


def _read_by_us(p: ToolReturnPart) -> bool:
    ours = p.metadata.get("compact_agent") if isinstance(p.metadata, dict) else None
    return isinstance(ours, dict) and ours.get("synthetic") in READ_BY_US


def signalled_row(signal: str) -> tuple[str, str]:
    """`/history`'s row of a turn a signal ended during its request: its close, or the file's mark."""
    return "no answer", SIGNALLED.format(signal=signal_words(signal)).strip("()").removeprefix("no answer: ")


def _told(p: ToolReturnPart) -> str | None:
    """The user's instruction of a call declined with one (tool_lines.told_instead), else None."""
    from .tool_lines import told_instead

    text, _, error = shown_result(p)
    return told_instead({"error": error, "content": text})


def _typed(m: ModelRequest) -> list[object]:
    """The contents of the user parts of `m` that are the user's words: the texts we write into the
    conversation ourselves (context, plan, hook output, summaries) each begin with a head that says so."""
    return [p.content for p in m.parts if isinstance(p, UserPromptPart) and not is_synthetic_text(p.content)]


def _words(content: object) -> str:
    return content if isinstance(content, str) else " ".join(x for x in content if isinstance(x, str))  # type: ignore[attr-defined]
