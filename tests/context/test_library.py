"""The library as a pydantic-ai user meets it: `ContextManager(window=...)` and nothing else.

A FunctionModel stands in for the provider: it counts the tokens of every request it receives
(its own count, denser than our characters/4, so the calibration must do its job), reports them as
usage, and fails the test if one is over the window. Writes are watched with an audit hook (any
file opened for writing, anywhere) and with a temporary HOME and working directory.
"""

from __future__ import annotations

import importlib.util
import json
import os
import re
import subprocess
import sys
import threading
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest
from opentelemetry.trace import (
    INVALID_SPAN_CONTEXT,
    NonRecordingSpan,
    Tracer,
    TracerProvider,
    get_current_span,
    use_span,
)
from pydantic_ai import Agent
from pydantic_ai.exceptions import ModelContextWindowExceededError
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
from pydantic_ai.usage import RequestUsage, UsageLimits

from compact_agent.context import (
    BudgetEvent,
    CompactionEvent,
    CompactionSettings,
    ContextManager,
    Event,
    InMemoryStore,
    Prices,
)
from compact_agent.context.compaction.notes import NOTES_MARK, SECTIONS

WINDOW = 16_000
WRITE_EVENTS = {"os.mkdir", "os.rename", "os.replace", "os.remove", "os.rmdir", "os.symlink", "os.link",
                "os.truncate", "os.chmod", "shutil.copyfile", "shutil.move", "shutil.rmtree"}
_watch: dict[str, Any] = {"thread": None, "writes": []}


def _audit(event: str, args: tuple[Any, ...]) -> None:
    if _watch["thread"] is None:  # armed only while a test body runs (any thread: tools run in workers)
        return
    if event == "open":
        path, mode, flags = (list(args) + [None, None, None])[:3]
        writing = (isinstance(mode, str) and any(c in mode for c in "wax+")) or (
            isinstance(flags, int) and flags & (os.O_WRONLY | os.O_RDWR | os.O_CREAT | os.O_APPEND))
        if writing:
            _watch["writes"].append(("open", str(path)))
    elif event in WRITE_EVENTS:
        _watch["writes"].append((event, str(args[0]) if args else ""))


sys.addaudithook(_audit)


