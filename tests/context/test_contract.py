"""What a pydantic-ai user relies on across a compaction, against real `Agent` runs.

A `FunctionModel` reads pages with a tool until told to stop; the pages are big enough that an
8,000-token window needs several compactions per run. It answers the library's own requests through
the public test helper (the request mark), never by the instruction's words.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from pathlib import Path

import pytest
from pydantic_ai import Agent, RunContext
from pydantic_ai.messages import (
    ModelMessage,
    ModelMessagesTypeAdapter,
    ModelRequest,
    ModelResponse,
    SystemPromptPart,
    TextPart,
    ToolCallPart,
    ToolReturnPart,
    UserPromptPart,
    repair_messages,
)
from pydantic_ai.models.function import AgentInfo, FunctionModel
from pydantic_ai.usage import RequestUsage, UsageLimits

from compact_agent.context import CompactionSettings, ContextManager, Event, HistoryNotSaved, InMemoryStore
from compact_agent.context.testing import library_request, reply_to_library_request

LIMITS = UsageLimits(request_limit=200)


class Reader:
    """Calls `read` `per_run` times after each user prompt, then answers; records every request."""

    def __init__(self, per_run: int) -> None:
        self.per_run = per_run
        self.left = per_run
        self.requests: list[tuple[str, list[ModelMessage]]] = []

    def __call__(self, messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        sent = sum(len(str(getattr(p, "content", ""))) for m in messages for p in m.parts)
        usage = RequestUsage(input_tokens=sent // 4 + 300, output_tokens=20)
        kind = library_request(messages) or "main"
        self.requests.append((kind, list(messages)))
        reply = reply_to_library_request(messages, "Pages read so far.", usage=usage)
        if reply is not None:
            return reply
        last = messages[-1]
        if isinstance(last, ModelRequest) and any(isinstance(p, UserPromptPart) for p in last.parts):
            self.left = self.per_run
        if self.left > 0:
            self.left -= 1
            return ModelResponse(parts=[ToolCallPart("read", {"page": self.per_run - self.left})], usage=usage)
        return ModelResponse(parts=[TextPart("done")], usage=usage)


def reader_agent(reader: Reader, cm: ContextManager, **kw: object) -> Agent[None, str]:
    agent: Agent[None, str] = Agent(FunctionModel(reader), capabilities=[cm], **kw)  # type: ignore[call-overload]

    @agent.tool_plain
    def read(page: int) -> str:
        """One page."""
        return f"page {page}: " + " ".join(f"line-{page}-{i}" for i in range(500))

    return agent


def valid_history(messages: Sequence[ModelMessage]) -> bool:
    """Starts with a request, alternates, and every tool call has its result and vice versa."""
    if not messages or not isinstance(messages[0], ModelRequest):
        return False
    calls = {p.tool_call_id for m in messages for p in m.parts if isinstance(p, ToolCallPart)}
    results = {p.tool_call_id for m in messages for p in m.parts if isinstance(p, ToolReturnPart)}
    kinds = [type(m) for m in messages]
    alternates = all(a is not b for a, b in zip(kinds, kinds[1:], strict=False))
    return calls == results and alternates


def system_prompts(messages: Sequence[ModelMessage]) -> list[str]:
    return [p.content for m in messages if isinstance(m, ModelRequest) for p in m.parts
            if isinstance(p, SystemPromptPart)]


# -- 1. system prompts ---------------------------------------------------------------------------
async def test_system_prompts_static_and_dynamic_are_sent_on_every_request_after_a_compaction() -> None:
    reader, cm = Reader(20), ContextManager(window=8_000)
    agent = reader_agent(reader, cm, system_prompt="You are the page reader.")
    calls = {"n": 0}

    @agent.system_prompt(dynamic=True)
    def today(ctx: RunContext[None]) -> str:
        calls["n"] += 1
        return f"Dynamic prompt, evaluation {calls['n']}."

    first = await agent.run("Read.", usage_limits=LIMITS)
    assert len(cm.compactions) >= 2
    main = [m for kind, m in reader.requests if kind == "main"]
    for sent in main:
        assert system_prompts(sent) == ["You are the page reader.", "Dynamic prompt, evaluation 1."]
    # The next run of the conversation: pydantic-ai re-evaluates the dynamic prompt it finds.
    reader.requests.clear()
    await agent.run("Again.", message_history=first.all_messages(), usage_limits=LIMITS)
    assert [system_prompts(m) for k, m in reader.requests if k == "main"][0] == [
        "You are the page reader.", "Dynamic prompt, evaluation 2."]


# -- 2. new_messages() --------------------------------------------------------------------------
async def test_new_messages_after_a_compaction_is_a_valid_history_to_go_on_with() -> None:
    reader, cm = Reader(20), ContextManager(window=8_000)
    agent = reader_agent(reader, cm, system_prompt="You are the page reader.")
    first = await agent.run("Read.", usage_limits=LIMITS)
    assert cm.compactions
    new = first.new_messages()
    assert valid_history(new) and new == first.all_messages()  # the run compacted: all of it is new
    assert system_prompts(new) == ["You are the page reader."]

    # A later run that compacts again: what it returns as new is the history to keep, and valid.
    before = len(cm.compactions)
    second = await agent.run("Again.", message_history=new, usage_limits=LIMITS)
    assert len(cm.compactions) > before
    kept = second.new_messages()
    assert valid_history(kept) and system_prompts(kept) == ["You are the page reader."]
    third = await agent.run("Once more.", message_history=kept, usage_limits=LIMITS)
    assert third.output == "done"


async def test_new_messages_without_a_compaction_are_only_the_runs_own() -> None:
    reader, cm = Reader(1), ContextManager(window=64_000)
    agent = reader_agent(reader, cm)
    first = await agent.run("Read.")
    second = await agent.run("Again.", message_history=first.all_messages())
    assert not cm.compactions
    assert second.new_messages() == second.all_messages()[len(first.all_messages()):]


# -- 3. the store follows the history ------------------------------------------------------------
async def test_a_shorter_history_passed_back_rewrites_the_store() -> None:
    reader, cm = Reader(2), ContextManager(window=64_000)
    agent = reader_agent(reader, cm)
    first = await agent.run("Read.")
    second = await agent.run("Again.", message_history=first.all_messages())
    # Regenerate the second answer: the caller goes back to the first run's history.
    third = await agent.run("Again, differently.", message_history=first.all_messages())
    store = cm.store
    assert isinstance(store, InMemoryStore)
    assert len(second.all_messages()) > len(first.all_messages())
    assert store.messages == third.all_messages()
    # What it held (the second answer, which the caller went back from) is archived first.
    assert [b["trigger"] for b in store.boundaries] == ["history_changed"]
    assert store.archives and store.archives[-1] == second.all_messages()


async def test_a_history_pydantic_ai_merges_at_a_runs_start_is_the_same_conversation() -> None:
    """Results a caller put before the prompt (an attachment read for the user) are a request of
    their own; the next run is handed them merged with the prompt's request. The store holds the
    same conversation: nothing to archive or rewrite."""
    reader, cm = Reader(1), ContextManager(window=64_000)
    agent = reader_agent(reader, cm)
    first = await agent.run("Read.")
    attached = [*first.all_messages(),
                ModelResponse(parts=[ToolCallPart("read", {"page": 9}, tool_call_id="attach-1")]),
                ModelRequest(parts=[ToolReturnPart("read", "page 9: attached", tool_call_id="attach-1")])]
    second = await agent.run("And this page?", message_history=attached)
    third = await agent.run("Again.", message_history=second.all_messages())
    store = cm.store
    assert isinstance(store, InMemoryStore)
    assert store.boundaries == [] and store.archives == []
    # It holds them as it was told them; merged as pydantic-ai merges them, that is the run's history.
    held = repair_messages(store.messages, repair_last_response=False)
    assert ModelMessagesTypeAdapter.dump_json(held) == ModelMessagesTypeAdapter.dump_json(third.all_messages())
    calls = {p.tool_call_id for m in held for p in m.parts if isinstance(p, ToolCallPart)}
    assert calls == {p.tool_call_id for m in held for p in m.parts if isinstance(p, ToolReturnPart)}


class FailingArchive(InMemoryStore):
    """A store whose archive fails (a full disk) until `full` is cleared."""

    full = True

    def archive(self) -> Path | None:
        if self.full:
            raise OSError("disk full")
        return super().archive()


async def test_a_store_that_cannot_archive_keeps_what_it_held_and_the_changed_history_is_not_sent() -> None:
    """Rewriting without the archive would lose what the store held; going on without rewriting
    ran the request on a history saved nowhere, told only in a log. The run stops before sending
    it, saying why, and the next run saves the changed history."""
    store = FailingArchive()
    reader, cm = Reader(2), ContextManager(window=64_000, store=store)
    agent = reader_agent(reader, cm)
    first = await agent.run("Read.")
    second = await agent.run("Again.", message_history=first.all_messages())
    held, sent = list(store.messages), len(reader.requests)
    with pytest.raises(HistoryNotSaved) as info:
        await agent.run("Again, differently.", message_history=first.all_messages())
    assert isinstance(info.value, OSError) and "\n" not in str(info.value)
    assert "could not archive what it held before rewriting it (disk full)" in str(info.value)
    assert store.messages == held and store.messages[:len(second.all_messages())] == second.all_messages()
    assert store.boundaries == [] and len(reader.requests) == sent  # nothing rewritten, nothing sent
    store.full = False  # space freed: the next run archives what the store held and rewrites it
    third = await agent.run("Again, differently.", message_history=first.all_messages())
    assert store.messages == third.all_messages() and store.archives == [held]
    assert [b["trigger"] for b in store.boundaries] == ["history_changed"]


async def test_a_new_context_manager_on_a_store_that_holds_the_conversation_appends_only_what_is_new() -> None:
    store = InMemoryStore()
    reader = Reader(1)
    first = await reader_agent(reader, ContextManager(window=64_000, store=store)).run("Read.")
    assert len(store.messages) == len(first.all_messages()) == 6 - 2  # request, call, result, answer
    # After a restart: a new capability, the same store, the history loaded from it.
    history = list(store.messages)
    second = await reader_agent(reader, ContextManager(window=64_000, store=store)).run(
        "Again.", message_history=history)
    assert store.messages == second.all_messages()
    assert len(store.messages) == 8


# -- 4. an observer never breaks the run ----------------------------------------------------------
async def test_an_event_handler_that_raises_does_not_break_the_run(caplog: pytest.LogCaptureFixture) -> None:
    seen: list[Event] = []

    def handler(event: Event) -> None:
        seen.append(event)
        raise RuntimeError("observer bug")

    reader = Reader(20)
    cm = ContextManager(window=8_000, event_handler=handler)
    with caplog.at_level(logging.WARNING):
        result = await reader_agent(reader, cm).run("Read.", usage_limits=LIMITS)
    assert result.output == "done" and cm.compactions
    assert seen and cm.handler_errors == len(seen)
    assert "observer bug" in caplog.text


# -- 12. the library's own requests carry a mark ---------------------------------------------------
async def test_summary_and_notes_requests_are_marked_for_a_test_model() -> None:
    reader = Reader(30)
    for settings in (CompactionSettings(memory_enabled=True), CompactionSettings(compaction_records=False)):
        cm = ContextManager(window=8_000, settings=settings)
        await reader_agent(reader, cm).run("Read.", usage_limits=LIMITS)
    kinds = {kind for kind, _ in reader.requests}
    assert {"summary", "notes", "main"} <= kinds
    # The mark is where the helper looks: the last message's metadata, nothing in the text.
    for kind, sent in reader.requests:
        if kind != "main":
            assert sent[-1].metadata and sent[-1].metadata["compact_agent_request"] == kind
    assert library_request([ModelRequest(parts=[UserPromptPart("<summary> in a user's words")])]) is None


# -- 10. the default store is bounded ----------------------------------------------------------------
async def test_the_in_memory_store_keeps_only_the_newest_archives() -> None:
    reader, cm = Reader(80), ContextManager(window=8_000)
    await reader_agent(reader, cm).run("Read.", usage_limits=LIMITS)
    store = cm.store
    assert isinstance(store, InMemoryStore)
    n = len(cm.compactions)
    assert n > store.max_archives == 8
    assert len(store.archives) == 8 and store.archives_dropped == n - 8 and len(store.boundaries) == n
    # The newest archive is the history the last compaction replaced.
    last = store.archives[-1]
    assert last and last[-1] != store.messages[-1] and isinstance(last[0], ModelRequest)


# -- 5. an implausible usage report does not switch the window guarantee off ----------------------------
async def test_a_model_that_reports_implausibly_few_input_tokens_still_gets_no_request_over_the_window() -> None:
    sizes: list[int] = []
    left = {"n": 40}

    def liar(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        chars = sum(len(str(getattr(p, "content", "") or getattr(p, "args", ""))) for m in messages for p in m.parts)
        sizes.append(chars // 4)
        usage = RequestUsage(input_tokens=50, output_tokens=10)  # whatever was sent: "50"
        if (reply := reply_to_library_request(messages, usage=usage)) is not None:
            return reply
        if left["n"]:
            left["n"] -= 1
            return ModelResponse(parts=[ToolCallPart("read", {"page": left["n"]})], usage=usage)
        return ModelResponse(parts=[TextPart("done")], usage=usage)

    events: list[Event] = []
    cm = ContextManager(window=16_000, event_handler=events.append)
    agent: Agent[None, str] = Agent(FunctionModel(liar), capabilities=[cm])

    @agent.tool_plain
    def read(page: int) -> str:
        """One page."""
        return " ".join(f"w{page}-{i:05d}" for i in range(1_000))  # ~2,000 tokens

    await agent.run("Read.", usage_limits=LIMITS)
    assert sum(sizes) > 10 * 16_000 and max(sizes) <= 16_000
    assert cm.calibration.ratio >= 0.5 and cm.calibration.rejected > 0
    assert any(e.layer == "calibration" and e.action == "rejected" for e in events)


def test_one_low_report_does_not_make_a_request_fit() -> None:
    from compact_agent.context.plumbing.tokens import Calibration

    c = Calibration()
    assert c.observe(7_000, 10_000)  # plausible: a tokenizer that counts 30% less
    assert c.tokens(10_000) == 7_000 and c.fits_tokens(10_000) == 10_000  # not yet evidence to fit by
    assert c.observe(7_100, 10_000)
    assert c.fits_tokens(10_000) < 10_000
    assert not c.observe(50, 10_004) and c.ratio > 0.5  # implausible: ignored


# -- 7. a window smaller than the fixed part -----------------------------------------------------------
async def test_a_window_smaller_than_the_instructions_is_refused_and_nothing_is_sent() -> None:
    from compact_agent.context import WindowTooSmallError

    reader = Reader(1)
    cm = ContextManager(window=1_000)
    agent = reader_agent(reader, cm, instructions="Follow the house rules. " * 500)  # ~3,000 tokens
    assert cm.limits is not None and cm.limits.window == 1_000  # as given, not raised
    with pytest.raises(WindowTooSmallError, match=r"needs [\d,]+ tokens .* the context window is 1,000"):
        await agent.run("Read.")
    assert reader.requests == []  # nothing was sent


# -- 11. a token counter counts each message once ----------------------------------------------------------
async def test_a_token_counter_is_asked_about_each_message_once() -> None:
    seen: list[ModelMessage] = []  # kept alive, so identities stay distinct

    def count(messages: Sequence[ModelMessage]) -> int:
        seen.extend(messages)
        return sum(len(str(getattr(p, "content", ""))) for m in messages for p in m.parts) // 3 + 4

    reader = Reader(30)
    cm = ContextManager(window=16_000, token_counter=count)
    await reader_agent(reader, cm).run("Read.", usage_limits=LIMITS)
    requests = len(reader.requests)
    assert cm.compactions and requests > 30
    assert len({id(m) for m in seen}) == len(seen)  # no message counted twice
    assert len(seen) < 6 * requests  # what each request adds (and the view's reshaped copies), not the history


# -- 9. the public constructor is the public options ------------------------------------------------------
PUBLIC_OPTIONS = ["window", "max_output", "settings", "summary_model", "token_counter", "store", "compactable_tools",
                  "event_handler", "notes_in_background", "max_conversations", "prices", "before_compact",
                  "summary_wording"]


def test_the_constructor_takes_only_the_public_options_each_documented() -> None:
    import inspect
    from pathlib import Path

    params = inspect.signature(ContextManager).parameters
    assert list(params) == PUBLIC_OPTIONS
    assert all(p.kind is inspect.Parameter.KEYWORD_ONLY for name, p in params.items() if name != "window")
    doc = inspect.getdoc(ContextManager) or ""
    page = (Path(__file__).resolve().parents[2] / "docs" / "library.md").read_text(encoding="utf-8")
    for name in PUBLIC_OPTIONS:
        assert f"`{name}`" in doc and f"| `{name}` |" in page, name


async def test_what_the_agent_wires_in_goes_through_one_typed_seam() -> None:
    from compact_agent.context.wiring import Internals

    events: list[Event] = []
    cm = ContextManager.wired(Internals(event_sink=events.append, provider="anthropic"), window=8_000)
    await reader_agent(Reader(20), cm).run("Read.", usage_limits=LIMITS)
    assert cm.provider == "anthropic" and any(e.layer == "compact" for e in events)
    with pytest.raises(TypeError):
        ContextManager(window=8_000, event_sink=events.append)  # type: ignore[call-arg]


# -- 13. the window from the model ---------------------------------------------------------------------------
async def test_without_a_window_the_models_own_is_used_where_pydantic_ai_knows_it() -> None:
    from pydantic_ai.exceptions import UserError

    reader = Reader(20)
    cm = ContextManager()
    assert cm.window is None  # not known until the first request reads it (not the provisional 8K limits')
    agent: Agent[None, str] = Agent(FunctionModel(reader, profile={"context_window": 8_000}), capabilities=[cm])

    @agent.tool_plain
    def read(page: int) -> str:
        """One page."""
        return f"page {page}: " + " ".join(f"line-{page}-{i}" for i in range(500))

    await agent.run("Read.", usage_limits=LIMITS)
    assert cm.window == 8_000 and cm.limits.window == 8_000 and cm.compactions
    unknown = reader_agent(Reader(1), ContextManager())
    with pytest.raises(UserError, match=r"does not know: ContextManager\(window=\.\.\.\)"):
        await unknown.run("Read.")


async def test_every_strategy_a_run_reports_is_documented() -> None:
    import inspect
    from pathlib import Path

    from compact_agent.context import CompactionEvent

    events: list[Event] = []
    for settings in (CompactionSettings(), CompactionSettings(compaction_records=False)):
        cm = ContextManager(window=8_000, settings=settings, event_handler=events.append)
        await reader_agent(Reader(30), cm).run("Read.", usage_limits=LIMITS)
    compactions = [e for e in events if isinstance(e, CompactionEvent)]
    strategies = {e.strategy for e in compactions}
    assert {"record", "full"} <= strategies and any(e.incremental for e in compactions)
    doc = inspect.getdoc(CompactionEvent) or ""
    page = (Path(__file__).resolve().parents[2] / "docs" / "library.md").read_text(encoding="utf-8")
    for s in strategies:
        assert f'"{s}"' in doc and f'"{s}"' in page, s
    assert "incremental" in doc and "incremental" in page


async def test_a_streamed_run_whose_usage_is_implausible_stays_inside_the_window() -> None:
    """FunctionModel's streamed responses report an estimated usage far below what was sent."""
    from collections.abc import AsyncIterator

    from pydantic_ai.models.function import DeltaToolCall, DeltaToolCalls

    sizes: list[int] = []
    left = {"n": 40}

    async def stream(messages: list[ModelMessage], info: AgentInfo) -> AsyncIterator[str | DeltaToolCalls]:
        sizes.append(sum(len(str(getattr(p, "content", "") or getattr(p, "args", ""))) for m in messages
                         for p in m.parts) // 4)
        if library_request(messages):
            yield "<summary>Pages read so far.</summary>"
        elif left["n"]:
            left["n"] -= 1
            yield {0: DeltaToolCall(name="read", json_args=f'{{"page": {left["n"]}}}', tool_call_id=f"c{left['n']}")}
        else:
            yield "done"

    cm = ContextManager(window=16_000)
    agent: Agent[None, str] = Agent(FunctionModel(stream_function=stream), capabilities=[cm])

    @agent.tool_plain
    def read(page: int) -> str:
        """One page."""
        return " ".join(f"w{page}-{i:05d}" for i in range(1_000))

    async def consume(ctx: RunContext[None], events: object) -> None:
        async for _ in events:  # type: ignore[attr-defined]
            pass

    result = await agent.run("Read.", usage_limits=LIMITS, event_stream_handler=consume)
    assert result.output == "done" and sum(sizes) > 10 * 16_000 and max(sizes) <= 16_000


async def test_compact_now_keeps_the_system_prompts_and_stamps_no_run() -> None:
    reader, cm = Reader(3), ContextManager(window=64_000)
    agent = reader_agent(reader, cm, system_prompt="You are the page reader.")
    first = await agent.run("Read.")
    new = await cm.compact_now(first.all_messages())
    assert system_prompts(new) == ["You are the page reader."] and valid_history(new)
    assert new[0].run_id is None  # made outside a run
    reader.requests.clear()
    await agent.run("Again.", message_history=new)
    assert all(system_prompts(m) == ["You are the page reader."] for k, m in reader.requests if k == "main")
