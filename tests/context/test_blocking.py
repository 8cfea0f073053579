"""`before_compact` may block a compaction (`CompactionBlocked`), and `compact_now(confirm=...)`
previews one: what a pydantic-ai user gets from the public API.

The handler runs a real hook script, as the terminal agent's PreCompact hooks do: exit 2 (the
reason on stderr) or `{"decision": "block", "reason": ...}` on stdout blocks. A FunctionModel reads
pages until the history is far past the window; with every compaction blocked, each request must
still fit (within the hard limit: room left for the answer).
"""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import pytest
from pydantic_ai.messages import ModelMessage
from pydantic_ai.models.function import AgentInfo, FunctionModel

from compact_agent.context import (
    CompactionBlocked,
    CompactionEvent,
    CompactionResult,
    ContextManager,
    Event,
    InMemoryStore,
)
from compact_agent.context.testing import library_request

from .test_contract import LIMITS, Reader, reader_agent

BLOCKERS = {
    "exit 2": 'cat > /dev/null\necho "the release is being cut" >&2\nexit 2\n',
    "json": 'cat > /dev/null\necho \'{"decision": "block", "reason": "the release is being cut"}\'\n',
}


def hook(tmp_path: Path, body: str) -> Path:
    script = tmp_path / "precompact.sh"
    script.write_text("#!/usr/bin/env bash\n" + body)
    script.chmod(0o755)
    return script


def run_hook(script: Path, seen: list[str]):  # noqa: ANN201 - the handler's type is the public BeforeCompact
    """A `before_compact` that runs `script` with the trigger on stdin, as a PreCompact hook."""

    async def before(trigger: str, instructions: str) -> str:
        seen.append(trigger)
        proc = await asyncio.create_subprocess_exec(str(script), stdin=asyncio.subprocess.PIPE,
                                                    stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE)
        out, err = await proc.communicate(json.dumps({"trigger": trigger}).encode())
        if proc.returncode == 2:
            raise CompactionBlocked(err.decode().strip())
        said = json.loads(out) if out.strip().startswith(b"{") else {}
        if said.get("decision") == "block":
            raise CompactionBlocked(str(said.get("reason", "")))
        return instructions

    return before


class Measured(Reader):
    """A Reader that notes, for every main request, the size the pipeline measured and its limits."""

    def __init__(self, per_run: int) -> None:
        super().__init__(per_run)
        self.cm: ContextManager | None = None
        self.sizes: list[tuple[int, int, int]] = []  # (measured, hard limit, window)

    def __call__(self, messages: list[ModelMessage], info: AgentInfo):  # type: ignore[override]
        if self.cm is not None and library_request(messages) is None:
            cm = self.cm
            self.sizes.append((cm.last_tokens, cm.schedule.hard_limit(cm), cm.limits.window))
        return super().__call__(messages, info)


@pytest.mark.parametrize("how", list(BLOCKERS))
async def test_blocked_automatic_compactions_are_skipped_and_every_request_still_fits(tmp_path, how):
    events: list[Event] = []
    asked: list[str] = []
    reader = Measured(40)
    cm = ContextManager(window=8_000, event_handler=events.append,
                        before_compact=run_hook(hook(tmp_path, BLOCKERS[how]), asked))
    reader.cm = cm
    result = await reader_agent(reader, cm).run("Read.", usage_limits=LIMITS)
    assert result.output == "done"
    assert cm.compactions == [] and asked and set(asked) <= {"auto", "reactive"}
    assert not cm.breaker_open and cm.failures == 0  # a block is not a failure
    blocked = [e for e in events if isinstance(e, CompactionEvent) and e.action == "blocked"]
    assert len(blocked) == len(asked) and all(e.detail["reason"] == "the release is being cut" for e in blocked)
    shrunk = [e for e in blocked if "shrunk to fit the window" in e.detail["fallback"]]
    assert shrunk, [e.detail for e in blocked]  # the history went far past the window: 40 pages
    # Never over the window; and once blocked over the hard limit, within it (room for the answer).
    assert all(size <= window for size, _, window in reader.sizes)
    after_block = reader.sizes[-len(shrunk):]
    assert all(size <= hard for size, hard, _ in after_block), after_block
    assert len(result.all_messages()) > 80  # the history itself was never cut


@pytest.mark.parametrize("how", list(BLOCKERS))
async def test_compact_now_raises_the_block_and_changes_nothing(tmp_path, how):
    cm = ContextManager(window=64_000, before_compact=run_hook(hook(tmp_path, BLOCKERS[how]), []))
    first = await reader_agent(Reader(6), cm).run("Read.", usage_limits=LIMITS)
    history = first.all_messages()
    with pytest.raises(CompactionBlocked) as caught:
        await cm.compact_now(history)
    assert caught.value.reason == "the release is being cut"
    store = cm.store
    assert isinstance(store, InMemoryStore)
    assert store.messages == history and store.boundaries == [] and cm.compactions == []


