"""The editing scripted model pays for forgetting, and the benchmark's naive rival can do the task.

The model reads a file again only when the exact old line is missing from what it was sent: the
look-again is what benchmarks/live_files.py prices, so it must not happen when the line is there.
"""

from __future__ import annotations

import importlib.util
import inspect
import json
import sys
from pathlib import Path

import pytest

from tests.e2e.scripted import is_summary_request, make_project
from tests.e2e.scripted_edits import FileEditTaskAgent, edit_targets, edit_task_text, edits_applied
from tests.fakes.openai_server import ChatRequest, FakeOpenAIServer

BENCH = Path(__file__).resolve().parents[2] / "benchmarks" / "live_files.py"


def _request(messages: list[dict]) -> ChatRequest:
    return ChatRequest(body={"messages": messages}, messages=messages, tools=[], stream=False,
                       prompt_tokens=0, index=0)


def _all_read(n: int, with_file: str | None = None) -> list[dict]:
    """A conversation after every file was read: the progress says so, the file texts are gone."""
    messages = [{"role": "user", "content": edit_task_text(n, 2)},
                {"role": "assistant", "content": f"PROGRESS: done through file_{n - 1:02d}, sum=999"}]
    if with_file is not None:
        call = {"id": "c1", "type": "function", "function": {"name": "read_file",
                                                             "arguments": json.dumps({"path": "data/file_00.txt"})}}
        messages += [{"role": "assistant", "content": "look again", "tool_calls": [call]},
                     {"role": "tool", "tool_call_id": "c1", "content": with_file}]
    return messages


def test_reads_again_only_when_the_old_line_is_missing() -> None:
    path, old, new = edit_targets(6, 2)[0]
    model = FileEditTaskAgent(6, edits=2)
    reply = model(_request(_all_read(6)))
    assert [(name, args) for name, args in reply.tool_calls] == [("read_file", {"path": path})]
    assert model.rereads == 1

    model = FileEditTaskAgent(6, edits=2)
    reply = model(_request(_all_read(6, with_file=f"     1\tVALUE=100\n     5\t{old}\n")))
    assert [(name, args) for name, args in reply.tool_calls] == [
        ("edit_file", {"path": path, "old_string": old, "new_string": new})]
    assert model.rereads == 0


def test_the_task_names_no_old_line() -> None:
    """Otherwise the kept task message would always hold the line and nothing would ever be re-read."""
    assert not any(old in edit_task_text(40, 10) for _path, old, _new in edit_targets(40, 10))


def test_too_many_edits_for_the_files_is_refused() -> None:
    with pytest.raises(ValueError, match="at least 5 files"):
        edit_targets(4, 3)


def test_naive_agent_finishes_a_small_run(tmp_path: Path) -> None:
    spec = importlib.util.spec_from_file_location("live_files", BENCH)
    assert spec is not None and spec.loader is not None
    bench = importlib.util.module_from_spec(spec)
    sys.modules["live_files"] = bench  # dataclasses look their module up
    spec.loader.exec_module(bench)
    assert "compact_agent" not in inspect.getsource(bench.NaiveAgent)  # independent of what it is compared with

    expected = make_project(tmp_path, 6, filler_chars=4_000)
    model = FileEditTaskAgent(6, edits=2)
    with FakeOpenAIServer(model, model=bench.MODEL, window=8_000) as server:
        agent = bench.NaiveAgent(server.base_url, tmp_path, 8_000)
        out = agent.run(edit_task_text(6, 2))
    assert out == f"FINAL SUM: {expected}"
    assert edits_applied(tmp_path, 6, 2) == 2
    assert agent.compactions >= 1 and not server.rejected
    assert model.rereads >= 2  # file_00 and file_02 were summarised away before their edits
    assert server.requests[0].tools == bench.NAIVE_TOOLS

    # naive+: the same loop sending another agent's system prompt and tool definitions, as given
    system, tools = "Another agent's system prompt.", [*bench.NAIVE_TOOLS, {"type": "function", "function": {
        "name": "glob", "description": "Find files.", "parameters": {"type": "object", "properties": {}}}}]
    project = tmp_path / "again"
    make_project(project, 6, filler_chars=4_000)
    with FakeOpenAIServer(FileEditTaskAgent(6, edits=2), model=bench.MODEL, window=8_000) as server:
        agent = bench.NaiveAgent(server.base_url, project, 8_000, system=system, tools=tools)
        assert agent.run(edit_task_text(6, 2)) == f"FINAL SUM: {expected}"
    assert all(r.tools == tools and r.messages[0]["content"] == system for r in server.requests)


async def test_a_read_kept_by_a_compaction_still_allows_the_edit(tmp_path: Path) -> None:
    """The compaction keeps the turn that read b.txt: the model sees its text, so edit_file must accept it."""
    from compact_agent.agent.run.options import SessionOptions
    from compact_agent.agent.run.runner import AgentSession
    from tests.fakes.openai_server import Reply, tool_results

    def responder(req: ChatRequest) -> Reply:
        if is_summary_request(req):
            return Reply.text("<analysis>x</analysis><summary>a.txt was read.</summary>")
        ask = req.last_user_text()
        if tool_results(req):
            return Reply.text(f"done: {ask}")
        if ask.startswith("read "):
            return Reply.tools([("read_file", {"path": ask.split()[1]})])
        return Reply.tools([("edit_file", {"path": "b.txt", "old_string": "beta 7", "new_string": "beta 8"})])

    cwd = tmp_path / "project"
    cwd.mkdir()
    (cwd / "a.txt").write_text("alpha\n" * 400)
    (cwd / "b.txt").write_text("beta 7\n")
    with FakeOpenAIServer(responder) as server:
        s = AgentSession(SessionOptions(cwd=cwd, model="fake-model", base_url=server.base_url, api_key="k",
                                        context_window=16_000, permission_mode="yes", home=tmp_path / "home"))
        try:
            await s.run_turn("read a.txt")
            pivot = len(s.messages)
            await s.run_turn("read b.txt")
            await s.compact(pivot=pivot, direction="up_to")
            await s.run_turn("now edit b.txt")
        finally:
            s.close()
    assert (cwd / "b.txt").read_text() == "beta 8\n"
    assert (cwd / "a.txt").resolve() not in s.read_state  # its read was summarised away
