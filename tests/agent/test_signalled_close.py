"""A run ended by SIGTERM or SIGHUP while a request was out closes that turn as it ends, saying
the signal stopped it (unfinished.signalled_close): the model reads that, a resumed session shows
it under the prompt and in /history, and the load says it as a note. The turn was left open, the
next load warned the message 'got no answer', and the next turn closed it as one 'interrupted,
stopped at its limit of model requests, or the request failed', which is what the session then
showed. (End to end, a `-p` run sent SIGTERM and SIGHUP: tests/e2e/test_print_terminated.py.)"""

from __future__ import annotations

import asyncio
import io

from pydantic_ai.messages import (
    ModelMessage,
    ModelRequest,
    ModelResponse,
    TextPart,
    ToolCallPart,
    ToolReturnPart,
    UserPromptPart,
)
from rich.console import Console

from compact_agent.agent.run.ended_calls import EndedCalls
from compact_agent.agent.run.unfinished import before_cut, signalled_close, unanswered_close
from compact_agent.session.load_warnings import LoadProblems
from compact_agent.ui.history_view import message_rows, show_last_exchanges

ASKED = ModelRequest(parts=[UserPromptPart("remember HERON")])
TERM = "[compact-agent: this turn was stopped by a termination signal (SIGTERM) before an answer]"


def asking(history: list[ModelMessage]) -> EndedCalls:
    watch = EndedCalls()
    asyncio.run(watch.before_model_request(type("Ctx", (), {"messages": history})(), None))  # type: ignore[arg-type]
    return watch


def test_a_request_out_is_closed_by_the_signal_s_words() -> None:
    history: list[ModelMessage] = [ASKED]
    watch = asking(history)
    assert watch.unsaved("SIGTERM") is None  # no answer to save
    assert watch.unanswered("SIGTERM") is None and watch.asked()  # no text came: the run marks the request
    close = unanswered_close(history, signal="SIGTERM")  # …and the next turn closes it so
    assert close is not None and close.parts == [TextPart(TERM)]
    hup = unanswered_close(history, signal="SIGHUP")
    assert hup is not None and "a hangup signal (SIGHUP: its terminal closed)" in str(hup.parts[0].content)


def test_results_out_are_closed_too_and_nothing_before_a_request() -> None:
    call = ToolCallPart("bash", {"command": "make"}, tool_call_id="c1")
    history: list[ModelMessage] = [ASKED, ModelResponse(parts=[call]),
                                   ModelRequest(parts=[ToolReturnPart("bash", "ok", tool_call_id="c1")])]
    assert asking(history).asked()
    close = unanswered_close(history, signal="SIGTERM")
    assert close is not None and close.parts == [TextPart(TERM)]
    assert not EndedCalls().asked()  # the turn sent nothing yet: its prompt entry says it
    assert not asking([ASKED, ModelResponse(parts=[TextPart("done")])]).asked()


def test_the_message_sent_again_is_a_retry_not_a_second_copy() -> None:
    close = signalled_close([ASKED], "SIGTERM")
    assert close is not None
    assert before_cut([ASKED, close], "remember HERON") == [ASKED]
    assert before_cut([ASKED, close], "go on") is None


def test_a_resumed_session_shows_and_says_the_signal() -> None:
    close = signalled_close([ASKED], "SIGTERM")
    assert close is not None
    console = Console(record=True, width=120, file=io.StringIO())
    show_last_exchanges(console, [ASKED, close])
    shown = console.export_text()
    assert "(no answer: the turn was stopped by a termination signal (SIGTERM); the session was saved)" in shown
    assert "interrupted" not in shown
    assert message_rows(close) == [("no answer", "the turn was stopped by a termination signal (SIGTERM); "
                                                 "the session was saved")]
    assert LoadProblems(signalled="SIGTERM").notes() == [
        "the last turn was stopped by a termination signal (SIGTERM) before the model answered: your next "
        "message goes on from there"]
    assert LoadProblems(signalled="SIGTERM").warnings("s.jsonl") == []