async def test_a_preview_commits_only_what_was_confirmed() -> None:
    reader = Reader(6)
    cm = ContextManager(window=64_000)
    agent = reader_agent(reader, cm)
    history = (await agent.run("Read.", usage_limits=LIMITS)).all_messages()
    seen: list[CompactionResult] = []

    async def no(result: CompactionResult) -> bool:
        seen.append(result)
        return False

    with pytest.raises(CompactionBlocked):
        await cm.compact_now(history, model=FunctionModel(reader), confirm=no)
    store = cm.store
    assert isinstance(store, InMemoryStore)
    assert seen and seen[0].summary and store.messages == history and not store.boundaries and not cm.compactions

    async def yes(result: CompactionResult) -> bool:
        seen.append(result)
        return True

    new = await cm.compact_now(history, model=FunctionModel(reader), confirm=yes)
    assert new == seen[-1].messages == store.messages and len(store.boundaries) == 1
    assert seen[-1].summary in str(new[0].parts)


async def test_a_handler_that_returns_none_leaves_the_instructions_and_one_that_returns_a_number_failed() -> None:
    """A handler that only runs side effects returns None: the instructions stay as they were (it
    used to be a failed hook at every compaction). Anything else that is not text is a failed hook,
    and the compaction goes on."""
    reader = Reader(6)
    events: list = []
    ran: list[str] = []

    async def side_effects_only(trigger: str, instructions: str) -> None:
        ran.append(instructions)

    cm = ContextManager(window=64_000, before_compact=side_effects_only, event_handler=events.append)
    history = (await reader_agent(reader, cm).run("Read.", usage_limits=LIMITS)).all_messages()
    new = await cm.compact_now(history, model=FunctionModel(reader), instructions="keep the file names")
    assert ran == ["keep the file names"] and not [e for e in events if e.layer == "hook"]
    assert new and len(cm.compactions) == 1 and not cm.handler_instructs

    async def counts(trigger: str, instructions: str):
        return 5

    events.clear()
    cm = ContextManager(window=64_000, before_compact=counts, event_handler=events.append)  # type: ignore[arg-type]
    history = (await reader_agent(reader, cm).run("Read.", usage_limits=LIMITS)).all_messages()
    new = await cm.compact_now(history, model=FunctionModel(reader), instructions="keep the file names")
    failed = [e for e in events if e.layer == "hook" and e.action == "failed"]
    assert len(failed) == 1 and failed[0].detail["error"] == ("before_compact returned int 5, not the instructions "
                                                              "to use (a str, or None to leave them)")
    assert new and len(cm.compactions) == 1


@pytest.mark.parametrize(("answer", "said"), [(["keep"], "list"), (b"keep", "bytes"), (2.5, "float 2.5")])
async def test_a_handler_answer_that_is_not_text_is_named_by_its_type_not_its_repr(answer: object, said: str) -> None:
    """The failed hook's line showed Python's repr of the answer (`list ['keep']`, `bytes b'keep'`)."""
    events: list = []
    cm = ContextManager(window=64_000, before_compact=lambda trigger, instructions: answer,  # type: ignore[arg-type,return-value]
                        event_handler=events.append)
    history = (await reader_agent(Reader(6), cm).run("Read.", usage_limits=LIMITS)).all_messages()
    await cm.compact_now(history, model=FunctionModel(Reader(6)))
    failed = [e.detail["error"] for e in events if e.layer == "hook" and e.action == "failed"]
    assert failed == [f"before_compact returned {said}, not the instructions to use (a str, or None to leave them)"]


async def test_only_instructions_to_an_automatic_compaction_mark_the_handler_as_one_that_gives_them() -> None:
    """What the handler returns steers the schedule: instructions need a summary. Text only for a
    /compact (a summary anyway) or blank text leaves automatic compactions priced as records."""
    from compact_agent.context import handlers

    async def manual_only(trigger: str, instructions: str) -> str:
        return "keep the release notes" if trigger == "manual" else "  \n"

    cm = ContextManager(window=64_000, before_compact=manual_only)
    assert await handlers.before(cm, "manual", "") == "keep the release notes"
    assert await handlers.before(cm, "auto", "") == ""  # blank is no instructions
    assert not cm.handler_instructs

    async def always(trigger: str, instructions: str) -> str:
        return "keep the release notes"

    cm = ContextManager(window=64_000, before_compact=always)
    assert await handlers.before(cm, "auto", "") == "keep the release notes" and cm.handler_instructs