@pytest.fixture
def no_writes(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[list[tuple[str, str]]]:
    """Any file write while the test body runs; HOME and cwd are empty temp folders."""
    home, cwd = tmp_path / "home", tmp_path / "cwd"
    home.mkdir()
    cwd.mkdir()
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.chdir(cwd)
    writes: list[tuple[str, str]] = []
    _watch["writes"], _watch["thread"] = writes, threading.get_ident()
    try:
        yield writes
    finally:
        _watch["thread"] = None
    assert list(home.iterdir()) == [] and list(cwd.iterdir()) == []


def provider_tokens(messages: list[ModelMessage]) -> int:
    """The fake provider's own count: about 3.3 characters a token (denser than our estimate)."""
    chars = 0
    for m in messages:
        for p in m.parts:
            if isinstance(p, ToolCallPart):
                chars += len(p.tool_name) + len(p.args_as_json_str()) + 20
            else:
                chars += len(str(getattr(p, "content", ""))) + 20
    return int(chars / 3.3) + 400  # + instructions and the tool's schema


def page(i: int) -> str:
    """6,000 characters of text that does not compress to nothing."""
    words = [f"w{(i * 7919 + k * 104729) % 100_003:05d}" for k in range(1_000)]
    return " ".join(words)[:6_000]


class FakeProvider:
    """Calls `fetch` `calls` times, then answers; writes summaries and notes when asked."""

    def __init__(self, calls: int, window: int = WINDOW) -> None:
        self.calls, self.window = calls, window
        self.done = 0
        self.sizes: list[tuple[str, int]] = []

    def __call__(self, messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        size = provider_tokens(messages)
        last = messages[-1]
        prompt = " ".join(str(p.content) for p in last.parts if isinstance(p, UserPromptPart))
        kind = "notes" if NOTES_MARK in prompt else "summary" if "<summary>" in prompt else "main"
        self.sizes.append((kind, size))
        assert size <= self.window, f"a {kind} request of {size} tokens reached a {self.window}-token window"
        usage = RequestUsage(input_tokens=size, output_tokens=30)
        if kind == "notes":
            body = "\n\n".join(f"# {s}\nfetched pages up to {self.done}" for s in SECTIONS)
            return ModelResponse(parts=[TextPart(f"<notes>{body}</notes>")], usage=usage)
        if kind == "summary":
            return ModelResponse(parts=[TextPart(f"<summary>Fetching pages; {self.done} fetched so far.</summary>")],
                                 usage=usage)
        if self.done < self.calls:
            self.done += 1
            call = ToolCallPart("fetch", {"i": self.done}, tool_call_id=f"call-{self.done}")
            return ModelResponse(parts=[call], usage=usage)
        return ModelResponse(parts=[TextPart(f"Fetched {self.done} pages.")], usage=usage)


def fetch_agent(provider: Any, cm: ContextManager) -> tuple[Agent[None, str], list[int]]:
    agent: Agent[None, str] = Agent(FunctionModel(provider), capabilities=[cm])
    fetched: list[int] = []

    @agent.tool_plain
    def fetch(i: int) -> str:
        """Fetch page i."""
        fetched.append(i)
        return page(i)

    return agent, fetched


async def test_one_line_setup_keeps_80_big_tool_results_inside_16k_and_writes_nothing(
        no_writes: list[tuple[str, str]]) -> None:
    provider = FakeProvider(80)
    cm = ContextManager(window=16_000)
    agent, fetched = fetch_agent(provider, cm)
    events: list[Event] = []
    cm.event_handler = events.append

    # pydantic-ai's own default stops a run at 50 requests; this one needs 81 and a few summaries.
    result = await agent.run("Fetch pages 1 to 80 and tell me when done.", usage_limits=UsageLimits(request_limit=200))

    assert result.output == "Fetched 80 pages."
    assert fetched == list(range(1, 81))
    main = [n for kind, n in provider.sizes if kind == "main"]
    assert len(main) == 81 and max(n for _, n in provider.sizes) <= WINDOW
    assert sum(len(page(i)) for i in range(1, 81)) // 4 > 7 * WINDOW  # the work really was ~120K tokens
    compactions = [e for e in events if isinstance(e, CompactionEvent) and not e.failed]
    assert compactions and not [e for e in events if isinstance(e, CompactionEvent) and e.failed]
    assert no_writes == []
    # The final response is persisted; the archives hold what compaction replaced; no task is left.
    store = cm.store
    assert isinstance(store, InMemoryStore)
    assert store.messages[-1] == result.all_messages()[-1]
    assert len(store.archives) + store.archives_dropped == len(cm.compactions) == len(compactions)
    assert len(store.archives) == min(len(compactions), store.max_archives)
    archived = {p.tool_call_id for a in store.archives for m in a for p in m.parts if isinstance(p, ToolReturnPart)}
    # The newest archives are the ones kept: together they hold every call from their oldest to call-75.
    oldest = min(int(c.split("-")[1]) for c in archived)
    assert {f"call-{i}" for i in range(oldest, 76)} <= archived and oldest < 70
    assert store.archives_dropped == 0 or oldest > 1
    assert cm.memory is None or not cm.memory.in_flight  # notes are off by default (they cost more than they save)


@pytest.mark.parametrize("prices", [Prices(hit=0), Prices(miss=0, hit=0, output=0, write=0)])
async def test_free_tokens_compact_where_the_window_forces_it(prices: Prices) -> None:
    """A model whose cached tokens cost nothing (a local server priced at 0): holding context is
    free, so nothing compacts early, and the window still rules. An infinite "cheapest point" used
    to fail every layer and every compaction ("cannot convert float infinity to integer")."""
    provider = FakeProvider(40)
    cm = ContextManager(window=16_000, prices=prices)
    events: list[Event] = []
    cm.event_handler = events.append
    agent, fetched = fetch_agent(provider, cm)
    result = await agent.run("Fetch pages 1 to 40 and tell me when done.", usage_limits=UsageLimits(request_limit=100))
    assert result.output == "Fetched 40 pages." and fetched == list(range(1, 41))
    assert not [e for e in events if e.action == "failed"], [e for e in events if e.action == "failed"]
    compactions = [e for e in events if isinstance(e, CompactionEvent)]
    assert compactions and all(e.tokens_before >= cm.limits.threshold for e in compactions)
    assert max(n for _, n in provider.sizes) <= WINDOW


@pytest.mark.parametrize(("bad", "error"), [
    ({"hit": -0.1}, ValueError), ({"output": float("nan")}, ValueError), ({"miss": float("inf")}, ValueError),
    ({"ttl_s": -1}, ValueError),
    # Not a number at all is the wrong type, as for the settings and the manager's own arguments
    # (docs/library.md): it raised ValueError, so `except TypeError` around both missed it.
    ({"miss": "0.28"}, TypeError), ({"ttl_s": True}, TypeError),
])
def test_a_price_that_is_not_a_number_of_dollars_is_refused(bad: dict[str, object], error: type[Exception]) -> None:
    name = next(iter(bad))
    unit = "seconds" if name == "ttl_s" else "USD per million tokens"  # each in its own unit
    with pytest.raises(error, match=rf"^Prices\.{name} must be a number of {unit}, 0 or more, not "):
        Prices(**bad)  # type: ignore[arg-type]


def test_importing_the_library_loads_no_cli_dependency() -> None:
    code = ("import sys; from compact_agent.context import *; "
            "print(sorted(m for m in ('rich', 'typer', 'prompt_toolkit', 'pydantic_settings', 'platformdirs') "
            "if m in sys.modules or any(k.startswith(m + '.') for k in sys.modules)))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, timeout=120)
    assert json.loads(out.stdout.replace("'", '"')) == []


def test_the_package_ships_py_typed_and_exports_its_api() -> None:
    import compact_agent
    import compact_agent.context as lib

    assert (Path(compact_agent.__file__).parent / "py.typed").is_file()
    assert "ContextManager" in lib.__all__ and all(hasattr(lib, name) for name in lib.__all__)


def test_every_exported_name_is_documented_and_what_users_catch_is_exported() -> None:
    """Thirteen exported names were in no document; `NotSmaller`, which `compact_now` raises, was
    not exported."""
    import compact_agent.context as lib

    docs = (Path(__file__).parents[2] / "docs" / "library.md").read_text(encoding="utf-8")
    undocumented = [name for name in lib.__all__ if f"`{name}" not in docs]
    assert undocumented == []
    assert "NotSmaller" in lib.__all__ and issubclass(lib.NotSmaller, lib.CompactionError)
    # raised where the instructions and tools leave no room even for a record (refusal.py): caught by its name
    assert "NoRoomForConversation" in lib.__all__
    assert issubclass(lib.NoRoomForConversation, ModelContextWindowExceededError)


def test_the_library_reads_no_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("COMPACT_AGENT_AUTOCOMPACT_BUFFER", "1")
    monkeypatch.setenv("COMPACT_AGENT_MICROCOMPACT_KEEP_RECENT", "99")
    cm = ContextManager(window=200_000)
    assert cm.limits.buffer == 13_000
    assert cm.settings.microcompact_keep_recent == CompactionSettings().microcompact_keep_recent != 99


@pytest.mark.parametrize("window", [0, -1])
def test_a_window_below_one_token_is_refused_in_one_line(window: int) -> None:
    """0 used to mean "not given" (an 8K window)."""
    with pytest.raises(ValueError, match=rf"^window must be a whole number of tokens, at least 1, not {window}$"):
        ContextManager(window=window)


def test_a_window_larger_than_any_model_is_refused_in_one_line() -> None:
    """10**12 (a unit slipped) was taken: the manager never compacted, and the provider refused the
    request that outgrew the real window."""
    assert ContextManager(window=10_000_000).window == 10_000_000
    with pytest.raises(ValueError, match=r"^window must be a whole number of tokens, at most 10,000,000 \(no model "
                                         r"has more\), not 1,000,000,000,000$"):
        ContextManager(window=10**12)


def test_a_model_name_is_checked_without_making_its_provider(monkeypatch: pytest.MonkeyPatch) -> None:
    """A known provider's name is accepted with no key in the environment: the library reads none.
    One whose package is not installed is refused, naming the package."""
    for key in ("OPENAI_API_KEY", "ANTHROPIC_API_KEY", "DEEPSEEK_API_KEY"):
        monkeypatch.delenv(key, raising=False)
    assert ContextManager(window=16_000, summary_model="test").summary_model == "test"
    for name, package in (("openai:gpt-4.1-mini", "openai"), ("anthropic:claude-sonnet-4-5", "anthropic"),
                          ("deepseek:deepseek-chat", "openai")):
        if importlib.util.find_spec(package) is not None:
            assert ContextManager(window=16_000, summary_model=name).summary_model == name
        else:  # the compat environment: pydantic-ai-slim without its provider extras
            with pytest.raises(ValueError, match=rf"^summary_model '{name}' cannot be used here: .*`{package}`"):
                ContextManager(window=16_000, summary_model=name)


class Counter:
    """A token counter written as a class: its instance counts, the class itself makes objects."""

    def __call__(self, messages: list[ModelMessage]) -> int:
        return 1


@pytest.mark.parametrize(("given", "error", "said"), [
    ({"settings": {}}, TypeError, "settings must be a CompactionSettings, not dict (it has no autocompact_buffer)"),
    ({"prices": {"miss": 1}}, TypeError, "prices must be a Prices, not dict"),
    ({"max_output": "x"}, TypeError, "max_output must be a whole number, at least 1, not str 'x'"),
    ({"max_output": 0}, ValueError, "max_output must be a whole number, at least 1, not 0"),
    ({"max_conversations": -1}, ValueError, "max_conversations must be a whole number, at least 1, not -1"),
    ({"store": object()}, TypeError, "store must be a HistoryStore (append, archive, rewrite); object has no "
                                     "append, archive, rewrite"),
    ({"token_counter": "x"}, TypeError, "token_counter must be a function, not str"),
    ({"event_handler": "x"}, TypeError, "event_handler must be a function, not str"),
    ({"before_compact": "x"}, TypeError, "before_compact must be a function, not str"),
    ({"token_counter": Counter}, TypeError, "token_counter must be a function or an instance (Counter()), not the "
                                            "class Counter"),
    ({"event_handler": Counter}, TypeError, "event_handler must be a function or an instance (Counter()), not the "
                                            "class Counter"),
    # A class whose instances cannot be called: its instance is no function (int() is no counter).
    ({"token_counter": int}, TypeError, "token_counter must be a function of (messages) returning their token "
                                        "count, not the class int"),
    ({"event_handler": list}, TypeError, "event_handler must be a function of (event), not the class list"),
    ({"before_compact": dict}, TypeError, "before_compact must be a function of (trigger, instructions), not the "
                                          "class dict"),
    ({"summary_model": 123}, TypeError, "summary_model must be a pydantic-ai Model or a model name, not int"),
    ({"summary_model": "nope:model"}, ValueError, "summary_model 'nope:model' is not a model name pydantic-ai "
                                                  "knows: write it as 'provider:model' (e.g. 'openai:gpt-4.1-mini'), "
                                                  "or pass a Model"),
    ({"summary_model": "openai:"}, ValueError, "summary_model 'openai:' is not a model name pydantic-ai knows: "
                                               "write it as 'provider:model' (e.g. 'openai:gpt-4.1-mini'), or pass a Model"),
    ({"summary_model": "gpt-4o"}, ValueError, "summary_model 'gpt-4o' is not a model name pydantic-ai knows: write "
                                              "it as 'provider:model' (e.g. 'openai:gpt-4.1-mini'), or pass a Model"),
    ({"compactable_tools": "read_log"}, TypeError, "compactable_tools must be a list of tool names, not 'read_log'"),
    ({"notes_in_background": "no"}, TypeError, "notes_in_background must be True or False, not str"),
])
def test_a_wrong_argument_is_named_when_the_manager_is_made(given: dict[str, Any], error: type, said: str) -> None:
    """Each of these used to be accepted and fail every request later (or fail deep inside with an
    error about something else): now the constructor names the argument."""
    with pytest.raises(error) as caught:
        ContextManager(window=16_000, **given)
    assert str(caught.value) == said


@pytest.mark.parametrize("count", [0, -1, "12", 1.5])
async def test_a_token_counter_that_does_not_count_stops_the_run_in_words(count: object) -> None:
    """A counter that says 0 let a request over the window through; "12" failed in arithmetic."""
    cm = ContextManager(window=16_000, token_counter=lambda messages: count)  # type: ignore[arg-type,return-value]
    agent, _ = fetch_agent(FakeProvider(3), cm)
    with pytest.raises(ValueError, match=rf"^token_counter returned {re.escape(repr(count))} for a message of about"):
        await agent.run("go")


async def test_a_plain_function_may_answer_before_compact() -> None:
    """The docs ask for `async def`; a plain function that returns the text is taken at its word
    (its answer used to be thrown away with 'object str can't be used in await expression')."""
    asked: list[str] = []

    def plain(trigger: str, instructions: str) -> str:
        asked.append(trigger)
        return "keep the page numbers"

    cm = ContextManager(window=16_000, before_compact=plain, summary_model=FunctionModel(FakeProvider(0)))
    events: list[Event] = []
    cm.event_handler = events.append
    agent, _ = fetch_agent(FakeProvider(40), cm)
    await agent.run("Fetch pages 1 to 40.", usage_limits=UsageLimits(request_limit=100))
    assert asked and cm.handler_instructs and not [e for e in events if e.layer == "hook"]


async def test_without_a_window_the_error_says_what_to_pass() -> None:
    """A model whose window pydantic-ai does not know (FunctionModel has none): the first request says
    what to pass, and nothing is sent."""
    from pydantic_ai.exceptions import UserError

    provider = FakeProvider(1)
    agent, _ = fetch_agent(provider, ContextManager())
    with pytest.raises(UserError, match=r"ContextManager\(window=\.\.\.\)"):
        await agent.run("go")
    assert provider.sizes == []


async def test_two_conversations_on_one_agent_keep_apart() -> None:
    """Each conversation has its own history, decisions and notes; runs of one do not leak into the other."""
    cm = ContextManager(window=16_000)
    agent, _ = fetch_agent(FakeProvider(30), cm)
    a1 = await agent.run("conversation A", conversation_id="A")
    agent2, _ = fetch_agent(FakeProvider(3), cm)  # the same capability instance on another agent
    b1 = await agent2.run("conversation B", conversation_id="B")
    a_state, b_state = cm.conversation("A"), cm.conversation("B")
    assert a_state is cm and b_state is not None and b_state is not cm
    assert isinstance(a_state.store, InMemoryStore) and isinstance(b_state.store, InMemoryStore)
    a_text = json.dumps([str(m) for m in a_state.store.messages])
    b_text = json.dumps([str(m) for m in b_state.store.messages])
    assert "conversation B" not in a_text and "conversation A" not in b_text
    # A's decisions (layer savings, compactions) are A's.
    assert a_state.compactions or any(a_state.layer_savings.values())
    assert not b_state.compactions and not any(b_state.layer_savings.values())
    assert b_state.store.messages == b1.all_messages()
    # A continues where it was, with its own frozen decisions.
    a2 = await agent.run("and once more", message_history=a1.all_messages(), conversation_id="A")
    assert a_state.store.messages == a2.all_messages()


async def test_each_event_names_the_conversation_it_happened_in() -> None:
    """One handler watching a manager that serves several conversations tells their events apart."""
    events: list[Event] = []
    cm = ContextManager(window=16_000, event_handler=events.append)
    agent, _ = fetch_agent(FakeProvider(30), cm)
    await agent.run("conversation A", conversation_id="A")
    seen_in_a = len(events)
    agent2, _ = fetch_agent(FakeProvider(30), cm)
    await agent2.run("conversation B", conversation_id="B")
    assert seen_in_a and len(events) > seen_in_a
    assert {e.conversation_id for e in events[:seen_in_a]} == {"A"}
    assert {e.conversation_id for e in events[seen_in_a:]} == {"B"}
    assert any(isinstance(e, CompactionEvent) for e in events[seen_in_a:])
    assert events[-1].to_json()["conversation_id"] == "B"


async def test_max_conversations_counts_the_first_and_drops_the_least_recently_used_other() -> None:
    """With 3: the first conversation (the instance's own state) and the two others used last.
    Before, the first was not counted (4 were kept) and the others went in order of arrival."""
    cm = ContextManager(window=16_000, max_conversations=3)
    agent, _ = fetch_agent(FakeProvider(1), cm)
    for key in ("first", "b", "c", "b", "d"):  # "b" used again before "d" arrives: "c" is the oldest
        await agent.run("go", conversation_id=key)
    kept = {key for key in ("first", "b", "c", "d") if cm.conversation(key) is not None}
    assert kept == {"first", "b", "d"} and cm.conversation("first") is cm
    one = ContextManager(window=16_000, max_conversations=1)
    agent, _ = fetch_agent(FakeProvider(1), one)
    await agent.run("go", conversation_id="first")
    await agent.run("go", conversation_id="other")  # served, then not kept
    assert one.conversation("first") is one and one.conversation("other") is None


@pytest.mark.parametrize(("given", "error", "said"), [
    ({"autocompact_buffer": -5}, ValueError, "CompactionSettings.autocompact_buffer must be 0 or more, not -5"),
    ({"thrash_requests": "x"}, TypeError, "CompactionSettings.thrash_requests must be a whole number, 1 or more, not 'x'"),
    ({"microcompact_keep_recent": "5"}, TypeError,
     "CompactionSettings.microcompact_keep_recent must be a whole number, 0 or more, not '5'"),
    ({"max_consecutive_failures": 0}, ValueError, "CompactionSettings.max_consecutive_failures must be 1 or more, not 0"),
    ({"collapse_commit_fraction": 2.0}, ValueError, "CompactionSettings.collapse_commit_fraction must be from 0 to 1, not 2.0"),
    ({"tool_result_max_chars": 10}, ValueError, "CompactionSettings.tool_result_max_chars must be 100 or more, not 10"),
    ({"stall_wait_usd": float("nan")}, ValueError, "CompactionSettings.stall_wait_usd must be 0 or more, not nan"),
    ({"collapse_enabled": "no"}, TypeError, "CompactionSettings.collapse_enabled must be True or False, not 'no'"),
    ({"compactable_tools": "bash"}, TypeError, "CompactionSettings.compactable_tools must be a list of tool names, not 'bash'"),
    ({"memory_retry_s": 0}, ValueError, "CompactionSettings.memory_retry_s must be more than 0 seconds, at most a day, not 0"),
    ({"tool_result_room_share": 7.0}, ValueError,
     "CompactionSettings.tool_result_room_share must be more than 0, at most 1 (all of the room), not 7.0"),
])
def test_a_setting_of_the_wrong_kind_is_named_where_the_settings_are_made(given: dict[str, Any], error: type,
                                                                         said: str) -> None:
    """Each was accepted and failed later: a string compared with a number at the first compaction
    (every compaction failed, then the breaker opened), 0 failures allowed opened the breaker at once."""
    with pytest.raises(error) as caught:
        CompactionSettings(**given)
    assert str(caught.value) == said


async def test_a_capability_given_its_own_store_refuses_a_second_conversation() -> None:
    from pydantic_ai.exceptions import UserError

    cm = ContextManager(window=16_000, store=InMemoryStore())
    agent, _ = fetch_agent(FakeProvider(1), cm)
    await agent.run("first", conversation_id="one")
    with pytest.raises(UserError, match="one ContextManager per conversation"):
        await agent.run("second", conversation_id="two")


async def test_compact_now_outside_a_run() -> None:
    provider = FakeProvider(0)
    cm = ContextManager(window=16_000, summary_model=FunctionModel(provider))
    history: list[ModelMessage] = []
    for i in range(1, 9):
        history += [ModelRequest(parts=[UserPromptPart(f"question {i}: " + page(i)[:2_000])]),
                    ModelResponse(parts=[TextPart(f"answer {i}")])]
    history.append(ModelRequest(parts=[UserPromptPart("the latest question")]))
    new = await cm.compact_now(history)
    assert len(new) < len(history) and [k for k, _ in provider.sizes] == ["summary"]
    assert isinstance(cm.store, InMemoryStore) and cm.store.messages == new and cm.store.archives[0] == history
    assert "the latest question" in str(new[-1])


async def test_compact_now_compacts_the_conversation_its_messages_belong_to() -> None:
    """One capability serves A and B; `compact_now` with B's history, called on the manager (A's
    state), compacts in B's state: B's store is rewritten and archived, A's is untouched (it used to
    overwrite A's store with B's history). The compaction message names B."""
    cm = ContextManager(window=16_000, summary_model=FunctionModel(FakeProvider(0)))
    # Three pages each: short enough that neither run compacts on its own.
    a = await fetch_agent(FakeProvider(3), cm)[0].run("conversation A", conversation_id="A")
    b = await fetch_agent(FakeProvider(3), cm)[0].run("conversation B", conversation_id="B")
    a_state, b_state = cm.conversation("A"), cm.conversation("B")
    assert a_state is cm and b_state is not None and b_state is not cm
    assert isinstance(a_state.store, InMemoryStore) and isinstance(b_state.store, InMemoryStore)
    assert not a_state.compactions and not b_state.compactions
    a_before = list(a_state.store.messages)
    new = await cm.compact_now(b.all_messages())
    assert a_state.store.messages == a_before == a.all_messages() and not a_state.compactions
    assert b_state.store.messages == new and b_state.store.archives == [b.all_messages()]
    assert len(b_state.compactions) == 1 and new[0].conversation_id == "B"
    # A history naming both is the newest one's, as a run given it runs in B (pydantic-ai's rule).
    mixed = await cm.compact_now([*a.all_messages(), *b.all_messages()])
    assert a_state.store.messages == a_before and not a_state.compactions
    assert b_state.store.messages == mixed and len(b_state.compactions) == 2


async def test_compact_now_and_resume_name_an_argument_of_the_wrong_kind() -> None:
    """A run's result instead of its messages, a string, a bad model name: each is one line naming
    what to pass (they used to fail deep inside: "'AgentRunResult' object is not iterable")."""
    cm = ContextManager(window=16_000, summary_model=FunctionModel(FakeProvider(0)))
    agent, _ = fetch_agent(FakeProvider(1), cm)
    result = await agent.run("go")
    history = result.all_messages()
    cases: list[tuple[Any, type, str]] = [
        (lambda: cm.compact_now(result), TypeError,
         "compact_now takes the history as a list of messages (result.all_messages()), not AgentRunResult"),
        (lambda: cm.compact_now("text"), TypeError, "compact_now takes the history as a list of messages, not str"),
        (lambda: cm.compact_now([*history, 5]), TypeError,
         f"compact_now: message {len(history)} is not a ModelRequest or ModelResponse (int)"),
        (lambda: cm.compact_now(history, instructions=None), TypeError,
         "compact_now: instructions must be a str, not NoneType"),
        (lambda: cm.compact_now(history, model=5), TypeError,
         "compact_now: model must be a pydantic-ai Model or a model name, not int"),
        (lambda: cm.compact_now(history, model="nope"), ValueError,
         "compact_now: model 'nope' is not a model name pydantic-ai knows: write it as 'provider:model' "
         "(e.g. 'openai:gpt-4.1-mini'), or pass a Model"),
        (lambda: cm.compact_now(history, confirm=True), TypeError, "compact_now: confirm must be a function, not bool"),
    ]
    for call, error, said in cases:
        with pytest.raises(error) as caught:
            await call()
        assert str(caught.value) == said
    assert cm.compactions == []  # nothing was compacted or archived for any of them
    for bad, said in (("x", "resume takes the history as a list of messages, not str"),
                      (result, "resume takes the history as a list of messages (result.all_messages()), "
                               "not AgentRunResult")):
        with pytest.raises(TypeError) as caught:
            cm.resume(bad)  # type: ignore[arg-type]
        assert str(caught.value) == said
    with pytest.raises(TypeError, match=r"^store must be a HistoryStore instance \(InMemoryStore\(\)\), not the class"):
        ContextManager(window=16_000, store=InMemoryStore)  # type: ignore[arg-type]


async def test_compact_now_without_any_model_says_what_to_pass() -> None:
    from compact_agent.context import CompactionError

    cm = ContextManager(window=16_000)
    history = [ModelRequest(parts=[UserPromptPart("x" * 4_000)]), ModelResponse(parts=[TextPart("y")]),
               ModelRequest(parts=[UserPromptPart("z")])]
    with pytest.raises(CompactionError, match="summary_model"):
        await cm.compact_now(history)


async def test_a_failed_compaction_is_logged_when_no_handler_watches(caplog: pytest.LogCaptureFixture) -> None:
    """A summary model without its key fails every compaction; with no event_handler the failure
    used to pass unseen while the run went on without compacting. It is a warning now (Python
    prints warnings on stderr when the program sets up no logging); a watched run logs nothing."""
    def no_key(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        raise RuntimeError("Set the OPENAI_API_KEY environment variable")

    settings = CompactionSettings(compaction_records=False, memory_enabled=False)
    for watched in (False, True):
        caplog.clear()
        cm = ContextManager(window=16_000, summary_model=FunctionModel(no_key), settings=settings)
        events: list[Any] = []
        if watched:
            cm.event_handler = events.append
        await fetch_agent(FakeProvider(40), cm)[0].run("go")
        failed = [r.getMessage() for r in caplog.records if r.levelname == "WARNING"
                  and r.name.startswith("compact_agent.context") and "failed" in r.getMessage()]
        if watched:
            assert not failed and any(e.action == "failed" for e in events)
        else:
            assert failed and failed[0].startswith("compaction failed: ") and "OPENAI_API_KEY" in failed[0], failed


async def test_layer_savings_count_each_decision_once() -> None:
    """30 oversized results each spilled once: the budget layer's savings are about 30 x what one
    spill frees, not a sum of whole-history figures over every request."""
    from compact_agent.context import CompactionSettings

    settings = CompactionSettings(tool_result_max_chars=3_000, tool_result_preview_chars=400, collapse_enabled=False,
                                  memory_enabled=False, microcompact_trigger=10_000)
    cm = ContextManager(window=400_000, settings=settings)
    agent, _ = fetch_agent(FakeProvider(30, window=400_000), cm)
    budget: list[BudgetEvent] = []
    cm.event_handler = lambda e: budget.append(e) if isinstance(e, BudgetEvent) else None
    await agent.run("go")
    assert len(budget) == 30
    one = (6_000 - 400) // 4
    assert all(0.7 * one < e.tokens_freed < 1.3 * one for e in budget), [e.tokens_freed for e in budget]
    assert 0.7 * 30 * one < cm.layer_savings["budget"] < 1.3 * 30 * one


class _Span(NonRecordingSpan):
    def __init__(self, name: str, parent: _Span | None, log: list[_Span]) -> None:
        super().__init__(INVALID_SPAN_CONTEXT)
        self.name, self.parent, self.attributes, self.status = name, parent, {}, None
        log.append(self)

    def is_recording(self) -> bool:
        return True

    def set_attribute(self, key: str, value: Any) -> None:
        self.attributes[key] = value

    def set_attributes(self, attributes: Any) -> None:
        self.attributes.update(attributes)

    def set_status(self, status: Any, description: str | None = None) -> None:
        self.status = status


class _Tracer(Tracer):
    """Records the spans it is asked for, with their parents (the opentelemetry API only, no SDK)."""

    def __init__(self, log: list[_Span]) -> None:
        self.log = log

    def start_span(self, name: str, context: Any = None, *args: Any, **kwargs: Any) -> _Span:
        parent = get_current_span(context)
        span = _Span(name, parent if isinstance(parent, _Span) else None, self.log)
        span.set_attributes(kwargs.get("attributes") or {})
        return span

    @contextmanager
    def start_as_current_span(self, name: str, context: Any = None, *args: Any, **kwargs: Any) -> Iterator[_Span]:
        span = self.start_span(name, context, *args, **kwargs)
        with use_span(span, end_on_exit=True):
            yield span


class _Provider(TracerProvider):
    def __init__(self) -> None:
        self.spans: list[_Span] = []

    def get_tracer(self, *args: Any, **kwargs: Any) -> _Tracer:
        return _Tracer(self.spans)


async def test_each_compaction_is_a_span_of_the_run_when_instrumentation_is_on() -> None:
    from pydantic_ai.capabilities.instrumentation import Instrumentation
    from pydantic_ai.models.instrumented import InstrumentationSettings

    provider = _Provider()
    cm = ContextManager(window=16_000, settings=CompactionSettings(collapse_enabled=False, microcompact_trigger=10_000))
    fake = FakeProvider(40)
    agent: Agent[None, str] = Agent(FunctionModel(fake), capabilities=[
        Instrumentation(settings=InstrumentationSettings(tracer_provider=provider)), cm])

    @agent.tool_plain
    def fetch(i: int) -> str:
        """Fetch page i."""
        return page(i)

    await agent.run("go", usage_limits=UsageLimits(request_limit=200))
    spans = [s for s in provider.spans if s.name == "context compaction"]
    assert cm.compactions and len(spans) == len(cm.compactions)
    for span, result in zip(spans, cm.compactions, strict=True):
        assert span.attributes["compact_agent.strategy"] == result.strategy
        assert span.attributes["compact_agent.tokens_after"] == result.tokens_after
        assert span.attributes["compact_agent.trigger"] == "auto"
        ancestors = []
        p = span.parent
        while p is not None:
            ancestors.append(p.name)
            p = p.parent
        assert any("agent run" in name or "invoke_agent" in name for name in ancestors), ancestors


async def test_compactable_tools_decide_whose_old_results_microcompact_clears() -> None:
    """By default every tool of the agent is compactable; `compactable_tools` narrows it."""
    from compact_agent.context import MicrocompactEvent, default_layers

    counts = {}
    for tools in (None, ["some_other_tool"]):
        # Unpriced, microcompact clears on its count trigger (priced, an early compaction may come first).
        cm = ContextManager(window=64_000, compactable_tools=tools,
                            settings=CompactionSettings(collapse_enabled=False, memory_enabled=False,
                                                        priced_compaction=False))
        agent, _ = fetch_agent(FakeProvider(30, window=64_000), cm)
        cleared: list[Event] = []
        cm.event_handler = lambda e, c=cleared: c.append(e) if isinstance(e, MicrocompactEvent) else None
        await agent.run("go", usage_limits=UsageLimits(request_limit=200))
        counts[str(tools)] = sum(len(e.ids) for e in cleared)
    assert counts["None"] > 0 and counts["['some_other_tool']"] == 0
    layers = default_layers(CompactionSettings(compactable_tools=["fetch"]))
    assert "fetch" in layers[2].compactable and "read_file" in layers[2].compactable


def test_the_compactable_tools_given_are_the_ones_kept() -> None:
    """The caller's list is copied: appended to later, it changed the tools of every conversation
    the manager built after (each is built with the options as they are)."""
    from compact_agent.context.lifecycle import options_now

    tools = ["fetch"]
    cm = ContextManager(window=64_000, compactable_tools=tools)
    tools.append("bash")
    assert options_now(cm)["compactable_tools"] == ("fetch",)


async def test_a_token_counter_measures_the_requests() -> None:
    """With the provider's own count plugged in, the calibration has nothing left to correct;
    with the default characters/4 it learns the provider's denser tokenizer from reported usage."""
    ratios = {}

    def messages_only(messages: Sequence[ModelMessage]) -> int:
        """The provider's count of the messages alone (the capability adds instructions and tools)."""
        return provider_tokens(list(messages)) - 400

    for name, counter in (("default", None), ("plugged", messages_only)):
        cm = ContextManager(window=16_000, token_counter=counter)
        agent, _ = fetch_agent(FakeProvider(8), cm)
        await agent.run("go")
        ratios[name] = cm.calibration.ratio
    # What is left with the counter is the provider's fixed 400 tokens against the capability's own
    # estimate of the instructions and the tool's schema (the counter is asked about messages).
    assert ratios["default"] > 1.1 and abs(ratios["plugged"] - 1.0) < (ratios["default"] - 1.0) / 2, ratios


async def test_a_run_ends_with_its_notes_written_unless_they_may_run_in_the_background() -> None:
    """The final answer starts a notes update; by default the run returns after it, with
    notes_in_background=True it is still running and `drain()` ends it. The notes request waits
    for a gate the test opens, so which comes first does not depend on scheduling."""
    import asyncio

    # Notes from the first request on, updated only when the model stops to answer.
    settings = CompactionSettings(memory_enabled=True, memory_start_fraction=0.0, memory_update_tool_calls=1_000,
                                  memory_update_tokens=1_000)
    for background in (True, False):
        provider, gate = FakeProvider(3, window=64_000), asyncio.Event()

        async def gated(messages: list[ModelMessage], info: AgentInfo,
                        provider: FakeProvider = provider, gate: asyncio.Event = gate) -> ModelResponse:
            if NOTES_MARK in str(messages[-1].parts[-1].content):
                await gate.wait()
            return provider(messages, info)

        cm = ContextManager(window=64_000, notes_in_background=background, settings=settings)
        agent, _ = fetch_agent(gated, cm)
        if background:
            await agent.run("go")
            assert cm.memory is not None and cm.memory.in_flight and cm.memory.notes is None
            gate.set()
            await cm.drain()
        else:
            order: list[str] = []

            async def open_gate_once_the_notes_wait(gate: asyncio.Event = gate, cm: ContextManager = cm,
                                                    order: list[str] = order) -> None:
                while not (cm.memory is not None and cm.memory.in_flight):
                    await asyncio.sleep(0)
                for _ in range(100):  # every chance for the run to return early, if it did not wait
                    await asyncio.sleep(0)
                order.append("gate opened")
                gate.set()

            opener = asyncio.ensure_future(open_gate_once_the_notes_wait())
            await agent.run("go")
            order.append("run returned")
            await opener
            assert order == ["gate opened", "run returned"]
        assert cm.memory is None or not cm.memory.in_flight  # notes are off by default (they cost more than they save)
        assert cm.memory.notes and "fetched pages up to 3" in cm.memory.notes


def test_events_are_typed_in_place() -> None:
    """A sink gets the very event a CompactionResult holds (time stamp included), as its kind's class."""
    from compact_agent.context.plumbing.events import typed

    ev = Event("compact", "full", 100, 40, detail={"archive": None})
    seen: list[Event] = []
    cm = ContextManager(window=16_000, event_handler=seen.append)
    cm.emit(ev)
    assert seen == [ev] and seen[0] is ev and isinstance(ev, CompactionEvent) and ev.time
    assert (ev.strategy, ev.tokens_freed, ev.archive) == ("full", 60, None)
    assert type(typed(Event("hook", "failed", detail={"error": "x"}))) is Event


async def test_notes_turned_on_are_written_when_the_schedule_compacts_before_the_threshold() -> None:
    """`memory_enabled=True` alone wrote no notes in a 60-step run at 32K: they waited for 75% of the
    threshold, and the priced schedule compacted well before it. They now start at that share of
    where the next compaction is expected, and the compactions use them."""
    from compact_agent.context.testing import library_request, reply_to_library_request

    kinds: list[str] = []
    steps = {"n": 0}

    def model(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        usage = RequestUsage(input_tokens=provider_tokens(messages), output_tokens=20)
        if (kind := library_request(messages)) is not None:
            kinds.append(kind)
            reply = reply_to_library_request(messages, "facts", usage=usage)
            assert reply is not None
            return reply
        if steps["n"] < 60:
            steps["n"] += 1
            return ModelResponse(parts=[ToolCallPart("read_log", {"page": steps["n"]})], usage=usage)
        return ModelResponse(parts=[TextPart("done")], usage=usage)

    cm = ContextManager(window=32_000, settings=CompactionSettings(memory_enabled=True))
    agent = Agent(FunctionModel(model), capabilities=[cm])

    @agent.tool_plain
    def read_log(page: int) -> str:
        return f"page {page}: " + " ".join(f"event-{page}-{i} ok" for i in range(300))

    await agent.run("go", usage_limits=UsageLimits(request_limit=300))
    assert kinds.count("notes") >= 2, kinds
    assert any(c.strategy == "session_memory" for c in cm.compactions), [c.strategy for c in cm.compactions]


async def test_compact_now_takes_a_plain_function_as_confirm() -> None:
    """`confirm=lambda result: True` failed with "object bool can't be used in 'await' expression"
    after the archive was written; a plain function's answer is taken as is, as before_compact's."""
    from compact_agent.context import CompactionBlocked

    cm = ContextManager(window=16_000, summary_model=FunctionModel(FakeProvider(0)))
    agent, _ = fetch_agent(FakeProvider(6), cm)
    history = (await agent.run("go", usage_limits=UsageLimits(request_limit=50))).all_messages()
    with pytest.raises(CompactionBlocked):
        await cm.compact_now(history, confirm=lambda result: False)
    assert cm.store.messages == history  # type: ignore[attr-defined]
    new = await cm.compact_now(history, confirm=lambda result: bool(result.summary))
    assert new and len(new) < len(history) and cm.store.messages == new  # type: ignore[attr-defined]
