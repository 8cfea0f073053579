"""A program that uses the library as docs/library.md shows, checked by pyright in strict mode as a
user's CI would: the public API's annotations must accept what the library accepts. The tools
L3 may clear were annotated `Sequence[str]` on `ContextManager` (a set, which it takes, was a type
error) and `Collection[str]` on `CompactionSettings` (a generator, "any iterable" in the docs, was
one too). The type of `cm.window_learned`, `LearnedWindow`, was not exported. `default_layers`
returned `list[Any]`, not the `Layer`s the docs say it builds."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

PROGRAM = '''
from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from pathlib import Path
from typing import Any, assert_type

from pydantic_ai import Agent
from pydantic_ai.messages import ModelMessage, ModelResponse, TextPart
from pydantic_ai.models.function import AgentInfo, FunctionModel

from compact_agent.context import (
    CompactionBlocked, CompactionEvent, CompactionResult, CompactionSettings, ContextManager, Event,
    HistoryStore, InMemoryStore, Layer, LearnedWindow, MicrocompactEvent, Prices, default_layers,
)
from compact_agent.context.testing import reply_to_library_request


def llm(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
    if (reply := reply_to_library_request(messages)) is not None:
        return reply
    return ModelResponse(parts=[TextPart("done")])


def on_event(event: Event) -> None:
    match event:
        case CompactionEvent():
            print(event.strategy, event.tokens_before, event.tokens_after, event.incremental)
        case MicrocompactEvent():
            print(event.tokens_freed)
        case _:
            print(event.layer, event.action, event.error)


def count(messages: Sequence[ModelMessage]) -> int:
    return sum(len(str(m)) for m in messages) // 4


async def before(trigger: str, instructions: str) -> str | None:
    if trigger == "manual":
        raise CompactionBlocked("not now")
    return None


class Store:
    def append(self, messages: Sequence[ModelMessage]) -> None: ...
    def archive(self) -> Path | None: return None
    def rewrite(self, boundary: dict[str, Any], messages: Sequence[ModelMessage]) -> None: ...


async def main(tools: set[str]) -> None:
    store: HistoryStore = Store()
    settings = dataclasses.replace(CompactionSettings(compactable_tools=(t for t in tools)), collapse_enabled=False)
    cm = ContextManager(16_000, max_output=2_000, settings=settings, token_counter=count, store=store,
                        compactable_tools=tools, event_handler=on_event, before_compact=before,
                        prices=Prices(miss=3.0, hit=0.3, output=15.0, ttl_s=300))
    ContextManager(compactable_tools=frozenset(tools), store=InMemoryStore())
    assert_type(default_layers(settings), list[Layer])
    agent = Agent(FunctionModel(llm), capabilities=[cm])
    result = await agent.run("hi")

    async def confirm(compaction: CompactionResult) -> bool:
        return compaction.tokens_after < compaction.tokens_before

    history: list[ModelMessage] = await cm.compact_now(result.all_messages(), confirm=confirm)
    state: dict[str, Any] = cm.layer_state()
    learned: LearnedWindow | None = cm.window_learned
    if learned is not None:
        print(learned.window, learned.given)
    print(history, state, cm.window, cm.layer_savings, cm.compactions, cm.conversation("x"))
'''


def test_a_program_using_the_public_api_is_clean_under_pyright_strict(tmp_path: Path) -> None:
    (tmp_path / "program.py").write_text(PROGRAM, encoding="utf-8")
    (tmp_path / "pyrightconfig.json").write_text(json.dumps({"typeCheckingMode": "strict"}), encoding="utf-8")
    pyright = str(Path(sys.executable).parent / "pyright")  # a dev dependency, as `make test` runs it
    out = subprocess.run([pyright, "--outputjson", "--pythonpath", sys.executable, "program.py"], cwd=tmp_path,
                         capture_output=True, text=True, timeout=300)
    report = json.loads(out.stdout)
    assert [f"{d['range']['start']['line'] + 1}: {d['message']}" for d in report["generalDiagnostics"]] == []
    assert report["summary"]["filesAnalyzed"] == 1


def test_the_tools_l3_may_clear_are_any_list_or_set_of_names() -> None:
    from compact_agent.context import ContextManager

    tools = {"fetch": "a tool", "read": "another"}
    assert ContextManager(compactable_tools=tools.keys()).compactable_tools is not None  # a set of names
    with pytest.raises(TypeError, match="^compactable_tools must be a list of tool names, not dict$"):
        ContextManager(compactable_tools=tools)  # type: ignore[arg-type]
