"""A field of the wrong kind costs its entry, named in the warning, not the whole file; what fails in
the replay of a file that loaded is an error of the analyzer, said as one (exit status 1), never as
the user's file being bad."""

from __future__ import annotations

import asyncio
import json
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest
from pydantic_ai.messages import ToolCallPart

from compact_agent.context.plumbing.file_changes import call_args
from compact_agent.replay import batch
from compact_agent.replay._common import ConversationBuilder
from compact_agent.replay._openai_chat import import_chat
from compact_agent.replay.ours import Ours
from compact_agent.replay.report import run_cli
from compact_agent.replay.simulate import TranscriptRun

from ._helpers import tool_calls
from .test_gemini_cli_chats import META, session_messages
from .test_importer_traps import CHAT, CLAUDE_SESSION, CODEX_SESSION, cx, tool_use, write_jsonl


def _replayed(path: Path) -> TranscriptRun | batch.Skipped:
    return asyncio.run(batch._replay(path, batch.Replaying(("ours", "none"), 32_000, "deepseek"), None))


@pytest.mark.parametrize(("bad", "said"), [([None], "a tool call's input is a list, not an object"),
                                           (1e30, "a tool call's input is a number, not an object")])
def test_a_claude_code_tool_call_of_the_wrong_kind_costs_its_entry(tmp_path: Path, bad: object, said: str) -> None:
    records = [dict(r) for r in CLAUDE_SESSION]
    i = next(i for i, r in enumerate(records) if r.get("message", {}).get("content") == [tool_use("t2")])
    records[i] = json.loads(json.dumps(records[i]))
    records[i]["message"]["content"][0]["input"] = bad
    run = _replayed(write_jsonl(tmp_path / "s.jsonl", records))
    assert isinstance(run, TranscriptRun), run
    assert any(said in w for w in run.transcript.warnings), run.transcript.warnings


def test_a_codex_call_id_or_type_of_the_wrong_kind_costs_its_record(tmp_path: Path) -> None:
    records = [json.loads(json.dumps(r)) for r in CODEX_SESSION]
    i = next(i for i, r in enumerate(records) if r["payload"].get("call_id") == "c2")
    records[i]["payload"]["call_id"] = 5
    records.insert(-1, cx("response_item", {"type": ["message"]}))  # read by the search for rollbacks too
    run = _replayed(write_jsonl(tmp_path / "r.jsonl", records))
    assert isinstance(run, TranscriptRun), run
    assert any("a tool call's id is a number, not text" in w for w in run.transcript.warnings)


@pytest.mark.parametrize(("source", "at", "bad", "said"), [
    ("claude-code", (1, "message"), 7, "a line's message is a number, not an object"),
    ("claude-code", (1, "message", "content"), 7, "a message's content is a number, not text or a list"),
    ("claude-code", (1, "type"), [], "a line's type is a list, not text"),
    ("codex", (0, "type"), {}, "a line's type is an object, not text"),
    ("codex", (3, "type"), [], "a line's type is a list, not text"),
])
def test_a_line_the_passes_over_the_whole_file_read_costs_itself_named(
        tmp_path: Path, source: str, at: tuple[Any, ...], bad: object, said: str) -> None:
    """The format's detection, and the searches for rewinds and rollbacks, read every line before
    any is imported: a line whose type was a list, or whose message was a number, skipped the whole
    file as 'a field has a type or value the importer cannot use', naming nothing."""
    records = json.loads(json.dumps(CLAUDE_SESSION if source == "claude-code" else CODEX_SESSION))
    node = records
    for key in at[:-1]:
        node = node[key]
    node[at[-1]] = bad
    run = _replayed(write_jsonl(tmp_path / "t.jsonl", records))
    assert isinstance(run, TranscriptRun), run
    assert run.transcript.format == source and run.transcript.skipped == 1
    assert f"skipped 1 entry of an unexpected shape (the first: {said})" in run.transcript.warnings


