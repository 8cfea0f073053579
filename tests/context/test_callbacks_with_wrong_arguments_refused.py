"""A `before_compact`, `event_handler` or `token_counter` that cannot take the arguments the library
calls it with is refused where the manager is made, in one line, as an async one is. A
`before_compact=lambda trigger: None` was accepted, and then every compaction reported a `hook` /
`failed` event ("<lambda>() takes 1 positional argument but 2 were given"). Whatever can take them
is still accepted: `*args`, defaults, a partial, a bound method, an object's `__call__`, an async
function, a builtin whose signature cannot be read, a decorator's wrapper that takes the arguments
and passes them to a function that takes them, a class whose metaclass makes calling it a call. A
decorator passing its arguments on to a function that cannot take them is refused by what it wraps."""

from __future__ import annotations

import functools
from collections.abc import Sequence
from typing import Any

import pytest
from pydantic_ai import Agent
from pydantic_ai.messages import ModelMessage, ModelResponse, TextPart, ToolCallPart
from pydantic_ai.models.function import AgentInfo, FunctionModel
from pydantic_ai.usage import UsageLimits

from compact_agent.context import ContextManager, Event
from compact_agent.context.testing import reply_to_library_request


class Hook:
    def __init__(self) -> None:
        self.calls: list[tuple[str, str]] = []

    def __call__(self, trigger: str, instructions: str) -> None:
        self.calls.append((trigger, instructions))

    def method(self, trigger: str, instructions: str) -> None:
        self.calls.append((trigger, instructions))


class OneArgument:
    def __call__(self, trigger: str) -> None:
        return None


def _with_options(trigger: str, instructions: str, extra: str = "") -> None:
    return None


async def _async_hook(trigger: str, instructions: str) -> str | None:
    return None


def _three(a: object, b: object, c: object) -> None:
    return None


def _two(a: object, b: object) -> int:
    return 1


def _for_model(fn: Any) -> Any:
    """A decorator as they are written: its wrapper takes whatever it is given, and gives the
    function it wraps one argument more."""
    @functools.wraps(fn)
    def wrapper(*args: Any) -> Any:
        return fn(*args, "deepseek-chat")
    return wrapper


def _logged(fn: Any) -> Any:
    """A decorator passing its arguments on, as most are (logging, timing, retrying)."""
    @functools.wraps(fn)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        return fn(*args, **kwargs)
    return wrapper


PASSED_ON = ("(what its decorator wraps and passes the arguments on to; if the decorator gives it others, "
             "pass a lambda that calls it)")
counted: list[str] = []


@_for_model
def _count_for(messages: Sequence[ModelMessage], model: str) -> int:
    counted.append(model)
    return 10 * len(messages)


class Counting(type):
    """A metaclass whose `__call__` counts: calling its classes makes no object."""

    def __call__(cls, messages: Sequence[ModelMessage]) -> int:
        return 1


class Tokenizer(metaclass=Counting):
    """Called as a counter: `Tokenizer(messages)` counts, through its metaclass."""


class Pairing(type):
    def __call__(cls, a: object, b: object) -> int:
        return 1


class PairTokenizer(metaclass=Pairing):
    """Called with two arguments where a counter gets one, through its metaclass."""


@pytest.mark.parametrize(("options", "said"), [
    ({"before_compact": lambda trigger: None},
     "before_compact is called with two arguments, (trigger, instructions), but this one takes (trigger)"),
    ({"before_compact": OneArgument()},
     "before_compact is called with two arguments, (trigger, instructions), but this one takes (trigger)"),
    ({"before_compact": lambda trigger, instructions, *, strict: None},
     "before_compact is called with two arguments, (trigger, instructions), but this one takes "
     "(trigger, instructions, *, strict)"),
    ({"before_compact": functools.partial(_three, 1, 2)},
     "before_compact is called with two arguments, (trigger, instructions), but this one takes (c)"),
    ({"event_handler": lambda event, kind: None},
     "event_handler is called with one argument, (event), but this one takes (event, kind)"),
    ({"token_counter": lambda: 0}, "token_counter is called with one argument, (messages), but this one takes ()"),
    ({"token_counter": functools.cache(_two)},  # a wrapper of C, read by what it passes its arguments to
     "token_counter is called with one argument, (messages), but this one takes (a, b)"),
    ({"token_counter": PairTokenizer},
     "token_counter is called with one argument, (messages), but this one takes (a, b)"),
    # a decorator passing its arguments on (logging, timing): what it wraps gets them, and fails
    ({"event_handler": _logged(lambda: None)},
     "event_handler is called with one argument, (event), but this one takes () " + PASSED_ON),
    ({"before_compact": _logged(lambda trigger: None)},
     "before_compact is called with two arguments, (trigger, instructions), but this one takes (trigger) "
     + PASSED_ON),
    ({"token_counter": _count_for},
     "token_counter is called with one argument, (messages), but this one takes (messages, model) " + PASSED_ON),
])
def test_a_callback_that_cannot_take_its_arguments_is_refused_where_the_manager_is_made(
        options: dict[str, Any], said: str) -> None:
    with pytest.raises(TypeError) as caught:
        ContextManager(window=8_000, **options)
    assert str(caught.value) == said


def _count(messages: Sequence[ModelMessage], *rest: object) -> int:
    return 1


@pytest.mark.parametrize("options", [
    {"before_compact": lambda *args: None},
    {"before_compact": _with_options},
    {"before_compact": _async_hook},
    {"before_compact": functools.partial(_three, 1)},
    {"before_compact": Hook()},
    {"before_compact": Hook().method},
    {"event_handler": print},  # a builtin: no signature to read, taken on trust
    {"event_handler": [].append},
    {"token_counter": len},
    {"token_counter": _count},
    {"token_counter": _for_model(len)},
    {"before_compact": functools.partial(_for_model(_three), 1)},
    {"token_counter": functools.cache(len)},
    {"token_counter": Tokenizer},  # calling it counts: its metaclass's __call__
])
def test_whatever_can_take_its_arguments_is_accepted(options: dict[str, Any]) -> None:
    ContextManager(window=8_000, **options)


def test_a_bound_method_is_called_at_each_compaction_and_reports_no_failure() -> None:
    steps = {"n": 0}

    def model(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        if (reply := reply_to_library_request(messages)) is not None:
            return reply
        steps["n"] += 1
        return ModelResponse(parts=[ToolCallPart("read", {"i": steps["n"]})] if steps["n"] < 20 else [TextPart("done")])

    hook, events = Hook(), list[Event]()
    cm = ContextManager(window=4_000, before_compact=hook.method, event_handler=events.append)
    agent = Agent(FunctionModel(model), capabilities=[cm])

    @agent.tool_plain
    def read(i: int) -> str:
        return "data " * 300

    agent.run_sync("go", usage_limits=UsageLimits(request_limit=50))
    assert cm.compactions and len(hook.calls) >= len(cm.compactions)
    assert not [e for e in events if e.layer == "hook"]



def test_a_decorated_counter_whose_wrapper_gives_it_more_counts_each_request_given_as_a_lambda() -> None:
    # The decorator's wrapper takes *args and gives (messages, model): it reads as one passing its
    # arguments on to a function of two, and the refusal says to pass a lambda, which is read by its own.
    cm = ContextManager(window=8_000, token_counter=lambda messages: _count_for(messages))
    counted.clear()
    Agent(FunctionModel(lambda messages, info: ModelResponse(parts=[TextPart("ok")])), capabilities=[cm]).run_sync("hi")
    assert counted and set(counted) == {"deepseek-chat"}
