"""One user turn of a session: what goes with the message, the run through the agent, and what
is saved when the turn does not finish.

Apart from runner.py, which builds and rewires the session: a turn only reads the parts it was
built with (`TurnSession`) and changes the conversation (`messages`, the turn count, the usage).
The REPL and print mode ask the session (`AgentSession.run_turn`, `attachments`, `fit_input`),
which hands over to this module.

The persisted history is the truth: a turn that fails or is interrupted goes on from what was
saved, a history that stops at an unanswered request is closed first (unfinished.py), and the text
of a reply cut mid-stream is kept, marked as cut (a retry of its turn goes out without it). A turn
interrupted (or a run ended by SIGTERM or SIGHUP, or a `-p` run whose output's reader closed the pipe)
while the model's tool calls ran first saves that answer, with a result for each call
(ended_calls.py): it was not saved yet, and was lost.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any, Protocol

from pydantic_ai.exceptions import UsageLimitExceeded
from pydantic_ai.messages import ModelMessage, ModelResponse
from pydantic_ai.usage import RunUsage, UsageLimits

from ... import secrets, stop_signals
from ...context import HistoryNotSaved
from ...context.layers.budget import ToolResultBudget
from ...context.plumbing.events import Budget, Event
from ...context.plumbing.tokens import text_tokens
from ...error_text import describe_error
from ...pipes import ReaderGone, reader_left
from ...session.last_run import BY_USER, SIGNALLED
from ...session.repair import handed_back
from ..tools.toolset import mention_messages
from . import unsaved_answer
from .attachments import Attachment, previewed
from .attachments import find as find_attachments
from .big_input import cut_line
from .big_input import fit_input as fit_big_input
from .session_parts import SessionParts
from .stream_events import stream_handler
from .turn_threads import turn_threads
from .unfinished import CUT, STOPPED, before_cut, cut_reply, retried, unanswered_close
from .window_check import fixed_tokens

if TYPE_CHECKING:
    from ...config import Limits
    from ...context import CompactionResult
    from ..safety.permissions import Permissions
    from ..tools.checkpoints import Checkpoints
    from .ended_calls import EndedCalls
    from .extensions import SessionExtensions


@dataclass
class TurnResult:
    output: str
    usage: RunUsage
    compactions: list[CompactionResult]
    cut: bool = False
    """The answer ended at the model's output limit (finish reason `length`): it is cut off."""


CUT_NOTE = "the answer stopped at the model's output limit: it is cut off (ask the model to go on)"


class TurnSession(SessionParts, Protocol):
    """What a turn uses of the session (runner.py's `AgentSession`): the conversation it changes,
    and the parts it reads."""

    messages: list[ModelMessage]
    turns: int
    usage: RunUsage
    turn_typed: str | None  # of the turn running now, what the user typed (`run_turn`'s `typed`)
    command_file: bool  # the message is a custom command's file's text: it attaches inside the fence only
    turn_input: tuple[str, str] | None  # (as sent, as it came) of the prompt `fit_input` last cut

    @property
    def on_tool(self) -> Callable[[dict[str, Any]], None] | None: ...
    @property
    def permissions(self) -> Permissions: ...
    @property
    def checkpoints(self) -> Checkpoints: ...
    @property
    def ext(self) -> SessionExtensions: ...
    @property
    def limits(self) -> Limits: ...
    @property
    def ended_calls(self) -> EndedCalls: ...

    def _save_read_state(self) -> None: ...


def attachments(s: TurnSession, typed: str) -> list[Attachment]:
    """What `typed` (the user's own words) names: `@path` mentions and pasted image paths, each
    with what happens to it (attachments.py)."""
    found = find_attachments(typed, s.cwd, s.permissions, sees_images=s.env.images,
                             max_bytes=s.settings.image_max_bytes, settings=s.settings, fenced=s.command_file)
    layer = next((x for x in s.cm.layers if isinstance(x, ToolResultBudget)), None)
    # What every request carries: as the last request measured it, or as the first will.
    overhead = s.cm.calibration.tokens(s.cm.overhead or fixed_tokens(s))
    budget = Budget(window=s.cm.limits.window, threshold=s.cm.limits.threshold, tokens=0,
                    now=s.cm.clock(), overhead=overhead)
    return previewed(found, s.env, layer, budget)


