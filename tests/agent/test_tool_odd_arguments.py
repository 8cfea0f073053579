"""Arguments a model may send that Python takes badly: a regex nested hundreds of groups deep was
refused in Python's words ('maximum recursion depth exceeded while calling a Python object'), and a
NaN timeout killed the command at once, 'timed out after nans'."""

from __future__ import annotations

import json
from pathlib import Path

from compact_agent.agent.run.options import SessionOptions
from compact_agent.agent.run.runner import AgentSession
from compact_agent.agent.tools.base import ToolEnv
from tests.fakes.openai_server import ChatRequest, FakeOpenAIServer, Reply, tool_results

from .test_tools import call


async def test_a_regex_nested_too_deeply_is_refused_in_our_words(env: ToolEnv) -> None:
    out = await call(env, "grep", pattern="(" * 500 + "a" + ")" * 500)
    assert out.startswith("invalid regex '((((") and out.endswith(": groups nested too deeply"), out


async def test_a_nan_timeout_runs_the_command_with_the_default_timeout(env: ToolEnv) -> None:
    assert await call(env, "bash", command="echo ran", timeout=float("nan")) == "ran\nexit code: 0"


async def test_a_tool_call_whose_arguments_are_nested_too_deeply_ends_no_turn(tmp_path: Path) -> None:
    """A reply calling a tool with arguments nested 100,000 deep (`[[[[…`) ended the turn with
    'maximum recursion depth exceeded while decoding a JSON array': the file ledger read the call's
    arguments with a parser that recurses. The model is told the arguments are not JSON, and a
    compaction of that history goes through."""
    deep = "[" * 100_000 + "]" * 100_000

    def model(req: ChatRequest) -> Reply:
        if "Summary" in req.last_user_text() or req.tool_choice == "none":
            return Reply.text("<summary>the model sent broken arguments</summary>")
        return Reply.text("done") if tool_results(req) else Reply.tools([("read_file", deep)])

    with FakeOpenAIServer(model) as server:
        s = AgentSession(SessionOptions(cwd=tmp_path, model="fake-model", base_url=server.base_url, api_key="k",
                                        permission_mode="yes", home=tmp_path / "home"))
        try:
            assert (await s.run_turn("go")).output == "done"
            await s.compact()
        finally:
            s.close()
    assert "not valid JSON" in json.dumps(server.requests[1].messages)


def test_the_tool_line_and_the_restore_read_arguments_nested_too_deeply() -> None:
    from pydantic_ai.messages import ModelResponse, ToolCallPart

    from compact_agent.context.compaction.restore import read_paths_in
    from compact_agent.ui.tool_lines import call_line

    deep = "[" * 100_000 + "]" * 100_000
    assert call_line({"tool": "bash", "args": {}, "args_raw": deep}).startswith("● bash(<arguments that are not JSON: [[[")
    assert read_paths_in([ModelResponse(parts=[ToolCallPart("read_file", deep, "c1")])]) == set()


async def test_a_lone_surrogate_in_a_path_or_a_command_is_refused_in_our_words(env: ToolEnv) -> None:
    """A model's reply may hold `\\ud800` escaped in its JSON (Anthropic's tool input is decoded as
    it comes): the tools said Python's "'utf-8' codec can't encode character '\\ud800' in position 18:
    surrogates not allowed". A name's byte that is not UTF-8 (`\\udcff`) is still a name."""
    said = "cannot hold U+D800, half of a UTF-16 pair and no character"
    assert await call(env, "read_file", path="notes\ud800.txt") == f"read_file failed: a path {said}"
    assert await call(env, "write_file", path="x\ud800", content="x") == f"write_file failed: a path {said}"
    assert await call(env, "bash", command="echo \ud800") == f"bash failed: a command {said}"
    assert await call(env, "read_file", path="\udcff") == "File not found: \\xff"
