"""Checkpoints through a compaction: they move into its archive (kept on disk), keep the key of
the message before them, and that key is the same for a message saved and read back."""

from __future__ import annotations

from pathlib import Path

from pydantic_ai.messages import (
    ModelMessagesTypeAdapter,
    ModelRequest,
    ModelResponse,
    TextPart,
    ToolCallPart,
    ToolReturnPart,
    UserPromptPart,
)

from compact_agent.agent.tools.checkpoint_entry import message_key
from compact_agent.agent.tools.checkpoints import Checkpoints


def history() -> list:
    return [ModelRequest(parts=[UserPromptPart("one")]),
            ModelResponse(parts=[ToolCallPart("read_file", {"path": "a"}, tool_call_id="c1")]),
            ModelRequest(parts=[ToolReturnPart("read_file", "text", tool_call_id="c1")]),
            ModelResponse(parts=[TextPart("done")], provider_response_id="r1")]


def test_a_message_key_survives_a_save_and_a_load_and_tells_messages_apart() -> None:
    messages = history()
    loaded = ModelMessagesTypeAdapter.validate_json(ModelMessagesTypeAdapter.dump_json(messages))
    assert [message_key(m) for m in loaded] == [message_key(m) for m in messages]
    assert len({message_key(m) for m in messages}) == len(messages)


def test_a_compaction_moves_the_checkpoints_into_its_archive_and_later_ones_stay_live(tmp_path: Path) -> None:
    a = tmp_path / "a.txt"
    a.write_text("v0")
    cps = Checkpoints(tmp_path / "store")
    cps.begin(0, 0, "one")
    cps.before_write(a)
    a.write_text("v1")
    cps.begin(1, 4, "two")
    cps.before_write(a)
    a.write_text("v2")
    messages = history()
    cps.compacted(messages, tmp_path / "archive-1.jsonl")
    cps.begin(2, 3, "three")  # sent since: indexes the live conversation
    cps.compacted([], tmp_path / "archive-2.jsonl")  # the second compaction leaves the first's alone
    reloaded = Checkpoints(tmp_path / "store")
    got = [(c.prompt, c.archive, c.anchor) for c in reloaded.list()]
    assert got == [("one", str(tmp_path / "archive-1.jsonl"), None),
                   ("two", str(tmp_path / "archive-1.jsonl"), message_key(messages[3])),
                   ("three", str(tmp_path / "archive-2.jsonl"), None)]  # 3 messages into an empty history: unknown
    assert reloaded.rewind(1) == (4, [a.resolve()]) and a.read_text() == "v1"  # the files, as ever
    reloaded.back_in(str(tmp_path / "archive-1.jsonl"))
    assert [(c.archive, c.anchor) for c in Checkpoints(tmp_path / "store").list()] == [(None, None)]
