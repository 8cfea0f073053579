"""What `ContextManager`'s arguments must be, checked where the manager is made, and what a
caller's `token_counter` must answer, checked where it is asked: a wrong one is named in one line
there, instead of failing each request later with an error about something else (a KeyError on
the third conversation, "'str' object is not callable" at a request, compactions failing silently).
"""

from __future__ import annotations

import dataclasses
import inspect
from collections.abc import Sequence
from collections.abc import Set as AbstractSet

from pydantic_ai.messages import ModelMessage, ModelRequest, ModelResponse
from pydantic_ai.models import Model, parse_model_id
from pydantic_ai.providers import infer_provider_class
from pydantic_ai.tools import RunContext
from pydantic_ai.usage import RunUsage, UsageLimits

from .compaction.result import CompactionError
from .compaction.summary_prompt import SummaryWording
from .decisions.economics import Prices
from .plumbing import tokens
from .plumbing.settings import OPTIONAL_FIELDS, kind, said, said_with_type
from .plumbing.settings import CompactionSettings as Settings


def counted(n: object, message: ModelMessage) -> int:
    """What `token_counter` said of `message`, if it is a count: a size the pipeline cannot trust
    would let a request over the window (a counter that says 0) or fail in arithmetic later. Any
    tokenizer counts text as a token at least, so 0 is a count only of a message with nothing in it
    (it was taken for any message of up to 8 estimated tokens: a counter that said 0 for everything
    went unnoticed while the messages were short)."""
    if isinstance(n, bool) or not isinstance(n, int) or n < 0 or (n == 0 and has_content(message)):
        raise ValueError(f"token_counter returned {said(n)} for a message of about {tokens.message_tokens(message):,} "
                         "tokens; it must return the message's token count (a whole number)")
    return n


def has_content(message: ModelMessage) -> bool:
    """Whether `message` sends anything: text (thinking too, which the counter counts and the
    pipeline leaves out where the provider does), a tool call or its result, an image or a file.
    Only an empty message, or one of blank text, may count 0."""
    return any(getattr(part, "tool_name", None) or _content_in(getattr(part, "content", None))
               for part in message.parts)


def _content_in(content: object) -> bool:
    if isinstance(content, str):
        return bool(content.strip())
    if isinstance(content, list | tuple):
        return any(_content_in(item) for item in content)
    return content is not None  # a tool's result sent as JSON, an image, a file


def check_model_name(name: str, label: str = "summary_model") -> None:
    """A model name pydantic-ai cannot resolve (`nope:model`, `gpt-4o` without its provider) is
    named here rather than failing every compaction later. Only the name's form and its provider
    are checked, as pydantic-ai's own `infer_model` does first: no provider is made, no environment
    read (a missing key still shows at the first summary)."""
    if name == "test":
        return
    provider, model = parse_model_id(name)
    known = provider is not None and bool(model.strip())
    if known and provider is not None:
        try:
            infer_provider_class(provider)
        except ValueError:
            known = False
        except ImportError as e:  # a known provider whose package is missing: every summary would fail
            raise ValueError(f"{label} {name!r} cannot be used here: {e}") from None
    if not known:
        raise ValueError(f"{label} {name!r} is not a model name pydantic-ai knows: write it as "
                         "'provider:model' (e.g. 'openai:gpt-4.1-mini'), or pass a Model")


def check_model_class(model: object, label: str) -> None:
    """A Model class where an instance belongs (`summary_model=FunctionModel`), named as such."""
    if isinstance(model, type) and issubclass(model, Model):
        raise TypeError(f"{label} must be a pydantic-ai Model instance ({model.__name__}(...)) or a model name, "
                        f"not the class {model.__name__}")


#: The largest `window`, in tokens: no model has more (the terminal agent's `--window` and setting
#: are bounded alike, cli_numbers.MAX_WINDOW). A larger one (10**12, a unit slipped) was taken: it never
#: compacted, and the provider refused the request that outgrew the real window.
MAX_WINDOW = 10_000_000


