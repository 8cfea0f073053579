"""docs/library.md: its complete example runs, offline, and prints what the page says it prints."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

DOC = Path(__file__).resolve().parents[1] / "docs" / "library.md"


def blocks(lang: str) -> list[str]:
    """Fenced blocks of `lang` (a block tagged `python skip` is an excerpt, not a program)."""
    return re.findall(rf"^```{lang}\n(.*?)^```$", DOC.read_text(encoding="utf-8"), re.S | re.M)


def test_the_library_example_runs_offline_and_prints_what_the_page_shows(tmp_path: Path) -> None:
    (program,), (shown,) = blocks("python"), blocks("text")
    env = {k: v for k, v in os.environ.items() if not k.startswith("COMPACT_AGENT_")}
    env["HOME"] = str(tmp_path)
    proc = subprocess.run([sys.executable, "-c", program], cwd=tmp_path, env=env, capture_output=True, text=True,
                          timeout=300)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout == shown
    assert list(tmp_path.iterdir()) == []  # nothing written, home and working directory included


def test_the_excerpts_name_only_what_the_library_exports() -> None:
    import compact_agent.context as lib

    names = set(re.findall(r"from compact_agent\.context import ([\w, ]+)", DOC.read_text(encoding="utf-8")))
    imported = {n.strip() for group in names for n in group.split(",")}
    assert imported and imported <= set(lib.__all__)


async def test_the_sqlite_store_of_the_page_resumes_across_a_restart(tmp_path: Path) -> None:
    """The page's SQLiteStore, as printed: two runs, each in a fresh store object and capability
    (a restart), hold exactly the conversation; a compaction archives and rewrites it."""
    from pydantic_ai import Agent
    from pydantic_ai.messages import ModelMessage, ModelResponse, TextPart, ToolCallPart
    from pydantic_ai.models.function import AgentInfo, FunctionModel
    from pydantic_ai.usage import RequestUsage, UsageLimits

    from compact_agent.context import ContextManager, HistoryStore
    from compact_agent.context.testing import reply_to_library_request

    (source,) = blocks("python store")
    namespace: dict[str, object] = {}
    exec(compile(source, "docs/library.md", "exec"), namespace)
    store_class = namespace["SQLiteStore"]
    steps = {"left": 0}

    def model(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        usage = RequestUsage(input_tokens=sum(len(str(getattr(p, "content", ""))) for m in messages
                                              for p in m.parts) // 4 + 200)
        if (reply := reply_to_library_request(messages, usage=usage)) is not None:
            return reply
        if steps["left"]:
            steps["left"] -= 1
            return ModelResponse(parts=[ToolCallPart("read", {"page": steps["left"]})], usage=usage)
        return ModelResponse(parts=[TextPart("done")], usage=usage)

    async def run_once(prompt: str, pages: int) -> tuple[list[ModelMessage], object]:
        store = store_class(tmp_path / "chats.db", "conversation-42")  # type: ignore[operator]
        assert isinstance(store, HistoryStore)
        agent = Agent(FunctionModel(model), capabilities=[ContextManager(window=8_000, store=store)])

        @agent.tool_plain
        def read(page: int) -> str:
            """A page."""
            return " ".join(f"word{page}-{i}" for i in range(400))

        steps["left"] = pages
        result = await agent.run(prompt, message_history=store.load_messages(),  # type: ignore[attr-defined]
                                 usage_limits=UsageLimits(request_limit=100))
        return result.all_messages(), store

    first, store = await run_once("Say hello.", 1)
    assert len(first) == 4 and store.load_messages() == first  # type: ignore[attr-defined]
    second, store = await run_once("Once more.", 1)  # a restart: new store object, new capability
    assert len(second) == 8 and store.load_messages() == second  # type: ignore[attr-defined]
    third, store = await run_once("Read a lot.", 20)
    assert store.load_messages() == third  # type: ignore[attr-defined]
    db = store.db  # type: ignore[attr-defined]
    (archives,) = db.execute("SELECT COUNT(*) FROM archives").fetchone()
    (boundaries,) = db.execute("SELECT COUNT(*) FROM boundaries").fetchone()
    assert archives == boundaries >= 1


def test_the_event_handler_of_the_page_tells_events_apart_by_layer_and_action(capsys: pytest.CaptureFixture[str]) -> None:
    """The page names the fields its `hook` / `failed`, `window` / `learned` stand for (`layer`,
    `action`); a handler written as it says sees a failing `before_compact` in a run. `kind` reads
    "event" on such an event, so a handler that tested it never matched."""
    from pydantic_ai import Agent
    from pydantic_ai.messages import ModelMessage, ModelResponse, TextPart, ToolCallPart
    from pydantic_ai.models.function import AgentInfo, FunctionModel
    from pydantic_ai.usage import UsageLimits

    from compact_agent.context import CompactionEvent, ContextManager, Event
    from compact_agent.context.testing import reply_to_library_request

    (source,) = blocks("python events")
    namespace: dict[str, object] = {}
    exec(compile(source, "docs/library.md", "exec"), namespace)
    on_event = namespace["on_event"]
    assert callable(on_event)
    on_event(CompactionEvent(layer="compact", action="failed", detail={"error": "the model returned an empty summary"}))
    on_event(Event("window", "learned", tokens_before=70_000, tokens_after=65_536))
    assert Event("hook", "failed").kind == "event" and CompactionEvent.kind == "compact"

    steps = {"n": 0}

    def model(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        if (reply := reply_to_library_request(messages)) is not None:
            return reply
        steps["n"] += 1
        return ModelResponse(parts=[ToolCallPart("read", {"i": steps["n"]})] if steps["n"] < 20 else [TextPart("done")])

    def hook(trigger: str, instructions: str) -> str:
        raise RuntimeError("the hook's server is down")

    agent = Agent(FunctionModel(model), capabilities=[ContextManager(window=4_000, before_compact=hook,
                                                                     event_handler=on_event)])

    @agent.tool_plain
    def read(i: int) -> str:
        return "data " * 300

    agent.run_sync("go", usage_limits=UsageLimits(request_limit=50))
    lines = capsys.readouterr().out.splitlines()
    assert lines[:2] == ["compaction failed: the model returned an empty summary", "the provider's window: 65536"]
    assert lines[2:] and set(lines[2:]) == {"before_compact failed: the hook's server is down"}