def fit_input(s: TurnSession, prompt: str, typed: str | None = None) -> tuple[str, str | None]:
    """`prompt` as it can go out, and a line for the user when some of it went to a file
    instead (input over half the tokens at which the conversation is compacted, big_input.py)."""
    s.turn_input = None
    try:
        fitted, saved = fit_big_input(prompt, typed, s.limits.threshold, s.store.dir)
    except OSError as e:
        return prompt, f"could not save the large input beside the session ({describe_error(e)}); it is sent as it is"
    if saved is None:
        return prompt, None
    s.turn_input = (fitted, prompt)  # cut again to a server's smaller window, it is cut from the whole
    return fitted, cut_line(text_tokens(prompt), s.limits.threshold, s.limits.window, saved)


def refit_prompt(s: TurnSession, text: str, threshold: int) -> str | None:
    """The turn's prompt (`text`) cut, as `fit_input` cuts it, to the smaller window a server's
    refusal taught (the library asks: context/refit.py); None when it fits that window as it is.
    The user is told by an event ("input" "cut", or "failed" when the file could not be written:
    then the reactive compaction takes the prompt as it is). A prompt `fit_input` cut already is cut
    again from the whole of it: cut from its preview, the new file held that preview, and the model
    had to read one file to find the other."""
    sent, came = s.turn_input or (None, text)
    whole = came if text == sent else text
    try:
        fitted, saved = fit_big_input(whole, s.turn_typed, threshold, s.store.dir)
    except OSError as e:
        s.cm.emit(Event("input", "failed", trigger="reactive", detail={"error": (
            f"could not save the large input beside the session ({describe_error(e)}); it is compacted instead")}))
        return None
    if saved is None:
        return None
    s.turn_input = (fitted, whole)
    s.cm.emit(Event("input", "cut", text_tokens(text), text_tokens(fitted), trigger="reactive",
                    detail={"path": str(saved), "window": s.cm.limits.window, "threshold": threshold,
                            "size": text_tokens(whole)}))
    return fitted


#: Who made the read_file call that carries an attached file. pydantic-ai joins adjacent responses
#: that name no provider, and the one before the call can be the program's too: the close of a turn
#: that got no answer, or a reply cut mid-stream, saved already. Joined, the saved conversation was
#: no longer the one sent: the session file was archived and rewritten as a history a program had
#: changed, and the turn's checkpoint dropped as having no place in it.
READ_BY = "compact-agent"


def mentions(s: TurnSession, typed: str) -> list[ModelMessage]:
    """The files and images the user attached in what they typed, as read_file results: a text
    file within the model's own read fence, an image wherever no deny rule forbids it (checked
    by `attachments`, hence `confined=False` for images); a refused or missing path is not attached."""
    found = [a for a in attachments(s, typed) if a.attach]
    texts = [a.path for a in found if not a.image]
    pictures = [a.path for a in found if a.image]
    reads = [*mention_messages(s.env, texts, None, salt=f"t{s.turns}"),
             *mention_messages(s.env, pictures, None, kind="image", salt=f"t{s.turns}", confined=False)]
    return [replace(m, provider_name=READ_BY) if isinstance(m, ModelResponse) else m for m in reads]


def _close_unanswered(s: TurnSession) -> None:
    """End a history that stops at a request (a turn interrupted, failed or killed before the
    answer, or one whose answer came and could not be saved) with a marked answer saying so, saved
    like any message.

    pydantic-ai merges a new prompt into a trailing request: the saved copy of that request
    would never get the new prompt (appends go by position), and every position after it would
    shift under the checkpoints `/rewind` uses. A closed history keeps positions stable.
    """
    closing = unanswered_close(s.messages, not_saved=s.store.answer_not_saved(s.messages),
                               calls=s.store.calls_not_saved(s.messages), signal=s.store.signalled(s.messages))
    if closing is None:
        return
    s.cm.persist([*s.messages, closing])
    s.messages.append(closing)