def test_a_failure_in_the_replay_is_said_as_ours_and_the_run_ends_in_status_1(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    good = write_jsonl(tmp_path / "good.jsonl", CLAUDE_SESSION)
    bad = write_jsonl(tmp_path / "bad.jsonl", CLAUDE_SESSION)
    step = Ours.step

    async def broken(self: Ours, history: list, sim: Any) -> Any:
        if sim.transcript.source == bad:
            raise TypeError("a bug")
        return await step(self, history, sim)

    monkeypatch.setattr(Ours, "step", broken)
    skipped = _replayed(bad)
    assert isinstance(skipped, batch.Skipped) and skipped.ours
    note = skipped.note
    assert note.startswith(f"skipped {bad}: the analyzer failed on it, an error of the "
                           "analyzer rather than of the file (at simulate.py:")  # ours calling it
    assert note.endswith("please report it, with the file if you can") and "TypeError" not in note
    code = run_cli([tmp_path], window=32_000, strategies=["ours"], pricing="deepseek", as_json=True, plot=None,
                   model=None)
    out, err = capsys.readouterr()
    got = json.loads(out)
    assert code == 1 and [t["path"] for t in got["transcripts"]] == [str(good)]
    assert got["skipped"] == [note] and err == f"compact-agent: {note}\n"
    # The only file named: the same line, and the status of an error of ours (it said "no transcripts
    # found", exit status 2, as for a folder of no transcripts)
    for as_json in (False, True):
        code = run_cli([bad], window=32_000, strategies=["ours"], pricing="deepseek", as_json=as_json, plot=None,
                       model=None)
        out, err = capsys.readouterr()
        assert code == 1 and err == f"compact-agent: {note}\n"
        assert json.loads(out) == {"error": note} if as_json else out == ""


def test_a_file_skipped_for_itself_is_no_error_of_ours_whatever_its_name(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Exit status 1 was chosen by looking for the words of an error of ours in the notes, and a
    file's name is in its note: now the skip itself says whose the error is."""
    write_jsonl(tmp_path / "good.jsonl", CLAUDE_SESSION)
    named = tmp_path / f"{batch.INTERNAL}.json"
    named.write_text("[1, 2, 3]")
    code = run_cli([tmp_path], window=32_000, strategies=["none"], pricing="deepseek", as_json=True, plot=None,
                   model=None)
    out, _ = capsys.readouterr()
    assert json.loads(out)["skipped"] == [f"skipped {named}: not a transcript"] and code == 0
    assert batch.load_or_note(named) == f"skipped {named}: not a transcript"


def test_an_openai_chat_tool_call_whose_arguments_are_a_number_costs_its_message(tmp_path: Path) -> None:
    chat = json.loads(json.dumps(CHAT))
    chat[3]["tool_calls"][0]["function"]["arguments"] = 5  # failed the replay in json.loads, said as our bug
    path = tmp_path / "chat.json"
    path.write_text(json.dumps(chat))
    run = _replayed(path)
    assert isinstance(run, TranscriptRun), run
    assert any("a tool call's input is a number, not an object" in w for w in run.transcript.warnings)


@pytest.mark.parametrize(("role", "bad", "said"), [("assistant", {"x": 1}, "an object"), ("user", 5, "a number")])
def test_an_openai_chat_message_whose_content_is_no_text_costs_itself_named(role: str, bad: object, said: str) -> None:
    """An object was read as no text (the reply dropped, saying nothing) and a number as its digits."""
    builder = ConversationBuilder(fallback_time=datetime(2026, 1, 1, tzinfo=UTC))
    chat = [{"role": "user", "content": "hi"}, {"role": "assistant", "content": "ok"},
            {"role": "user", "content": "again"}, {"role": "assistant", "content": "done"}]
    chat[1 if role == "assistant" else 2]["content"] = bad
    import_chat(chat, builder)
    assert builder.skipped == 1
    assert builder.warnings == [f"skipped 1 entry of an unexpected shape (the first: a message's content is {said}, "
                                "not text or a list)"]


def test_a_responses_api_call_whose_arguments_are_a_list_costs_its_reply() -> None:
    builder = ConversationBuilder(fallback_time=datetime(2026, 1, 1, tzinfo=UTC))
    reply = {"object": "response", "output": [{"type": "function_call", "name": "bash", "arguments": [1],
                                               "call_id": "r1"}]}
    import_chat([{"role": "user", "content": "go"}, reply], builder)
    assert builder.skipped == 1 and not builder.messages[1:]
    assert any("a tool call's input is a list, not an object" in w for w in builder.warnings)


def test_a_gemini_cli_call_whose_args_are_a_number_costs_its_record(tmp_path: Path) -> None:
    messages = session_messages()
    messages[2]["toolCalls"][1]["args"] = 7
    path = tmp_path / "session-2026-01-10T09-00-5d1a2b3c.json"
    path.write_text(json.dumps({**META, "messages": messages}))
    run = _replayed(path)
    assert isinstance(run, TranscriptRun), run
    assert "c1" not in [c.tool_call_id for c in tool_calls(run.transcript.messages)]  # the whole record went
    assert any("a tool call's input is a number, not an object" in w for w in run.transcript.warnings)


def test_a_failure_inside_a_library_is_placed_at_the_analyzer_line_that_called_it() -> None:
    with pytest.raises(TypeError) as e:
        call_args(ToolCallPart("bash", 5))  # type: ignore[arg-type]  # json.loads(5): a TypeError in json
    assert batch.where(e.value).startswith("at file_changes.py:"), batch.where(e.value)
