"""A session's compaction, after the user changed the files the model edited, says so to the model.

The model (a scripted OpenAI-wire server on 127.0.0.1) reads and edits a.py and b.py, a.py again (a
model that goes back to the files it changed has them restored), reads a large file; the user then changes a.py, replaces b.py by a folder; /compact. The request after it carries
a.py as it is now, saying it changed on disk since, and lists b.py as `(edited; now a folder)`, where
it said `(edited)` and left the folder out unsaid.
"""

from __future__ import annotations

import json
from pathlib import Path

from compact_agent.agent.run.options import SessionOptions
from compact_agent.agent.run.runner import AgentSession
from tests.fakes.openai_server import ChatRequest, FakeOpenAIServer, Reply, message_text

STEPS = [
    [("read_file", {"path": "a.py"}), ("read_file", {"path": "b.py"})],
    [("edit_file", {"path": "a.py", "old_string": "VALUE = 1", "new_string": "VALUE = 2"}),
     ("edit_file", {"path": "b.py", "old_string": "B = 1", "new_string": "B = 2"})],
    [("edit_file", {"path": "a.py", "old_string": "VALUE = 2", "new_string": "VALUE = 3"})],  # back to a.py
    [("read_file", {"path": "big.txt"})],
]


def _respond(req: ChatRequest) -> Reply:
    done = sum(1 for m in req.messages if m.get("role") == "assistant" and m.get("tool_calls"))
    if "<summary>" in req.last_user_text() or "summary" in req.last_user_text().lower() and done >= len(STEPS):
        return Reply.text("<summary>Edited a.py and b.py.</summary>")
    if "RUN" in req.last_user_text() and done < len(STEPS):
        return Reply.tools([(name, args, f"s{done}_{k}") for k, (name, args) in enumerate(STEPS[done])])
    return Reply.text(f"ok after {done} steps")


async def test_the_model_is_told_what_the_user_changed_since(tmp_path: Path) -> None:
    (tmp_path / "a.py").write_text("def f():\n    return 1\n\n\nVALUE = 1\n")
    (tmp_path / "b.py").write_text("B = 1\n")
    (tmp_path / "big.txt").write_text("filler words in a long file\n" * 800)
    with FakeOpenAIServer(_respond) as server:
        s = AgentSession(SessionOptions(cwd=tmp_path, model="fake-model", base_url=server.base_url, api_key="k",
                                        context_window=32_000, home=tmp_path / "home", permission_mode="yes"))
        try:
            await s.run_turn("RUN the steps")
            assert "VALUE = 3" in (tmp_path / "a.py").read_text()
            (tmp_path / "a.py").write_text((tmp_path / "a.py").read_text() + "USER_LINE = 42\n")
            (tmp_path / "b.py").unlink()
            (tmp_path / "b.py").mkdir()
            await s.compact()
            await s.run_turn("go on")
        finally:
            s.close()
        sent = server.requests[-1]
    first = message_text(next(m for m in sent.messages if m.get("role") == "user"))
    assert "- b.py (edited; now a folder)" in first.splitlines()
    assert "- a.py (edited)" in first.splitlines()
    restored = [message_text(m) for m in sent.messages if m.get("role") == "tool"
                and str(m.get("tool_call_id", "")).startswith("restore_")]
    assert len(restored) == 1 and restored[0].startswith("[a.py changed on disk since you last read or edited it]")
    assert "USER_LINE = 42" in restored[0]
    assert not any("b.py" in json.dumps(m.get("tool_calls") or []) for m in sent.messages
                   if m.get("role") == "assistant" and "restore_" in json.dumps(m.get("tool_calls") or []))
