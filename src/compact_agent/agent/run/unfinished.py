"""How the history closes a turn that did not finish, with a marked answer saved like any message.

A turn interrupted, failed or killed before its answer leaves the history ending at a request;
a reply torn mid-stream leaves the text the user already saw. Both are closed with a synthetic,
marked response (the runner appends and saves it), so positions stay stable for `/rewind`.

The one exception is a retry: the very text of the unanswered message, sent again right after its
turn failed (what the error line advises: Up, Enter; or `-c -p` with the same prompt). That turn
is sent again as it was, not closed and followed by a second copy: the model would see the
message twice and do twice what it asks ("append X to the file"). A reply cut mid-stream after the
message is no answer either: retried, the turn goes out without it (the session file is archived,
then rewritten without it), so the model does not read its own half answer followed by the same
question again.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace

from pydantic_ai.messages import ModelMessage, ModelRequest, ModelResponse, TextPart, UserPromptPart

from ...session.last_run import ENDED_BY, closed_by_signal, signal_words

UNANSWERED = ("[compact-agent: this turn ended before an answer (interrupted, stopped at its limit of model "
              "requests, or the request failed)]")
#: The close of a turn the model did answer, whose answer a run received, showed and could not save
#: (a full disk: unsaved_answer.py): the model is told what happened, not that no answer came.
NOT_SAVED = ("[compact-agent: this message was answered and the user read the answer, but it could not be saved, "
             "so it is not in this history]")
#: The close of a turn whose tool calls ran and could not be saved with their results (a full disk:
#: unsaved_answer.keep_calls), `{tools}` their names: what they did may be in place, unseen in the history.
RAN_NOT_SAVED = ("[compact-agent: for this message the model's tool calls ({tools}) ran, but they and their results "
                 "could not be saved, so they are not in this history: what they changed (files written, commands "
                 "run) may be in place; check before relying on the state of the files]")
CUT = "[compact-agent: the provider's reply was cut off here; this answer is incomplete]"
#: The same for a reply the user stopped (Esc, Ctrl-C) while it was being written: they read it.
STOPPED = "[compact-agent: the user stopped this reply here; this answer is incomplete]"
#: The close of a turn a signal ended while its request was out (`signalled_close`), `{signal}` its words.
SIGNALLED = "[compact-agent: this turn was stopped by {signal} before an answer]"
#: …and the mark under the part of a reply that had come when the signal ended the run: kept, it was shown.
SIGNAL_CUT = "[compact-agent: this reply was cut off here by {signal}; this answer is incomplete]"


def unanswered_close(messages: Sequence[ModelMessage], not_saved: bool = False,
                     calls: Sequence[str] = (), signal: str = "") -> ModelResponse | None:
    """The answer that closes a history ending at a request; None when it needs none. `signal`: a
    signal ended the run while that request was out (the session file's mark: `signalled_close`
    says so). `not_saved`:
    the model answered that request, and the answer could not be saved (the session file's mark):
    the close says so (`NOT_SAVED`), and is marked as such (`closes_unsaved`). `calls`: the tools
    of the model's calls for it that ran and could not be saved (the file's other mark): the
    close names them (`RAN_NOT_SAVED`), marked `calls_not_saved` with them."""
    if not messages or not isinstance(messages[-1], ModelRequest):
        return None
    if signal:
        return signalled_close(messages, signal)
    if not_saved:
        return ModelResponse(parts=[TextPart(NOT_SAVED)],
                             metadata={"compact_agent": {"synthetic": "unanswered", "answer": "not_saved"}})
    if calls:
        names = ", ".join(dict.fromkeys(calls))
        return ModelResponse(parts=[TextPart(RAN_NOT_SAVED.format(tools=names))],
                             metadata={"compact_agent": {"synthetic": "unanswered", "calls_not_saved": list(calls)}})
    return ModelResponse(parts=[TextPart(UNANSWERED)], metadata={"compact_agent": {"synthetic": "unanswered"}})


def signalled_close(messages: Sequence[ModelMessage], signal: str, partial: Sequence[str] = ()) -> ModelResponse | None:
    """The answer that closes a history ending at a request a signal (`signal`, its name) ended the
    run while it was out: it says why no answer came. The turn was closed with `UNANSWERED`,
    'interrupted, stopped at its limit of model requests, or the request failed', and a resumed
    session showed that under the prompt. With no reply come, the run saves a mark after the
    request (last_run.SIGNALLED) and the next turn closes it so: the same message sent again is its
    retry, nothing to cut out of the file. None when the history does not end at a request.

    `partial`: the text of the reply streamed so far. Some came: that text is the close, saved as
    the run ends, kept as a reply cut off (`cut_reply`) under `SIGNAL_CUT`, marked with the signal
    beside "cut": the user read it, and the close said the turn stopped 'before an answer', the
    text lost."""
    if not messages or not isinstance(messages[-1], ModelRequest):
        return None
    words = signal_words(signal)
    if (cut := cut_reply(messages, list(partial), SIGNAL_CUT.format(signal=words))) is not None:
        return replace(cut, metadata={"compact_agent": {"synthetic": "cut", ENDED_BY: signal}})
    return ModelResponse(parts=[TextPart(SIGNALLED.format(signal=words))],
                         metadata={"compact_agent": {"synthetic": "unanswered", ENDED_BY: signal}})


def closes_unsaved(m: ModelMessage) -> bool:
    """Whether `m` is the close of a turn whose answer came and could not be saved (`NOT_SAVED`)."""
    ours = m.metadata.get("compact_agent") if isinstance(m, ModelResponse) and isinstance(m.metadata, dict) else None
    return isinstance(ours, dict) and ours.get("answer") == "not_saved"


def calls_unsaved(m: ModelMessage) -> list[str]:
    """The tools the close `m` names as run and not saved (`RAN_NOT_SAVED`); none for any other message."""
    ours = m.metadata.get("compact_agent") if isinstance(m, ModelResponse) and isinstance(m.metadata, dict) else None
    tools = ours.get("calls_not_saved") if isinstance(ours, dict) else None
    return [t for t in tools if isinstance(t, str)] if isinstance(tools, list) else []


def cut_reply(messages: Sequence[ModelMessage], partial: list[str], mark: str = CUT) -> ModelResponse | None:
    """The streamed text of a reply that failed part-way (or that the user stopped: `mark` STOPPED),
    marked as cut; None when nothing was streamed or the history does not end at the request it
    answers."""
    text = "".join(partial).strip()
    if not text or not messages or not isinstance(messages[-1], ModelRequest):
        return None
    return ModelResponse(parts=[TextPart(f"{text}\n\n{mark}")], metadata={"compact_agent": {"synthetic": "cut"}})


def retried(messages: Sequence[ModelMessage], prompt: str) -> bool:
    """Whether `prompt` is the user's message the history ends at, unanswered: sending it again
    retries that turn. Only a request of the user's own words counts (not the results of tool
    calls, not one of our context messages)."""
    if not messages or not isinstance(last := messages[-1], ModelRequest) or last.metadata or not last.parts:
        return False
    said = [p.content for p in last.parts if isinstance(p, UserPromptPart)]
    return len(said) == len(last.parts) and isinstance(said[-1], str) and said[-1].strip() == prompt.strip()


def before_cut(messages: Sequence[ModelMessage], prompt: str) -> list[ModelMessage] | None:
    """The history without the cut reply it ends with (or the close a signal left, `signalled_close`),
    when `prompt` sends again the message that reply began to answer (a retry of that turn); None
    otherwise. Sent with the cut reply, the conversation read: the message, half an answer, the same
    message again."""
    if not messages or not isinstance(last := messages[-1], ModelResponse) or (
            _synthetic(last) != "cut" and not closed_by_signal(last)):  # …or the close a signal left
        return None
    rest = list(messages[:-1])
    return rest if retried(rest, prompt) else None


def _synthetic(m: ModelResponse) -> str:
    ours = m.metadata.get("compact_agent") if isinstance(m.metadata, dict) else None
    kind = ours.get("synthetic") if isinstance(ours, dict) else None
    return kind if isinstance(kind, str) else ""
