"""A spilled result's preview names a tool to read the rest with only when the agent has one by
that name. It used to tell every agent to use `read_file(path=…, offset=, limit=)`, or `grep` and
`tail -c`, this project's agent's tools, which a library user's agent may not have: its model went
after a tool it could not call. Without them it names the saved file and the agent's file tools."""

from __future__ import annotations

import re
from pathlib import Path

from pydantic_ai import Agent
from pydantic_ai.messages import ModelMessage, ModelResponse, TextPart, ToolCallPart, ToolReturnPart
from pydantic_ai.models.function import AgentInfo, FunctionModel

from compact_agent.context import ContextManager
from compact_agent.context.layers.previews import build_preview

from .folder_store import FolderStore


def notes_sent(tmp_path: Path, tool_name: str, params: str, long_lines: bool) -> list[str]:
    """The last line of each spilled result's preview the model was sent, with one tool of the agent."""
    sent: list[list[ModelMessage]] = []

    def model(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        sent.append(messages)
        if len(sent) == 1:
            return ModelResponse(parts=[ToolCallPart("fetch", {})])
        return ModelResponse(parts=[TextPart("done")])

    agent: Agent[None, str] = Agent(FunctionModel(model),
                                    capabilities=[ContextManager(window=16_000, store=FolderStore(tmp_path))])
    line = "data " * (1_000 if long_lines else 10) + "\n"

    @agent.tool_plain
    def fetch() -> str:
        """A long log."""
        return line * (40_000 // len(line))

    namespace: dict[str, object] = {}
    exec(f"def {tool_name}({params}) -> str:\n    '''Another tool.'''\n    return ''", namespace)  # noqa: S102
    agent.tool_plain(namespace[tool_name])  # type: ignore[call-overload]
    agent.run_sync("go")
    return [p.content.rsplit("\n", 1)[-1] for p in sent[-1][-1].parts
            if isinstance(p, ToolReturnPart) and isinstance(p.content, str)]


def test_an_agent_without_file_tools_is_told_of_the_file_without_tools_named(tmp_path: Path) -> None:
    for long_lines in (False, True):
        [note] = notes_sent(tmp_path, "lookup", "key: str", long_lines)
        assert " saved to " in note and "with your file tools" in note, note
        assert not any(tool in note for tool in ("read_file", "grep", "tail ", "bash")), note


def test_an_agent_with_read_file_is_told_to_use_it_as_it_takes_its_arguments(tmp_path: Path) -> None:
    [note] = notes_sent(tmp_path, "read_file", "path: str, offset: int = 0, limit: int = 100", False)
    # the first line the preview leaves out (19 lines of 51 characters in its head) and as many as fit
    assert re.search(r'\. Read lines 20-765 with read_file\(path="' + re.escape(note.split(" saved to ")[1].split(" . ")[0])
                     + r'", offset=20, limit=(\d+)\), then on from offset=\d+ \(\1 lines fit in one result\)\.\]$',
                     note), note
    [note] = notes_sent(tmp_path, "read_file", "filename: str", False)
    assert note.endswith(" . Read the rest from that file with read_file.]")  # no offset= it does not take
    [note] = notes_sent(tmp_path, "grep", "pattern: str", True)
    assert "Read the rest with grep, which shows the text around a match (its lines are too long to read " \
           "by line).]" in note and "tail" not in note


def test_this_projects_agent_keeps_its_notes() -> None:
    """`build_preview` called without tools is this project's agent's (its read_file, grep, bash)."""
    text = "x" * 3_000 + "\n" + "y" * 3_000
    assert build_preview(text, 200, Path("/s/a.txt")).endswith(
        "Read the rest with grep, which shows the text around a match, or `tail -c +101 /s/a.txt | head -c 4000` "
        "for the next 4,000 bytes (its lines are too long for read_file).]")
