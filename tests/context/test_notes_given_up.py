"""A compaction from the session notes that is given up: the transcript is archived once, by the
compaction that goes ahead, before the history is rewritten.

The notes' compaction is built and checked before its archive is written (compactor.py's `vet`).
Built, it can still be given up: its restored files and context put it over the threshold
(`_OverThreshold` in memory.py), or the manager's own check refuses it (`_Vetoed`: with the
history's system prompts put back, the next request would be no smaller). Either way no copy of
the transcript is left for it, and the full summary is asked for instead; that one archives the
whole transcript before it rewrites the history, and names its copy.
"""

from __future__ import annotations

import dataclasses
from pathlib import Path
from typing import Any

import pytest
from pydantic_ai.messages import ModelMessage, ModelRequest, SystemPromptPart, UserPromptPart

from compact_agent.context.compaction.compactor import Compactor
from compact_agent.context.compaction.memory import SessionMemory, fingerprint
from compact_agent.context.compaction.restore import Restorer
from compact_agent.context.compaction.result import NotSmaller
from compact_agent.context.pipeline import ContextManager
from compact_agent.context.plumbing import tokens
from compact_agent.context.plumbing.events import Event
from compact_agent.context.plumbing.settings import CompactionSettings, Limits
from compact_agent.context.wiring import Internals
from tests.context.strategies import BASE, Conv, big_text

LIMITS = dataclasses.replace(Limits.for_window(64_000, 8_000), memory_min_tokens=1_000, memory_max_tokens=3_000,
                             memory_min_text_messages=2, memory_update_tokens=100)
NOTES = ("# Task and intent\nsum the files\n\n# Current state\ndone through file_30\n")


class Steps:
    """The pipeline's HistoryStore, in memory, keeping the order of what it was asked to do."""

    def __init__(self, root: Path) -> None:
        self.root, self.steps = root, []
        self.messages: list[ModelMessage] = []

    steps: list[tuple[str, Any]]

    def append(self, messages: list[ModelMessage]) -> None:
        self.messages = list(messages)

    def archive(self) -> Path:
        path = self.root / f"transcript-{sum(s[0] == 'archive' for s in self.steps) + 1}.jsonl"
        path.write_text(f"{len(self.messages)} messages\n")
        self.steps.append(("archive", path))
        return path

    def rewrite(self, boundary: dict[str, Any], messages: list[ModelMessage]) -> None:
        self.steps.append(("rewrite", boundary))
        self.messages = list(messages)


def reads(n: int, size: int, system_prompt: str = "") -> list[ModelMessage]:
    c = Conv().user("TASK: sum the files")
    for i in range(n):
        c.call("read_file", {"path": f"f{i}.txt"}, big_text(f"f{i}", size), text=f"reading {i}")
    out = c.messages
    if system_prompt:  # the history's own system prompt, as pydantic-ai records `system_prompt=`
        first = out[0]
        assert isinstance(first, ModelRequest)
        out[0] = ModelRequest(parts=[SystemPromptPart(system_prompt),
                                     *[p for p in first.parts if not isinstance(p, SystemPromptPart)]])
    return out


def manager(tmp_path: Path, *, attachments: list[ModelMessage] | None = None,
            notes: str = NOTES, summary: str = "Read the files; the sum is 42.") -> tuple[ContextManager, SessionMemory, Steps, list[str]]:
    asked: list[str] = []
    events: list[Event] = []

    async def summarize(messages: list[ModelMessage], prompt: str) -> str:
        asked.append(prompt)
        return f"<summary>{summary}</summary>"

    mem = SessionMemory(None, CompactionSettings(), clock=lambda: BASE)
    mem.notes = notes
    store = Steps(tmp_path)
    compactor = Compactor(LIMITS, restorer=Restorer(attachments=lambda: list(attachments or [])))
    cm = ContextManager.wired(Internals(limits=LIMITS, summarizer=lambda cm: summarize, memory=mem,
                                        compactor=compactor, clock=lambda: BASE,
                                        event_sink=events.append), store=store,
                            settings=CompactionSettings(compaction_records=False))  # a summary, never a record
    cm.seen = events  # type: ignore[attr-defined]
    return cm, mem, store, asked


