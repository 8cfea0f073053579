"""`read_file` of a path in compact-agent's own data (the session store, the user config) is refused
in words true of the path whether or not anything is there, and the same for both.

It answered "permission denied: PATH is compact-agent's own data (sessions, settings)" for a path
that does not exist, as if it did. Saying "File not found" there instead would be an oracle: the
store names a folder for each project by its path and that path's hash (which the model can work
out) and each session by its time, so the model could learn which projects and sessions the user
has, and which config files. Now every path there gets one refusal, worded for what is true: it is
within compact-agent's own data, closed to the file tools, which do not tell whether anything is
there. A path that does not exist in the working directory is still "File not found".
"""

from __future__ import annotations

from pathlib import Path

from pydantic_ai import Agent
from pydantic_ai.messages import ModelMessage, ModelResponse, TextPart, ToolCallPart, ToolReturnPart
from pydantic_ai.models.function import AgentInfo, FunctionModel

from compact_agent.agent.safety.permissions import Permissions
from compact_agent.agent.tools.base import ToolEnv
from compact_agent.agent.tools.file_state import ReadFileState
from compact_agent.agent.tools.toolset import build_toolset
from compact_agent.config import Settings


def read_results(env: ToolEnv, paths: list[str]) -> list[str]:
    """What the agent's read_file answers for each of `paths`, the model calling it one a step."""
    def script(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        step = sum(isinstance(m, ModelResponse) for m in messages)
        if step < len(paths):
            return ModelResponse(parts=[ToolCallPart("read_file", {"path": paths[step]}, tool_call_id=f"c{step}")])
        return ModelResponse(parts=[TextPart("Done.")])

    agent: Agent[None, str] = Agent(FunctionModel(script), toolsets=[build_toolset(env)])
    messages = agent.run_sync("Look around.").all_messages()
    return [str(p.content) for m in messages for p in m.parts if isinstance(p, ToolReturnPart)]


def test_a_path_in_the_store_is_refused_alike_whether_or_not_it_exists(tmp_path: Path) -> None:
    cwd, store = tmp_path / "work", tmp_path / "data" / "projects"
    (store / "app-1a2b3c4d5e6f").mkdir(parents=True)
    (store / "app-1a2b3c4d5e6f" / "20261207-031500-abcdef.jsonl").write_text("{}\n")
    cwd.mkdir()
    env = ToolEnv(cwd, Settings(), ReadFileState(), Permissions(cwd, "yes", private_dirs=[store]))
    there = [store / "app-1a2b3c4d5e6f" / "20261207-031500-abcdef.jsonl", store / "app-1a2b3c4d5e6f", store]
    not_there = [store / "app-1a2b3c4d5e6f" / "20261207-031500-000000.jsonl", store / "secret-9f8e7d6c5b4a",
                 store / "secret-9f8e7d6c5b4a" / "20261207-031500-abcdef.jsonl"]
    results = read_results(env, [str(p) for p in [*there, *not_there]] + ["missing.txt"])

    said = [r.replace(str(p), "PATH") for r, p in zip(results, [*there, *not_there], strict=False)]
    assert said == [said[0]] * 6, said  # nothing tells a path that is there from one that is not
    assert said[0] == ("permission denied: PATH is within compact-agent's own data (sessions, settings), closed to "
                       "the file tools, which do not tell whether anything is there; the user can change it by hand")
    assert results[6] == "File not found: missing.txt"  # in the working directory, as before
