"""Where the last run stopped, as a load finds it in the conversation it reads back.

A message the user typed is saved before its turn (a `prompt` entry, journal.py); the request that
takes it to the model names it, or a later line marks it unsent. One neither settled is a message a
run saved and died before sending: the load puts it back at its place, unanswered. From the history
read, a load also tells a user's message no reply of the model follows (a run killed while its
request was out), a history that ends at tool results the model never answered (a run stopped at
work), and whether tools ran since the user's last message (a failed turn then goes on from what
they did rather than sending the message again).

A turn the user stopped (Esc, Ctrl-C) is marked by a meta entry (`STOPPED`) after what it saved,
one its limit of model requests stopped (`--max-turns`) by another (`AT_LIMIT`): where the history
still ends there, a load says so as a note, not as a warning of a run that died. A run SIGTERM or
SIGHUP ended while the model's tools ran saved its calls with results that say so, marked
(`ENDED_BY`, agent/run/ended_calls.py), and so did a turn the user stopped then (`BY_USER`): a
load says that too, as a note (`ended_by`). A turn that failed (the server unreachable, a request
refused) leaves the cause in a few words (`ENDED_ON_ERROR`): a load says it in its warning.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from datetime import UTC, datetime
from typing import Any

from pydantic_ai.messages import (
    ModelMessage,
    ModelRequest,
    ModelResponse,
    RetryPromptPart,
    ToolReturnPart,
    UserPromptPart,
)

from ..context.plumbing.markers import KEY, OWN_TEXT, ours, users_request
from .entries import from_the_model

#: The meta key of the line a turn the user stopped leaves after what it saved (store.note_stopped).
STOPPED = "stopped_by_user"
#: The metadata key (under `compact_agent`) of the tool results a run ended by a signal saved, the
#: signal's name its value (agent/run/ended_calls.py).
ENDED_BY = "ended_by"
#: Its value when the user stopped the turn (Esc, Ctrl-C), where a signal's name says a signal ended the run.
BY_USER = "user"
#: Beside it, on the result of a call that had not finished (its result says so).
UNFINISHED = "unfinished"
#: Beside that, on a bash call stopped at its approval question: its command never ran.
NEVER_RAN = "not_run"
#: How `ended_by` names such a call among the unfinished ones (load_warnings.calls_ended words it).
AT_APPROVAL = " at its approval question"
#: Beside UNFINISHED, on a bash call whose command had started (past its approval): it was killed.
STARTED = "started"
#: How `ended_by` names such a call among the unfinished ones.
AFTER_START = " after its command started"
#: The meta key of the line a run leaves after the user's message when the model answered it and the
#: answer could not be saved (agent/run/unsaved_answer.py): where the history still ends there, a load
#: says the message was answered, not that it got no answer.
ANSWER_NOT_SAVED = "answer_not_saved"
#: The meta key of the line a run leaves after the user's message when the model's tool calls ran and
#: could not be saved with their results (agent/run/unsaved_answer.py), the tools' names its value:
#: where the history still ends at that message, a load says they ran, not only that no answer came.
CALLS_NOT_SAVED = "calls_not_saved"
#: A signal that ends a run, in words (stop_signals.py handles these two).
SIGNAL_WORDS = {"SIGTERM": "a termination signal (SIGTERM)", "SIGHUP": "a hangup signal (SIGHUP: its terminal closed)"}
#: The meta key of the line a turn stopped by its limit of model requests leaves after what it saved,
#: with the limit (store.note_limit_stop; agent/run/request_limit.py).
AT_LIMIT = "stopped_at_request_limit"
#: The meta key of the line a run SIGTERM or SIGHUP ended while its request was out, before any of
#: the reply came, leaves after what it saved, the signal's name its value (agent/run/turn.py): where
#: the history still ends there, a load says so as a note, the next message closes the turn in the
#: signal's words (unfinished.signalled_close), and the same message sent again retries it, the file
#: only appended to. (A close saved at once had to be cut out again by a retry: the file rewritten.)
SIGNALLED = "stopped_by_signal"
#: The meta key of the line a turn that failed leaves after what it saved (store.note_error; agent/run/turn.py),
#: the cause in a few words its value ("the server at URL did not answer (connection refused)"), redacted as
#: the error's line is: where the history still ends there (at tool results, or at the user's message), a
#: load says that cause, not an interrupted or killed run.
ENDED_ON_ERROR = "ended_on_error"


def _prompts_settled(entries: Iterable[dict[str, Any]]) -> set[str]:
    """Ids of the prompt entries (journal.py) a message entry carried to the model, or that were
    marked unsent: the others are messages a run saved and died before it could send."""
    done: set[str] = set()
    for e in entries:
        if e.get("kind") == "message" and isinstance(e.get("prompt"), str):
            done.add(e["prompt"])
        elif e.get("kind") == "prompt" and isinstance(p := e.get("prompt"), dict) and isinstance(p.get("unsent"), str):
            done.add(p["unsent"])
    return done


def _unsent_prompt(entry: dict[str, Any]) -> ModelMessage | None:
    """The user's message of a prompt entry, as the request it would have been; None for a marker."""
    p = entry.get("prompt")
    if not isinstance(p, dict):
        raise ValueError("prompt is not an object")
    if "unsent" in p:
        return None
    text = p.get("text")
    if not isinstance(text, str):
        raise ValueError("a prompt without text")
    try:
        when = datetime.fromisoformat(entry["time"])
        part = UserPromptPart(text, timestamp=when if when.tzinfo else when.replace(tzinfo=UTC))
    except (KeyError, TypeError, ValueError):  # a time that is none: the message matters, not when
        part = UserPromptPart(text)
    return ModelRequest(parts=[part])


