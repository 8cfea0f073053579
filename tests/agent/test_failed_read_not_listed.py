"""A read that failed is no read of its file: a compaction neither lists it among the files to read
again nor takes it for the file's text in what it keeps.

The compaction message said "Files read recently (not restored; read them again if needed): …" of a
path whose `read_file` had answered "File not found": every read call counted, whatever its result.
And a failed read in the tail a compaction keeps verbatim (an offset past the end) stood for the
file's text there, so a file the model had changed was not restored though nothing of it was left.
Reads whose result says they failed (read_file's error mark) now count for neither. The results are
the agent's own read_file's, run through its toolset.
"""

from __future__ import annotations

import asyncio
from pathlib import Path

from pydantic_ai import Agent
from pydantic_ai.messages import (
    ModelMessage,
    ModelRequest,
    ModelResponse,
    TextPart,
    ToolCallPart,
    ToolReturnPart,
    UserPromptPart,
)
from pydantic_ai.models.function import AgentInfo, FunctionModel

from compact_agent.agent.safety.permissions import Permissions
from compact_agent.agent.tools.base import ToolEnv
from compact_agent.agent.tools.file_state import ReadFileState
from compact_agent.agent.tools.toolset import build_toolset, mention_messages
from compact_agent.config import Settings
from compact_agent.context import Compactor, Limits
from compact_agent.context.compaction.restore import Restorer
from compact_agent.context.plumbing.rounds import unpaired


def run_tools(env: ToolEnv, calls: list[tuple[str, dict[str, object]]]) -> list[ModelMessage]:
    """The history of a run whose model makes `calls` one a step, then answers: the agent's tools run them."""
    def script(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        step = sum(isinstance(m, ModelResponse) for m in messages)
        if step < len(calls):
            name, args = calls[step]
            return ModelResponse(parts=[ToolCallPart(name, args, tool_call_id=f"c{step}")])
        return ModelResponse(parts=[TextPart("Done.")])

    agent: Agent[None, str] = Agent(FunctionModel(script), toolsets=[build_toolset(env)])
    return agent.run_sync("Look at the code.").all_messages()


def compact(env: ToolEnv, messages: list[ModelMessage], recent: list[Path]) -> list[ModelMessage]:
    restorer = Restorer(recent_files=lambda: recent, resolve=lambda s: env.cwd / s,
                        reread=lambda paths, n: mention_messages(env, paths, n, kind="restore", salt="k"))

    async def summarize(messages: list[ModelMessage], prompt: str) -> str:
        return "<summary>Looked at the code.</summary>"

    result = asyncio.run(Compactor(Limits.for_window(32_000, 4_000), restorer).compact(
        messages, summarize=summarize, archive=lambda: None))
    assert unpaired(result.messages) == (set(), set())
    return result.messages


def listed(messages: list[ModelMessage]) -> str:
    head = messages[0]
    assert isinstance(head, ModelRequest) and isinstance(head.parts[0], UserPromptPart)
    return next((line for line in str(head.parts[0].content).splitlines()
                 if line.startswith("Files read recently")), "")


def results_of(messages: list[ModelMessage], call_id: str) -> list[str]:
    return [str(p.content) for m in messages if isinstance(m, ModelRequest) for p in m.parts
            if isinstance(p, ToolReturnPart) and p.tool_call_id == call_id]


def env_for(tmp_path: Path) -> ToolEnv:
    (tmp_path / "app.py").write_text("def main():\n    return 1\n")
    (tmp_path / "util.py").write_text("def helper():\n    return 2\n")
    return ToolEnv(tmp_path, Settings(), ReadFileState(), Permissions(tmp_path, "yes"))


LATER: list[tuple[str, dict[str, object]]] = [("glob", {"pattern": f"*{k}*.txt"}) for k in range(10)]  # later steps: the reads leave the tail


def test_a_file_not_found_is_not_listed_as_read(tmp_path: Path) -> None:
    env = env_for(tmp_path)
    messages = run_tools(env, [("read_file", {"path": "app.py"}), ("read_file", {"path": "missing.py"}),
                               ("read_file", {"path": "util.py"}), *LATER])
    assert results_of(messages, "c1")[0].startswith("File not found: missing.py")
    line = listed(compact(env, messages, recent=[]))
    assert "app.py" in line and "util.py" in line, line
    assert "missing.py" not in line, line


def test_a_failed_read_in_the_tail_does_not_keep_a_changed_file_from_coming_back(tmp_path: Path) -> None:
    env = env_for(tmp_path)
    messages = run_tools(env, [("read_file", {"path": "app.py"}),
                               ("edit_file", {"path": "app.py", "old_string": "return 1", "new_string": "return 3"}),
                               *LATER, ("read_file", {"path": "app.py", "offset": 900})])
    last_read = f"c{len(LATER) + 2}"
    assert "past the end" in results_of(messages, last_read)[0]
    after = compact(env, messages, recent=[tmp_path / "app.py"])
    assert results_of(after, last_read), "the failed read is in the tail kept"
    restored = [str(p.content) for m in after if isinstance(m, ModelRequest) for p in m.parts
                if isinstance(p, ToolReturnPart) and p.tool_call_id.startswith("restore_")]
    assert any("return 3" in text for text in restored), restored
