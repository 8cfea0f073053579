"""The library's public API refuses what it cannot honour where it is given, in one line that says
what to do: settings changed after they were checked, contradictory thresholds, a window of the
wrong type, a store that cannot say what it holds. And what it
imports is pydantic-ai and the standard library only."""

from __future__ import annotations

import ast
import dataclasses
import sys
from pathlib import Path
from typing import Any

import pytest
from pydantic_ai import Agent
from pydantic_ai.exceptions import UserError
from pydantic_ai.messages import (
    ModelMessage,
    ModelMessagesTypeAdapter,
    ModelResponse,
    TextPart,
    ToolCallPart,
)
from pydantic_ai.models.function import AgentInfo, FunctionModel
from pydantic_ai.usage import RequestUsage

import compact_agent.context as lib
from compact_agent.context import CompactionSettings, ContextManager, Limits, WindowTooSmallError
from compact_agent.context.plumbing.tracing import NO_TRACER, NoSpan, failed

# -- 1. settings are checked once, so they cannot change afterwards ----------------------------------


def test_settings_cannot_be_changed_after_they_were_checked_and_replace_checks_again() -> None:
    """A field set after construction skipped `__post_init__`: a string or 2.0 reached the layers."""
    s = CompactionSettings()
    with pytest.raises(dataclasses.FrozenInstanceError):
        s.collapse_commit_fraction = 2.0  # type: ignore[misc]
    with pytest.raises(ValueError, match=r"^CompactionSettings\.collapse_commit_fraction must be from 0 to 1, not 2\.0$"):
        dataclasses.replace(s, collapse_commit_fraction=2.0)
    with pytest.raises(TypeError, match=r"^CompactionSettings\.microcompact_keep_recent must be a whole number"):
        dataclasses.replace(s, microcompact_keep_recent="5")
    other = dataclasses.replace(s, microcompact_keep_recent=2)
    default = CompactionSettings().microcompact_keep_recent
    assert other.microcompact_keep_recent == 2 and s.microcompact_keep_recent == default
    assert dataclasses.replace(other, microcompact_keep_recent=default) == s


# -- 2. thresholds that contradict each other ---------------------------------------------------------


@pytest.mark.parametrize(("values", "below", "above"), [
    ({"collapse_commit_fraction": 0.97}, "collapse_commit_fraction", "collapse_blocking_fraction"),
    ({"collapse_commit_fraction": 0.6, "collapse_blocking_fraction": 0.5}, "collapse_commit_fraction",
     "collapse_blocking_fraction"),
    ({"collapse_target_fraction": 0.95}, "collapse_target_fraction", "collapse_commit_fraction"),
    ({"memory_min_tokens": 50_000}, "memory_min_tokens", "memory_max_tokens"),
])
def test_contradictory_thresholds_are_refused_in_one_line_naming_both(values: dict[str, Any], below: str,
                                                                     above: str) -> None:
    with pytest.raises(ValueError) as caught:
        CompactionSettings(**values)
    message = str(caught.value)
    assert message.startswith(f"CompactionSettings.{below} (") and f" must be at most {above} (" in message
    assert "\n" not in message and message.endswith("lower the first or raise the second")


@pytest.mark.parametrize("values", [
    {"collapse_commit_fraction": 0.95},  # equal is no contradiction
    {"collapse_target_fraction": 0.9},
    {"memory_min_tokens": 40_000},
    {"collapse_commit_fraction": 0.5, "collapse_blocking_fraction": 0.0},  # blocking off: any commit point
    {"collapse_commit_fraction": 0.0, "collapse_blocking_fraction": 0.0},  # collapse off by its fractions
    {"collapse_commit_fraction": 0.0, "collapse_target_fraction": 0.5},
])
def test_orderings_that_hold_or_do_not_apply_are_accepted(values: dict[str, Any]) -> None:
    CompactionSettings(**values)


# -- 3. a window of the wrong type -----------------------------------------------------------------