def cover(mem: SessionMemory, messages: list[ModelMessage], back: int = 5) -> None:
    at = len(messages) - back
    mem.coverage = (at, fingerprint(messages[at]))


def head_text(messages: list[ModelMessage]) -> str:
    head = messages[0]
    assert isinstance(head, ModelRequest)
    return "\n".join(str(p.content) for p in head.parts if isinstance(p, UserPromptPart))


def skips(cm: ContextManager) -> list[str]:
    return [e.detail["reason"] for e in cm.seen if e.layer == "memory" and e.action == "skip"]  # type: ignore[attr-defined]


async def test_notes_over_the_threshold_once_restored_fall_back_to_one_archived_summary(tmp_path: Path) -> None:
    plan = ModelRequest(parts=[UserPromptPart("[compact-agent: current plan]\n" + big_text("step", 190_000))])
    assert tokens.estimate([plan]) > LIMITS.threshold * 3 // 4
    cm, mem, store, asked = manager(tmp_path, attachments=[plan])
    messages = reads(60, 6_000)
    store.append(messages)
    cover(mem, messages)
    result = await cm.compact(list(messages), trigger="auto")
    assert skips(cm) == ["over threshold after restoring files"]  # built, then given up
    assert result.strategy == "full" and len(asked) == 1  # the summary stood in
    archived = tmp_path / "transcript-1.jsonl"
    # One copy of the whole transcript, written before the rewrite, named by it and by the summary.
    assert [s[0] for s in store.steps] == ["archive", "rewrite"]
    assert store.steps[0][1] == archived and archived.read_text() == f"{len(messages)} messages\n"
    assert store.steps[1][1]["archive"] == str(archived) and store.steps[1][1]["strategy"] == "full"
    assert result.archive == archived and f"is at {archived} " in head_text(result.messages)
    assert [p.name for p in tmp_path.iterdir()] == [archived.name]


async def test_notes_the_system_prompt_leaves_no_smaller_fall_back_to_one_archived_summary(tmp_path: Path) -> None:
    """Without the history's system prompt the notes and their tail are smaller than the history they
    replace; with it put back at the start, as the next request sends it, they are not. The summary,
    shorter than the notes, does shrink it."""
    cm, mem, store, asked = manager(tmp_path, notes=NOTES + "\n# Worklog\n" + big_text("note", 60_000))
    messages = reads(30, 2_000, system_prompt="Rule: cite the file. " * 1_500)
    store.append(messages)
    cover(mem, messages)
    result = await cm.compact(list(messages), trigger="auto")
    assert [r.split(":")[0] for r in skips(cm)] == ["compaction refused"]
    assert result.strategy == "full" and len(asked) == 1
    archived = tmp_path / "transcript-1.jsonl"
    assert [s[0] for s in store.steps] == ["archive", "rewrite"] and store.steps[0][1] == archived
    assert store.steps[1][1]["archive"] == str(archived) and result.archive == archived
    assert f"is at {archived} " in head_text(result.messages)
    assert result.tokens_after < result.tokens_before
    assert [p.name for p in tmp_path.iterdir()] == [archived.name]


async def test_notes_and_summary_both_refused_leave_no_archive_and_the_history_as_it_was(tmp_path: Path) -> None:
    """Notes and a summary each longer than what they replace: neither shrinks the next request once
    the system prompt is put back, and the refusal reaches the caller, with no copy of the
    transcript left for either attempt."""
    worklog = "\n# Worklog\n" + big_text("note", 30_000)
    cm, mem, store, asked = manager(tmp_path, notes=NOTES + worklog, summary="Read the files." + worklog)
    messages = reads(12, 1_000, system_prompt="Rule: cite the file. " * 1_500)
    store.append(messages)
    cover(mem, messages)
    with pytest.raises(NotSmaller, match="would not shrink"):
        await cm.compact(list(messages), trigger="auto")
    assert store.steps == [] and list(tmp_path.iterdir()) == [] and store.messages == messages
