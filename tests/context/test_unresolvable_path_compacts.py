"""A path the restorer's `resolve` cannot name does not stop a compaction.

A project held a link to itself (`ln -s loop loop`); the model called `read_file("loop/x.txt")`
and the tool answered with an error, as it should. Once the context reached the threshold, every
compaction called `Restorer.resolve("loop/x.txt")` to pair that failed read with a later call on
the same file (runs.py `superseded_failures`), the callback raised, and the turn ended with it: the
session could never be compacted again. So did a `~user` not known and a path holding a NUL. Each
call of the callback now goes through `ledger.named`: a path it raises for is named by its text.

`resolve` here is a plain one over a real folder: Python's own `Path.resolve` and `expanduser`
raise for these paths (RuntimeError for the loop and the unknown user, ValueError for the NUL).
"""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path

import pytest
from pydantic_ai import Agent, ModelRetry
from pydantic_ai.messages import ModelMessage, ModelResponse, TextPart, ToolCallPart
from pydantic_ai.models.function import AgentInfo, FunctionModel
from pydantic_ai.usage import RequestUsage, UsageLimits

from compact_agent.context import (
    CompactionEvent,
    CompactionSettings,
    Compactor,
    ContextManager,
    Event,
    Limits,
    Prices,
)
from compact_agent.context.compaction import ledger
from compact_agent.context.compaction.restore import Restorer
from compact_agent.context.testing import reply_to_library_request
from compact_agent.context.wiring import Internals

WINDOW = 16_000
PAGES = 24
UNRESOLVABLE = ["loop/x.txt", "~nosuchuser-of-this-test/notes.txt", "new\0.txt"]


def _resolver(root: Path) -> Callable[[str], Path]:
    def resolve(text: str) -> Path:
        return (root / Path(text).expanduser()).resolve()
    return resolve


@pytest.mark.parametrize("bad", UNRESOLVABLE, ids=["link-loop", "unknown-user", "nul"])
async def test_an_automatic_compaction_goes_on_past_a_path_resolve_raises_for(tmp_path: Path, bad: str) -> None:
    os.symlink("loop", tmp_path / "loop")
    resolve = _resolver(tmp_path)
    with pytest.raises((OSError, RuntimeError, ValueError)):  # the callback itself fails on it
        resolve(bad)
    events: list[Event] = []
    settings = CompactionSettings(collapse_enabled=False, priced_compaction=False)
    limits = Limits.for_window(WINDOW, 8_192, settings)
    restorer = Restorer(resolve=resolve)
    cm = ContextManager.wired(Internals(limits=limits, compactor=Compactor(limits, restorer)), window=WINDOW,
                              settings=settings, compactable_tools=["nothing"], event_handler=events.append,
                              prices=Prices(known=False))
    pages: list[str] = []

    def model(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        usage = RequestUsage(input_tokens=sum(len(str(getattr(p, "content", ""))) for m in messages
                                              for p in m.parts) // 4, output_tokens=10)
        if (reply := reply_to_library_request(messages, "Pages read so far.", usage=usage)) is not None:
            return reply
        if not pages:  # first the path that cannot be followed, then pages until the window fills
            return ModelResponse(parts=[ToolCallPart("read_file", {"path": bad})], usage=usage)
        if len(pages) <= PAGES:
            return ModelResponse(parts=[ToolCallPart("read_file", {"path": f"page{len(pages)}.txt"})], usage=usage)
        return ModelResponse(parts=[TextPart("done")], usage=usage)

    agent = Agent(FunctionModel(model), capabilities=[cm])

    @agent.tool_plain(retries=3)
    def read_file(path: str) -> str:
        """Read a file of the project."""
        pages.append(path)
        if path == bad:
            raise ModelRetry(f"cannot read {path!r}: a link that loops, or a path the system cannot follow")
        return "\n".join(f"{path} line {k}: worker ok, queue depth {k * 7 % 13}" for k in range(300))

    result = await agent.run("Read the pages.", usage_limits=UsageLimits(request_limit=80))

    assert result.output == "done"
    made = [e for e in events if isinstance(e, CompactionEvent) and not e.failed and e.trigger == "auto"]
    assert made, sorted({(e.layer, e.action) for e in events})
    assert not [e for e in events if isinstance(e, CompactionEvent) and e.failed]
    assert cm.compactions


async def test_a_compaction_asked_for_goes_on_too(tmp_path: Path) -> None:
    """`compact_now` (what /compact runs) over such a history: the failed read, then a read of the
    same path that went through (paired with it by its text), and the rest."""
    os.symlink("loop", tmp_path / "loop")
    limits = Limits.for_window(WINDOW, 8_192)
    cm = ContextManager.wired(Internals(limits=limits, compactor=Compactor(limits, Restorer(resolve=_resolver(tmp_path)))),
                              window=WINDOW, prices=Prices(known=False))
    calls = iter([*(["loop/x.txt"] * 2), *(f"page{k}.txt" for k in range(8))])

    def model(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        if (reply := reply_to_library_request(messages, "Pages read so far.")) is not None:
            return reply
        path = next(calls, None)
        return ModelResponse(parts=[ToolCallPart("read_file", {"path": path})] if path else [TextPart("done")])

    agent = Agent(FunctionModel(model))
    failed: list[str] = []

    @agent.tool_plain(retries=3)
    def read_file(path: str) -> str:
        """Read a file of the project."""
        if path == "loop/x.txt" and not failed:
            failed.append(path)
            raise ModelRetry("a link that loops, or a path the system cannot follow")
        return "\n".join(f"{path} line {k}" for k in range(200))

    history = (await agent.run("Read the pages.")).all_messages()
    compacted = await cm.compact_now(history, model=FunctionModel(model))

    assert len(compacted) < len(history) and cm.compactions


def test_named_takes_the_text_where_the_callback_raises() -> None:
    def fails(text: str) -> Path:
        raise OSError(40, "a link that loops", text)

    assert ledger.named(fails, "loop/x.txt") == "loop/x.txt"
    assert ledger.named(Path, "a.py") == Path("a.py")
    assert ledger.named(fails, "loop/x.txt") != Path("loop/x.txt")  # it pairs with no path a callback named