@pytest.mark.parametrize(("window", "shown"), [("64000", "str '64000'"), (1.5, "float 1.5"), (True, "bool True")])
def test_a_window_of_the_wrong_type_is_a_type_error_naming_the_argument(window: object, shown: str) -> None:
    """`window="64000"` (read from a config or the environment) raised a ValueError, as 0 does."""
    with pytest.raises(TypeError) as caught:
        ContextManager(window=window)  # type: ignore[arg-type]
    message = str(caught.value)
    assert message.startswith("window must be a whole number of tokens") and message.endswith(f"not {shown}")
    assert "\n" not in message
    with pytest.raises(TypeError, match=r"^a context window must be a whole number of tokens, not str '64000'$"):
        Limits.for_window("64000", 8_192)  # type: ignore[arg-type]


# -- 5. a window too small: what does not fit --------------------------------------------------------


def _size(messages: list[ModelMessage]) -> int:
    return len(ModelMessagesTypeAdapter.dump_json(messages)) // 4


def _three_reads(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
    usage = RequestUsage(input_tokens=_size(messages), output_tokens=10)
    if len(messages) < 3:
        return ModelResponse(parts=[ToolCallPart("read", {"n": i}, tool_call_id=f"c{i}") for i in range(3)],
                             usage=usage)
    return ModelResponse(parts=[TextPart("done")], usage=usage)


def _reading_agent(cm: ContextManager, instructions: str | None = None) -> Agent[None, str]:
    agent: Agent[None, str] = Agent(FunctionModel(_three_reads), capabilities=[cm], instructions=instructions)

    @agent.tool_plain
    def read(n: int) -> str:
        """Read part n."""
        return f"part {n}: " + "data " * 8_000

    return agent


async def test_a_500_token_window_names_the_tool_result_previews_not_the_instructions() -> None:
    """It said "(40 of them instructions and tool definitions) ... send shorter instructions or
    fewer tools" when what did not fit were the three results' previews, of a fixed size."""
    with pytest.raises(WindowTooSmallError) as caught:
        await _reading_agent(ContextManager(window=500)).run("go")
    message = str(caught.value)
    assert "\n" not in message
    assert message.startswith("this request needs ") and "the context window is 500 (" in message
    shares = message.split(" (", 1)[1].split("): ")[0]
    assert shares.split(", ")[0].endswith("for 3 tool results cut to previews of a fixed size"), shares
    assert "for the instructions and tool definitions" in shares  # named, as the smallest share
    assert message.endswith("pass a larger window= to ContextManager, or a smaller "
                            "CompactionSettings(tool_result_preview_chars=...)")
    # What it says works: shorter previews fit the same window.
    small = CompactionSettings(tool_result_preview_chars=100)
    result = await _reading_agent(ContextManager(window=800, settings=small)).run("go")
    assert result.output == "done"


async def test_instructions_larger_than_the_window_are_named_alone() -> None:
    with pytest.raises(WindowTooSmallError) as caught:
        await _reading_agent(ContextManager(window=500), instructions="Follow the house rules. " * 200).run("go")
    assert str(caught.value).startswith("this request needs ")
    assert "tokens for its instructions and tool definitions alone, but the context window is 500: " \
           "send shorter instructions or fewer tools" in str(caught.value)


# -- 6. a store that cannot say what it holds ---------------------------------------------------------


class ListStore:
    """A store without `load_messages()`: append, archive, rewrite only."""

    def __init__(self) -> None:
        self.messages: list[ModelMessage] = []

    def append(self, messages: Any) -> None:
        self.messages.extend(messages)

    def archive(self) -> None:
        return None

    def rewrite(self, boundary: dict[str, Any], messages: Any) -> None:
        self.messages = list(messages)


def _answer(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
    return ModelResponse(parts=[TextPart("ok")], usage=RequestUsage(input_tokens=_size(messages), output_tokens=2))


async def test_a_store_without_load_messages_is_not_appended_the_history_twice() -> None:
    """A new manager on a store that held the conversation appended all of it again (4 messages
    became 6); it now asks to be told, in one line, before anything is written or sent."""
    store = ListStore()
    first = await Agent(FunctionModel(_answer), capabilities=[ContextManager(window=16_000, store=store)]).run("hi")
    history = first.all_messages()
    assert store.messages == history and len(history) == 2

    # After a restart: a new manager, the same store, the history passed back in.
    cm = ContextManager(window=16_000, store=store)
    agent = Agent(FunctionModel(_answer), capabilities=[cm])
    with pytest.raises(UserError) as caught:
        await agent.run("again", message_history=history)
    message = str(caught.value)
    assert "\n" not in message and "ListStore" in message and "resume(history)" in message
    assert store.messages == history  # nothing written twice
    cm.resume(history)  # what the store holds
    second = await agent.run("again", message_history=history)
    assert store.messages == second.all_messages() and len(store.messages) == 4

    # A new store for a conversation under way: resume([]) says it holds none of it.
    fresh = ListStore()
    cm = ContextManager(window=16_000, store=fresh)
    cm.resume([])
    third = await Agent(FunctionModel(_answer), capabilities=[cm]).run("more", message_history=history)
    assert fresh.messages == third.all_messages() and len(fresh.messages) == 4


async def test_compact_now_on_a_store_that_cannot_say_what_it_holds_asks_for_resume() -> None:
    store = ListStore()
    first = await Agent(FunctionModel(_answer), capabilities=[ContextManager(window=16_000, store=store)]).run("hi")
    with pytest.raises(UserError, match=r"resume\(history\)"):
        await ContextManager(window=16_000, store=store).compact_now(first.all_messages(), model="test")
    assert store.messages == first.all_messages()


async def test_a_new_conversation_on_a_store_without_load_messages_needs_nothing() -> None:
    store = ListStore()
    cm = ContextManager(window=16_000, store=store)
    agent = Agent(FunctionModel(_answer), capabilities=[cm])
    first = await agent.run("hi")
    second = await agent.run("again", message_history=first.all_messages())  # the same manager knows
    assert store.messages == second.all_messages() and len(store.messages) == 4


# -- 7. pydantic-ai and the standard library only -----------------------------------------------------


def test_the_library_imports_only_pydantic_ai_and_the_standard_library() -> None:
    """state.py and pipeline.py imported `opentelemetry.trace` at the top: the spans now go to
    the tracer pydantic-ai's run context carries, and a failed span's status imports it where used."""
    root = Path(lib.__file__).parent
    found = []
    for path in sorted(root.rglob("*.py")):
        tree = ast.parse(path.read_text(), str(path))
        for node in tree.body:  # module level: what importing the module imports
            if isinstance(node, ast.If):  # `if TYPE_CHECKING:` is for type checkers only
                continue
            names = ([a.name for a in node.names] if isinstance(node, ast.Import)
                     else [node.module or ""] if isinstance(node, ast.ImportFrom) and not node.level else [])
            found += [f"{path.relative_to(root)}: {n}" for n in names
                      if n.split(".")[0] not in sys.stdlib_module_names and n.split(".")[0] != "pydantic_ai"]
    assert found == []


class _Recorded:
    def __init__(self) -> None:
        self.exceptions: list[BaseException] = []
        self.status: Any = None

    def record_exception(self, exception: BaseException) -> None:
        self.exceptions.append(exception)

    def set_status(self, status: Any, description: str | None = None) -> None:
        self.status = status


def test_a_failed_span_records_the_exception_and_an_error_status() -> None:
    from opentelemetry.trace import StatusCode

    span, error = _Recorded(), ValueError("the summary failed\nsecond line")
    failed(span, error)  # type: ignore[arg-type]
    assert span.exceptions == [error]
    assert span.status.status_code == StatusCode.ERROR and span.status.description == "the summary failed"
    with NO_TRACER.start_as_current_span("context compaction", attributes={"a": 1}) as quiet:
        assert isinstance(quiet, NoSpan)
        failed(quiet, error)  # records nothing, needs nothing