def check_window(window: object) -> None:
    """`window`: a whole number of tokens or None. A string ("64000", read from a config or the
    environment) is the caller's to convert: it is named here as the wrong type, not as a value."""
    if window is None:
        return
    if isinstance(window, RunContext):  # pydantic-ai calls a class listed in capabilities= with the run's context
        raise TypeError("ContextManager was given as a class (capabilities=[ContextManager]): pass an instance, "
                        "capabilities=[ContextManager(...)]")
    if isinstance(window, bool) or not isinstance(window, int):
        raise TypeError(f"window must be a whole number of tokens (window=64_000) or None for the model's own, "
                        f"not {said_with_type(window)}")
    if window < 1:
        raise ValueError(f"window must be a whole number of tokens, at least 1, not {window!r}")
    if window > MAX_WINDOW:
        raise ValueError(f"window must be a whole number of tokens, at most {MAX_WINDOW:,} (no model has more), "
                         f"not {window:,}")


def check_options(*, window: object, max_output: object, settings: object, summary_model: object, token_counter: object,
                  store: object, compactable_tools: object, event_handler: object, notes_in_background: object,
                  max_conversations: object, prices: object, before_compact: object) -> None:
    """`ContextManager`'s arguments, checked when it is made: a wrong one is named there, in one
    line, instead of failing each request later with an error about something else."""
    def whole(name: str, value: object, least: int) -> None:
        if isinstance(value, bool) or not isinstance(value, int):  # "8192" or 1.5: the caller's to convert
            raise TypeError(f"{name} must be a whole number, at least {least}, not {said_with_type(value)}")
        if value < least:
            raise ValueError(f"{name} must be a whole number, at least {least}, not {value!r}")

    def of_type(name: str, value: object, types: type | tuple[type, ...], what: str) -> None:
        if value is not None and not isinstance(value, types):
            raise TypeError(f"{name} must be {what}, not {kind(value)}")

    check_window(window)
    whole("max_output", max_output, 1)
    whole("max_conversations", max_conversations, 1)
    for name, value, wanted in (("settings", settings, "CompactionSettings"), ("prices", prices, "Prices")):
        if isinstance(value, type):  # the parentheses forgotten: a class has every field's name
            raise TypeError(f"{name} must be a {wanted} instance ({wanted}()), not the class {value.__name__}")
    if settings is not None and not isinstance(settings, Settings):  # an object with its fields will do
        lacking = [f.name for f in dataclasses.fields(Settings)
                   if not hasattr(settings, f.name) and f.name not in OPTIONAL_FIELDS]
        if lacking:
            raise TypeError(f"settings must be a CompactionSettings, not {type(settings).__name__} "
                            f"(it has no {lacking[0]})")
    of_type("prices", prices, Prices, "a Prices")
    check_model_class(summary_model, "summary_model")
    of_type("summary_model", summary_model, (Model, str), "a pydantic-ai Model or a model name")
    if isinstance(summary_model, str):
        check_model_name(summary_model)
    of_type("notes_in_background", notes_in_background, bool, "True or False")
    for name, fn, shape in (("token_counter", token_counter, "of (messages) returning their token count"),
                            ("event_handler", event_handler, "of (event)"),
                            ("before_compact", before_compact, "of (trigger, instructions)")):
        if fn is not None and not callable(fn):
            raise TypeError(f"{name} must be a function, not {kind(fn)}")
        if isinstance(fn, type) and not called_by_its_metaclass(fn):
            # Called, a class makes an object: a counter's count, a handler's nothing.
            # Its instance is what is wanted only when it can be called (`__call__`): int() is no counter.
            wanted = f"or an instance ({fn.__name__}())" if calls(fn) else shape
            raise TypeError(f"{name} must be a function {wanted}, not the class {fn.__name__}")
    for name, fn, args in (("token_counter", token_counter, ("messages",)), ("event_handler", event_handler, ("event",)),
                           ("before_compact", before_compact, ("trigger", "instructions"))):
        # Called with the wrong number, it failed only later: every compaction a hook/failed event,
        # every event a handler error, every request a TypeError.
        if (shown := wrong_arguments(fn, len(args))) is not None:
            raise TypeError(f"{name} is called with {('one', 'two')[len(args) - 1]} argument{'s' * (len(args) - 1)}, "
                            f"({', '.join(args)}), but this one takes {shown}")
    if event_handler is not None and is_async(event_handler):
        # It is called as each event happens, inside the layers, and never awaited: an async one
        # made a coroutine per event that nothing ran, and every event was lost.
        raise TypeError("event_handler must be a plain function (it is called as each event happens, "
                        "never awaited), not an async one: append the event to a list or an asyncio.Queue")
    if token_counter is not None and is_async(token_counter):  # a coroutine is no count: every request failed
        raise TypeError("token_counter must be a plain function (it is asked about each message as a request "
                        "is measured, never awaited), not an async one")
    check_tool_names("compactable_tools", compactable_tools)
    if isinstance(store, type):
        raise TypeError(f"store must be a HistoryStore instance ({store.__name__}()), not the class {store.__name__}")
    missing = [m for m in ("append", "archive", "rewrite") if store is not None and not callable(getattr(store, m, None))]
    if missing:
        raise TypeError(f"store must be a HistoryStore (append, archive, rewrite); {type(store).__name__} has no "
                        f"{', '.join(missing)}")
    # An async method made a coroutine per call that nothing ran: nothing was saved, and the run
    # ended as if it had been.
    awaited = next((m for m in ("append", "archive", "rewrite", "load_messages")
                    if store is not None and is_async(getattr(store, m, None))), None)
    if awaited is not None:
        raise TypeError(f"store methods must be plain functions (the pipeline calls them as the history changes, "
                        f"never awaits them), but {type(store).__name__}.{awaited} is async: keep the history in an "
                        "InMemoryStore and save result.all_messages() to your async store after each run")
    # Called with other arguments than it takes, a method failed only when called: every compaction (a
    # rewrite without its boundary) until the breaker paused them, or the first run, as the store's fault.
    shapes: tuple[tuple[str, tuple[str, ...]], ...] = (
        ("append", ("messages",)), ("archive", ()), ("rewrite", ("boundary", "messages")), ("load_messages", ()),
        ("side_dir", ("name",)))
    for method, given in shapes:
        if store is not None and (shown := wrong_arguments(getattr(store, method, None), len(given))) is not None:
            raise TypeError(f"store.{method} is called with {('no arguments', 'one argument', 'two arguments')[len(given)]}"
                            f", ({', '.join(given)}), but {type(store).__name__}.{method} takes {shown}")