async def run_turn(s: TurnSession, prompt: str, on_text: Callable[[str], None] | None = None,
                   on_tool: Callable[[dict[str, Any]], None] | None = None, *,
                   typed: str | None = None) -> TurnResult:
    """One user turn. `typed` is the part of `prompt` the user typed (without piped input or
    `!cmd` output), the only place `@path` attaches a file; None when all of it was typed.

    A provider key in the message (a `.env` piped in or pasted) goes out as `[REDACTED]`, as the
    session file holds it: the model never gets it, in this request or a later one."""
    prompt = secrets.redact(prompt)
    typed = None if typed is None else secrets.redact(typed)
    s.turn_typed = typed  # what `refit_prompt` keeps whole
    # The file holds the conversation the turn goes on from: one changed without the store (a program
    # that cut `messages` back) has what the file held archived and the file rewritten (contract.py).
    s.cm.persist(s.messages)
    retry = retried(s.messages, prompt)  # its failed turn, sent again as it was (unfinished.py)
    uncut = None if retry else before_cut(s.messages, prompt)  # …its reply cut mid-stream left out
    if retry or uncut is not None:
        s.store.settle_prompt()  # the copy just typed: the conversation holds the message once
    if uncut is not None:  # the file archived (the cut reply is kept there), then rewritten without it
        s.cm.persist(uncut)  # on a failed archive nothing changed: the session still ends with the cut reply
        s.messages, retry = uncut, True
    if not retry:
        _close_unanswered(s)
    history = list(s.messages)
    start = len(history) - 1 if retry else len(history)
    # What /rewind shows and gives back: what was typed, or the prompt where nothing was (`-p -`: all of it piped)
    s.checkpoints.begin(s.turns, start, typed or prompt,
                        history[start - 1] if start else None,  # what it is found by after a rewrite
                        retry=retry,  # …in the checkpoint of the attempt that failed
                        reads=s.env.read_state.current_json())  # what a rewind to it gives back as read
    context = await s.ext.turn_start()  # SessionStart hook output, MCP servers not yet declared
    if retry and context:  # after the message, saved: pydantic-ai sends the two as one request
        s.cm.persist([*s.messages, *context])
        s.messages += context
        history += context
    elif not retry:  # a retry's attachments went before the message the first time
        history += context
        history += mentions(s, prompt if typed is None else typed)
    s.cm.learn_conversation(s.messages)  # a resumed conversation's age, growth and reuse (state.py)
    before = len(s.cm.compactions)
    partial: list[str] = []  # the text of the reply being streamed, for `_save_cut`
    on_tool = on_tool or s.on_tool
    handler = stream_handler(on_text, on_tool, partial) if (on_text or on_tool) else None
    s.ended_calls.forget()
    try:  # SIGTERM, SIGHUP: the answer whose tools run saved, with their results (ended_calls.py)
        with turn_threads(), stop_signals.saving(lambda name: _save_ended(s, name, partial)):
            result = await s.agent.run(None if retry else prompt, message_history=history,
                                       event_stream_handler=handler, conversation_id=s.session_id,
                                       usage_limits=UsageLimits(request_limit=s.settings.max_requests_per_turn))
    except (asyncio.CancelledError, KeyboardInterrupt, ReaderGone):  # the user stopped it: Esc, Ctrl-C,
        _stopped(s, partial)  # or the reader of stdout closed the pipe (`-p ... | head -1`, pipes.py)
        raise
    except HistoryNotSaved as e:  # at the run's end, the answer received: kept and shown (unsaved_answer.py)
        if (kept := unsaved_answer.keep(s, e)) is not None:
            raise kept from e
        if (calls := unsaved_answer.keep_calls(s, e)) is not None:  # …or before a request, after tools ran
            raise calls from e
        _recover(s)
        _save_cut(s, partial)
        raise
    except BaseException as e:
        if reader_left(e):  # the reader gone, inside a group of a task group in the turn
            _stopped(s, partial)
            raise
        _recover(s)
        _save_cut(s, partial)
        if isinstance(e, Exception) and not isinstance(e, UsageLimitExceeded):  # a limit's stop is marked so
            with contextlib.suppress(Exception):  # unsaved (a full disk), a load says what it said before
                s.store.note_error(error_cause(e))  # where the history still ends here, the next load says it
        raise
    # In the shape the next turn gets it back in (an attachment's request joined with the prompt's):
    # numbered now as it will be then, and as the session resumed from the file is.
    all_msgs = handed_back(result.all_messages())
    s.cm.persist(all_msgs)
    s.messages = all_msgs
    s.turns += 1
    s._save_read_state()
    usage = result.usage
    s.usage = s.usage + usage
    last = all_msgs[-1] if all_msgs else None
    return TurnResult(result.output if isinstance(result.output, str) else str(result.output), usage,
                      s.cm.compactions[before:],
                      cut=isinstance(last, ModelResponse) and last.finish_reason == "length")


