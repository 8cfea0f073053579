"""A turn the user stopped (Esc, Ctrl-C) is said on resume as what it was, a note, not as a warning:
`-c` warned 'warning: ….jsonl: 1 message you typed got no answer saved before the last run ended', as if
the run had died. The mark the stop leaves counts only while the history still ends where it was
made; a run killed later, a torn file, still warn."""

from __future__ import annotations

from pydantic_ai.messages import (
    ModelRequest,
    ModelResponse,
    TextPart,
    ToolCallPart,
    ToolReturnPart,
    UserPromptPart,
)

from compact_agent.agent.run.unfinished import unanswered_close
from compact_agent.session.store import SessionStore

STOPPED = "the last turn was stopped by you before an answer: your message is in the conversation, unanswered"
STOPPED_AT_WORK = "the last turn was stopped by you while the model was at work: your next message goes on from there"


def asked(text: str) -> ModelRequest:
    return ModelRequest(parts=[UserPromptPart(text)])


def test_a_turn_stopped_before_its_answer_is_a_note_not_a_warning(tmp_path):
    s = SessionStore(tmp_path, "s1")
    s.append([asked("first"), ModelResponse(parts=[TextPart("one")]), asked("second")])
    s.note_stopped()
    loaded = SessionStore(tmp_path, "s1").load()
    assert loaded.warnings == [] and loaded.notes == [STOPPED]
    assert loaded.meta == {}  # a mark, not a setting of the session
    assert [type(m) for m in loaded.messages] == [ModelRequest, ModelResponse, ModelRequest]


def test_a_turn_stopped_at_work_is_a_note(tmp_path):
    s = SessionStore(tmp_path, "s1")
    s.append([asked("fix it"), ModelResponse(parts=[ToolCallPart("read_file", {"path": "a"}, tool_call_id="c1")]),
              ModelRequest(parts=[ToolReturnPart("read_file", "x", tool_call_id="c1")])])
    s.note_stopped()
    loaded = SessionStore(tmp_path, "s1").load()
    assert loaded.warnings == [] and loaded.notes == [STOPPED_AT_WORK]


def test_a_run_killed_after_a_stopped_turn_still_warns(tmp_path):
    s = SessionStore(tmp_path, "s1")
    s.append([asked("first")])
    s.note_stopped()
    history = SessionStore(tmp_path, "s1").load().messages
    close = unanswered_close(history)
    assert close is not None
    s.append([close, asked("second")])  # the next turn's request out, and the run killed
    loaded = SessionStore(tmp_path, "s1").load()
    assert loaded.notes == []
    assert len(loaded.warnings) == 1 and "got no answer saved before the last run ended" in loaded.warnings[0]


def test_a_stopped_turn_answered_since_says_nothing(tmp_path):
    s = SessionStore(tmp_path, "s1")
    s.append([asked("first")])
    s.note_stopped()
    close = unanswered_close(SessionStore(tmp_path, "s1").load().messages)
    assert close is not None
    s.append([close, asked("again"), ModelResponse(parts=[TextPart("done")])])
    loaded = SessionStore(tmp_path, "s1").load()
    assert loaded.warnings == [] and loaded.notes == []


def test_a_torn_line_after_a_stopped_turn_still_warns(tmp_path):
    s = SessionStore(tmp_path, "s1")
    s.append([asked("first")])
    s.note_stopped()
    with s.path.open("ab") as f:
        f.write(b'{"v": 1, "kind": "mess')
    loaded = SessionStore(tmp_path, "s1").load()
    assert loaded.notes == [STOPPED]
    assert loaded.warnings and "skipped 1 unreadable line" in loaded.warnings[0], loaded.warnings


def test_a_rewrite_does_not_carry_the_mark(tmp_path):
    s = SessionStore(tmp_path, "s1")
    s.append([asked("first")])
    s.note_stopped()
    s.rewrite({"trigger": "manual", "strategy": "rewind", "tokens_before": 0, "tokens_after": 0, "archive": ""},
              [asked("first")])
    loaded = SessionStore(tmp_path, "s1").load()
    assert loaded.notes == [] and "got no answer" in loaded.warnings[0]