def _unanswered(messages: list[ModelMessage], unsent: list[ModelMessage]) -> tuple[int, bool]:
    """How many of the user's messages no reply of the model follows, and whether one of them is a
    typed message a run saved and died before sending (`unsent`); (0, False) unless one is, or the
    history ends at one of them (a run killed while its request was out, or one that failed: no
    answer, and nothing closed the turn). Once a later run gets a reply with them in the
    conversation, that reply, saved, is what settles them: no later load warns."""
    tail = len(messages)
    while tail and not (isinstance(m := messages[tail - 1], ModelResponse) and from_the_model(m.metadata)):
        tail -= 1
    theirs = [m for m in messages[tail:] if users_request(m)]
    never_sent = any(m is u for m in theirs for u in unsent)
    left_open = bool(theirs) and messages[-1] is theirs[-1]
    return (len(theirs), never_sent) if never_sent or left_open else (0, False)


def _ends_at_results(messages: list[ModelMessage]) -> bool:
    """Whether the history ends at the results of the model's last tool calls, which no reply of
    the model follows: a run that stopped while the model was at work on them."""
    if len(messages) < 2 or not isinstance(last := messages[-1], ModelRequest) or not last.parts:
        return False
    before = messages[-2]
    return (all(isinstance(p, ToolReturnPart | RetryPromptPart) for p in last.parts)
            and isinstance(before, ModelResponse) and from_the_model(before.metadata))


def ended_by(messages: list[ModelMessage]) -> tuple[str, list[str]]:
    """The signal that ended the last run while the model's tools ran (or `BY_USER`, the user who
    stopped its turn), as the results it saved say, and the tools of the calls that had not
    finished (a bash call stopped at its approval question named with `AT_APPROVAL` after it, one
    whose command had started with `AFTER_START`); ('',
    []) when the history does not end at such results."""
    last = messages[-1] if messages else None
    signal, unfinished = "", list[str]()
    for part in last.parts if isinstance(last, ModelRequest) else []:
        if not isinstance(part, ToolReturnPart) or not isinstance(part.metadata, dict):
            continue
        if isinstance(own := part.metadata.get(KEY), dict) and isinstance(name := own.get(ENDED_BY), str):
            signal = name
            if own.get(UNFINISHED) is True:
                unfinished.append(part.tool_name + (AT_APPROVAL if own.get(NEVER_RAN) is True else
                                                    AFTER_START if own.get(STARTED) is True else ""))
    return signal, unfinished if signal else []


def tools_ran_in_last_turn(messages: Sequence[ModelMessage]) -> bool:
    """Whether a tool call of the model got its result since the user's last typed message: a turn
    that failed after that is not retried by sending the message again, which would run the tools
    again (an `echo X >> log` twice), but goes on from what they did."""
    for m in reversed(messages):
        for p in reversed(m.parts):
            if isinstance(p, ToolReturnPart):
                return True
            if isinstance(p, UserPromptPart) and isinstance(p.content, str) and not p.content.startswith(OWN_TEXT):
                return False
    return False


def signal_words(name: str) -> str:
    """`a termination signal (SIGTERM)`; a signal named otherwise, by its name."""
    return SIGNAL_WORDS.get(name, name)


def closed_by_signal(m: ModelMessage | None) -> str:
    """The signal that ended a run while the request `m` closes was out: the close a run saves then
    says it (agent/run/unfinished.signalled_close, marked `ENDED_BY` beside "synthetic"); '' for any
    other message."""
    return _signal_of(m, "unanswered")


def cut_by_signal(m: ModelMessage | None) -> str:
    """The signal that ended a run while the reply `m` was being written: the part that had come is
    kept, marked as cut off by it (signalled_close given the text, `ENDED_BY` beside "synthetic"
    "cut"); '' for any other message, a reply the stream tore or the user stopped too."""
    return _signal_of(m, "cut")


def _signal_of(m: ModelMessage | None, kind: str) -> str:
    own = ours(m) if isinstance(m, ModelResponse) else {}
    name = own.get(ENDED_BY) if own.get("synthetic") == kind else None
    return name if isinstance(name, str) else ""