def wrong_arguments(fn: object, n: int) -> str | None:
    """The parameters `fn` takes, shown, when it cannot be called with `n` positional arguments;
    None when it can (a `*args`, defaults, a bound method, a partial, an object's `__call__`), or
    when no signature can be read (a builtin of C): it is given the benefit of the doubt.

    A `functools.wraps` wrapper is read by its own signature, and, when that is only `*args` and
    `**kwargs` (a decorator passing its arguments on: logging, timing, retrying), by what it wraps
    too, which gets the arguments in the end: a handler taking none, wrapped so, failed at every
    call. A wrapper of that shape that gives the function other arguments reads as wrong: the line
    says so, and a `lambda` around it is read by its own parameters. A wrapper of C with no
    signature of its own (`functools.cache`) is read by what it wraps."""
    if fn is None or not callable(fn):
        return None
    try:
        signature = inspect.signature(fn, follow_wrapped=False)
    except (TypeError, ValueError):
        return _refused(fn, n)
    if (shown := _shown_if_refused(signature, n)) is not None:
        return shown
    passes_on = all(p.kind in (p.VAR_POSITIONAL, p.VAR_KEYWORD) for p in signature.parameters.values())
    if passes_on and hasattr(fn, "__wrapped__") and (inner := _refused(fn, n)) is not None:
        return (f"{inner} (what its decorator wraps and passes the arguments on to; if the decorator gives "
                "it others, pass a lambda that calls it)")
    return None


def _refused(fn: object, n: int) -> str | None:
    """`_shown_if_refused` of `fn`'s signature read through what it wraps; None if it cannot be read."""
    try:
        return _shown_if_refused(inspect.signature(fn), n)  # type: ignore[arg-type]
    except (TypeError, ValueError):
        return None


def _shown_if_refused(signature: inspect.Signature, n: int) -> str | None:
    try:
        signature.bind(*range(n))
    except TypeError:  # shown by its parameters' names, without annotations ("(trigger)")
        bare = [p.replace(annotation=inspect.Parameter.empty) for p in signature.parameters.values()]
        return str(signature.replace(parameters=bare, return_annotation=inspect.Signature.empty))
    return None


def called_by_its_metaclass(cls: type) -> bool:
    """Whether calling `cls` runs its metaclass's own `__call__`, which may make no object at all."""
    return any("__call__" in vars(k) for k in inspect.getmro(type(cls)) if k not in (type, object))