def _stopped(s: TurnSession, partial: list[str]) -> None:
    """The user stopped the turn (Esc, Ctrl-C, a reader of `-p`'s output that left): the model's answer
    whose tools ran is saved, each call with a result (ended_calls.py); else a reply stopped while it
    was written is kept as far as the user read it. Then the turn goes on from what was saved."""
    ended = False
    with contextlib.suppress(Exception):  # unsaved, it goes on from what was saved before, as it did
        ended = _save_ended(s, BY_USER)
    _recover(s)
    if not ended:
        _save_cut(s, partial, STOPPED)


def _save_ended(s: TurnSession, by: str, partial: list[str] | None = None) -> bool:
    """`by` ends the run in the turn, a signal (stop_signals.py) or the user (`BY_USER`): the model's
    last answer, not saved until the next request, and a result for each of its tool calls that has
    none (ended_calls.py); for a signal while a request was out, the text of the reply streamed so
    far (`partial`), kept as cut off by the signal, or when none came a mark after the request
    (last_run.SIGNALLED): the next turn closes it in the signal's words, the same message sent again
    retries it, and the file is only appended to. Whether there was such an answer to save."""
    messages = s.ended_calls.unsaved(by)
    if messages is None and by != BY_USER:
        messages = s.ended_calls.unanswered(by, partial or ())
        if messages is not None:  # the part of the reply that came: -p's result object says it is cut off
            stop_signals.reply_cut()
        elif s.ended_calls.asked():  # a load reads it only where the history ends at that request
            s.store.append_meta(**{SIGNALLED: by})
    if messages is not None:
        s.cm.persist(messages)
    return messages is not None


def _save_cut(s: TurnSession, partial: list[str], mark: str = CUT) -> None:
    """A reply that failed after some of its text was streamed (a torn or reset stream), or that
    the user stopped (`mark` STOPPED): keep that text, marked, so the session shows what the user
    saw and says it is incomplete."""
    cut = cut_reply(s.messages, partial, mark)
    if cut is None:
        return
    try:
        s.store.append([cut])
    except OSError:  # the error being raised says more than this one
        return
    s.messages.append(cut)
    s.cm.resume(s.messages)


def _recover(s: TurnSession) -> None:
    """After an interrupted or failed turn, continue from what was saved (the truth)."""
    s.messages = s.store.load().messages
    s.cm.resume(s.messages)
    s._save_read_state()


def error_cause(e: BaseException) -> str:
    """Why a turn failed, in a few words, for the mark a load reads (last_run.ENDED_ON_ERROR): 'the
    server at URL did not answer (connection refused)', 'the server refused the request as too long
    for its window'; otherwise the first clause of its error line ('the provider answered HTTP 401: …')."""
    from pydantic_ai.exceptions import ModelConnectionError

    from ...context.plumbing.overflow import as_overflow
    from ...error_causes import endpoint
    from ...error_text import connection_reason
    from .retry import is_timeout

    if isinstance(e, ModelConnectionError):
        why = "no answer in time" if is_timeout(e) else connection_reason(e)[0].split(":")[0]
        return f"the server{endpoint(e)} did not answer ({why})"
    if as_overflow(e) is not None:
        return "the server refused the request as too long for its window"
    said = describe_error(e, "", "").split("; ")[0]
    return said if len(said) <= 160 else said[:159] + "…"
