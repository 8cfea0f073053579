"""The full transcript is archived for a compaction that goes ahead, and only for one.

A compaction archives the whole transcript before it rewrites the history, and names that copy in
its summary message, so nothing is lost. The compactor wrote the copy before its last check that
the compacted history is smaller than the one it replaces: a compaction refused there (a summary
too long for the room, the system prompts put back) left a copy of the transcript in the store for
a compaction that never happened, one more at every refused attempt. The copy is now written once
the compaction is known to go ahead, still before the history is rewritten, and the summary
message names it.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from pydantic_ai.messages import (
    ModelMessage,
    ModelRequest,
    ModelResponse,
    SystemPromptPart,
    TextPart,
    ToolCallPart,
    ToolReturnPart,
    UserPromptPart,
)
from pydantic_ai.models.function import AgentInfo, FunctionModel

from compact_agent.context import CompactionSettings, ContextManager, InMemoryStore, NotSmaller
from compact_agent.context.testing import reply_to_library_request


class FileArchives(InMemoryStore):
    """The in-memory store, writing each archive to a file, and keeping the order of its steps."""

    def __init__(self, root: Path) -> None:
        super().__init__()
        self.root, self.steps = root, []

    steps: list[tuple[str, Any]]

    def archive(self) -> Path | None:
        super().archive()
        path = self.root / f"transcript-{len(self.archives)}.jsonl"
        path.write_text(f"{len(self.messages)} messages\n")
        self.steps.append(("archive", path))
        return path

    def rewrite(self, boundary: dict[str, Any], messages: Any) -> None:
        self.steps.append(("rewrite", boundary["archive"]))
        super().rewrite(boundary, messages)


def history(system_prompt: str = "") -> list[ModelMessage]:
    first = [SystemPromptPart(system_prompt)] if system_prompt else []
    out: list[ModelMessage] = [ModelRequest(parts=[*first, UserPromptPart("read the notes")])]
    for i in range(6):
        out += [ModelResponse(parts=[ToolCallPart("read", {"page": i}, tool_call_id=f"c{i}")]),
                ModelRequest(parts=[ToolReturnPart("read", f"page {i}: " + "word " * 800, tool_call_id=f"c{i}")])]
    return [*out, ModelResponse(parts=[TextPart("Read them all.")])]


def summarizer(summary: str) -> FunctionModel:
    def answer(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        reply = reply_to_library_request(messages, summary)
        assert reply is not None
        return reply
    return FunctionModel(answer)


def manager(store: FileArchives, summary: str) -> ContextManager:
    return ContextManager(window=32_000, store=store, summary_model=summarizer(summary),
                          settings=CompactionSettings(compaction_records=False, collapse_enabled=False))


async def test_a_compaction_refused_as_no_smaller_leaves_no_archive(tmp_path: Path) -> None:
    store = FileArchives(tmp_path)
    cm = manager(store, "every word of every page: " + "word " * 8_000)  # longer than what it replaces
    messages = history()
    for _ in range(2):
        with pytest.raises(NotSmaller):
            await cm.compact_now(messages)
    assert store.steps == [] and store.archives == []
    assert list(tmp_path.iterdir()) == []
    assert store.messages == messages  # nothing rewritten either


async def test_a_compaction_the_system_prompts_put_back_leave_no_smaller_leaves_no_archive(tmp_path: Path) -> None:
    """Without the system prompt the compactor measures the history it made smaller; with it put back
    at its start (as pydantic-ai would not), the next request would be no smaller, whatever tail it
    keeps (a summary of 4,000 words kept the shortest, 11,398 → 10,462: compactor.py `short_of`)."""
    store = FileArchives(tmp_path)
    cm = manager(store, "what every page said: " + "word " * 5_500)  # with the prompt, more than before
    with pytest.raises(NotSmaller, match="would not shrink"):
        await cm.compact_now(history(system_prompt="Rule: cite the page. " * 1_000))
    assert store.steps == [] and list(tmp_path.iterdir()) == []


async def test_a_compaction_that_goes_ahead_archives_before_it_rewrites(tmp_path: Path) -> None:
    store = FileArchives(tmp_path)
    cm = manager(store, "Read six pages of notes.")
    before = history()
    after = await cm.compact_now(before)
    archived = tmp_path / "transcript-1.jsonl"
    assert store.steps == [("archive", archived), ("rewrite", str(archived))]
    assert store.archives == [before] and archived.read_text() == f"{len(before)} messages\n"
    head = after[0]
    assert isinstance(head, ModelRequest)
    said = getattr(head.parts[0], "content", None)
    assert isinstance(said, str) and f"is at {archived} " in said  # the summary names the copy it made
    assert cm.compactions[-1].archive == archived
    assert cm.compactions[-1].event.detail["archive"] == str(archived)
    assert cm.compactions[-1].tokens_after < cm.compactions[-1].tokens_before