def calls(cls: type) -> bool:
    """Whether the instances of `cls` can be called: a class of its own with `__call__`."""
    return any("__call__" in vars(k) for k in cls.__mro__ if k is not object)


def is_async(fn: object) -> bool:
    """An `async def` function, or an object whose `__call__` is one."""
    return inspect.iscoroutinefunction(fn) or inspect.iscoroutinefunction(type(fn).__call__)


def check_tool_names(name: str, value: object) -> None:
    """A list (or tuple or set) of tool names, said without a Python repr when it is not one."""
    if value is None:
        return
    if isinstance(value, str | bytes):
        raise TypeError(f"{name} must be a list of tool names, not {said(value)}")
    if not isinstance(value, Sequence | AbstractSet):
        raise TypeError(f"{name} must be a list of tool names, not {kind(value)}")
    for i, tool in enumerate(value):
        if not isinstance(tool, str):
            raise TypeError(f"{name} must be a list of tool names, but item {i + 1} is {kind(tool)}, "
                            "not a name")


def check_wording(wording: object, wired: bool) -> None:
    """`summary_wording`: a `SummaryWording` or None, for the compactor the manager makes (`wired`: a
    compactor given through the wiring seam, whose own wording it would not reach)."""
    if wording is not None and not isinstance(wording, SummaryWording):
        raise TypeError(f"summary_wording must be a SummaryWording (from compact_agent.context), not {said(wording)}")
    if wording is not None and wired:
        raise ValueError("summary_wording is for the compactor the manager makes; a compactor wired in takes its "
                         "own (Compactor(wording=...))")


def check_history(messages: object, where: str) -> None:
    """A history argument: a list of pydantic-ai messages, not a run's result or a string."""
    if isinstance(messages, str | bytes) or not isinstance(messages, Sequence):
        hint = " (result.all_messages())" if hasattr(messages, "all_messages") else ""
        raise TypeError(f"{where} takes the history as a list of messages{hint}, not {kind(messages)}")
    for i, m in enumerate(messages):
        if not isinstance(m, ModelRequest | ModelResponse):
            raise TypeError(f"{where}: message {i} is not a ModelRequest or ModelResponse ({kind(m)})")


def check_compact_now(messages: object, instructions: object, model: object, confirm: object,
                      usage: object = None, usage_limits: object = None) -> None:
    """`compact_now`'s arguments, named in one line when wrong (a run's result instead of its
    messages failed with "'AgentRunResult' object is not iterable", a bad model name with a
    provider's error after the archive was written). An empty history: `CompactionError`, nothing to compact."""
    check_history(messages, "compact_now")
    if not messages:  # said before a model is looked for: "no model to write the summary" sent one looking for it
        raise CompactionError("nothing to compact")
    if not isinstance(instructions, str):
        raise TypeError(f"compact_now: instructions must be a str, not {kind(instructions)}")
    check_model_class(model, "compact_now: model")
    if model is not None and not isinstance(model, Model | str):
        raise TypeError(f"compact_now: model must be a pydantic-ai Model or a model name, not {kind(model)}")
    if isinstance(model, str):
        check_model_name(model, "compact_now: model")
    if confirm is not None and not callable(confirm):
        raise TypeError(f"compact_now: confirm must be a function, not {kind(confirm)}")
    if usage is not None and not isinstance(usage, RunUsage):
        raise TypeError(f"compact_now: usage must be a pydantic-ai RunUsage (what the summary requests use is "
                        f"added to it, as agent.run(usage=...) adds a run's), not {kind(usage)}")
    if usage_limits is not None and not isinstance(usage_limits, UsageLimits):
        raise TypeError(f"compact_now: usage_limits must be a pydantic-ai UsageLimits, not {kind(usage_limits)}")


def check_drain(timeout: object) -> None:
    """`drain`'s timeout: a wrong one was said nowhere while no notes were in flight, and with notes in
    flight failed inside asyncio, leaving the request running past the end it was to bound."""
    if timeout is not None and (isinstance(timeout, bool) or not isinstance(timeout, int | float)):
        raise TypeError(f"drain: timeout must be a number of seconds or None, not {said_with_type(timeout)}")
    if timeout is not None and not timeout >= 0:  # NaN too
        raise ValueError(f"drain: timeout must be a number of seconds, 0 or more, not {said(timeout)}")
