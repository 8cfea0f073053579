"""`/model NAME`: switch the session's model mid-conversation.

A model comes with its own window, output limit, prices, cache TTL and tokenizer, so the switch
re-derives the limits (`ContextManager.set_window`), resets the token calibration (the old
model's ratio says nothing about the new tokenizer) and prices later requests with the new model.
If the context is already over the new model's auto-compact threshold, the session is compacted
first — with the old model, whose window the conversation still fits — sized for the new window,
so the first request to the new model is not a guaranteed "prompt too long" (not for a switch made
with `-p`, whose run sends nothing after it: the saved history stays as it is). Where the old model's
summary request fails (a balance run out, a model the server no longer serves: why one switches), a
record of the steps written without a model stands in for it, as it does for a summary that cannot
fit the window (`_compacted`); a switch that still cannot compact raises `NotSwitched`, its one
line saying so and what to do, nothing changed. The session
remembers the switch (session/remembered.py): `-c` goes on with the model switched to, and with the
window given with it (not a print-mode run's: that one ends with the command).
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from datetime import UTC, datetime
from typing import TYPE_CHECKING

from pydantic_ai.exceptions import UsageLimitExceeded

from ...config import Limits
from ...context.compaction.result import (
    CompactionBlocked,
    CompactionError,
    CompactionResult,
    NotSmaller,
    SummaryNotSent,
)
from ...context.layers.microcompact import Microcompact
from ...context.plumbing import tokens
from ...error_notes import note_model
from ...models import REGISTRY, build_model, model_info, prices_of, provider_for, takes_images
from ...session import remembered
from ..accounting.context_report import sync_costs
from . import server_turns, server_windows
from .window_check import check_window

if TYPE_CHECKING:
    from collections.abc import Awaitable, Callable

    from ...settings_file import Loaded
    from .runner import AgentSession


@dataclass
class Switch:
    old: str
    new: str
    window: int
    threshold: int
    compaction: CompactionResult | None = None
    #: The context in use within the old window, and as the view layers shape it within the new one
    #: (long results as previews), where the new one is smaller: a compaction begins from the second.
    context: tuple[int, int] | None = None
    #: Why the old model wrote no summary, where a record written without a model stands in for it.
    summary_failed: str | None = None
    #: The context as the new window's layers shape it, over its threshold and left as it is: a switch
    #: that compacts nothing (`compact=False`: one print-mode run's, which sends nothing after it).
    uncompacted: int | None = None


class NotSwitched(Exception):
    """A switch that did not happen, nothing changed: its message is the whole line (`not switched: …`,
    what to do), which the REPL and print mode show as it is (print mode exits 1)."""


async def switch_model(session: AgentSession, name: str, window: int | None = None, *,
                       remember: bool = True, compact: bool = True) -> Switch:
    """Raises ConfigError (no key, ...), its UsageError (a window too small for the tools: bad
    usage, `-p` exit 2) or NotSwitched before anything changed. `remember`: the session
    remembers the switch (not a switch for one print-mode run). `compact`: a context over the new
    window's threshold is compacted first; False for a switch no request follows (`-p "/model NAME
    --window N"`, whose run ends with it): the saved history stays as it is, the first run that goes on
    with the switch compacts it first (`Switch.uncompacted`)."""
    opts = session.opts
    provider = provider_for(name, opts.base_url)
    # A window override belongs to the model it was given for, unless the new model is unknown too.
    fallback = None if name in REGISTRY else (opts.context_window or session.settings.context_window)
    # So do prices given (the `prices` setting): a known model has its own.
    prices = None if name in REGISTRY else session.settings.prices
    info = model_info(name, provider=provider, window=window or fallback, prices=prices,
                      cache_ttl_minutes=session.settings.cache_ttl_minutes)
    minimum = check_window(session, info, "/model NAME --window N")
    model = build_model(name, base_url=opts.base_url, api_key=opts.api_key)
    server_turns.wire(model, opts, info)
    limits = Limits.for_window(info.window, info.max_output, session.settings)
    old_limits, old_max = session.cm.limits, session.cm.max_output
    compaction, context, unsent, uncompacted = None, None, None, None
    if (in_use := session.context_tokens()) > limits.threshold:
        # Over it as the view layers shape the context within the old window; within the new one they
        # may shape it below (long results as previews): a compaction only where it is over it then.
        # '/model --window 8k' compacted '2,172 → 1,617' where /context had said 8.9k, though 2,172
        # was under the new threshold.
        session.cm.max_output = info.max_output
        session.cm.set_window(info.window)
        try:
            context = (in_use, session.context_tokens())
            if context[1] > session.cm.limits.threshold and not compact:
                uncompacted = context[1]
            elif context[1] > session.cm.limits.threshold:
                compaction, unsent = await _compacted(session, info.window)
        except BaseException as e:
            session.cm.max_output = old_max
            session.cm.set_window(old_limits.window)
            if isinstance(e, Exception) and context is not None:
                raise NotSwitched(not_switched(e, session.info.name, info.window, limits.threshold, context[1])) from e
            raise
    sync_costs(session)  # summaries so far were made by the old model
    old = session.info.name
    session.info, session.window_minimum = info, minimum
    session.env.images = takes_images(info, session.settings.images)
    session.model = model
    session.agent.model = model
    opts.model = name
    if name != old:  # `/model NAME --window N` of the model in use chose a window, not the model
        opts.config = chosen_by_switch(opts.config, name)
    carried = _carried(session, fallback)  # before the line below makes every window the switch's own
    # A window given for the old model must not follow the session to this one (nor into /clear).
    opts.context_window = window or fallback
    cm = session.cm
    # The model this run's requests go to from now on: a summary it refuses as too long names the window
    # (compacting.py). Set by the run's first request alone, it stayed the old model until the next turn,
    # and a /compact right after the switch learned nothing from the refusal of its summary request.
    cm.run_model = model
    cm.provider, cm.cache_ttl_s, cm.max_output = info.provider, info.cache_ttl_s, info.max_output
    server, cm.server = cm.server, server_windows.server_of(session)  # a window learned from now on is this model's
    cm.prices = cm.schedule.prices = prices_of(info)  # the new model's prices time its compactions
    cm.set_window(info.window)
    if cm.server is None or cm.server != server:  # the same model at the same server counts as it did
        cm.calibration = tokens.Calibration()
        # Nor is the old model's count of its last request this one's: /status, /context and the toolbar
        # anchor no figure to an answer before now (in_use.py), as after a rewind, until this one answers.
        # '/model claude-sonnet-4-5' from an OpenAI-compatible model showed the old count, 'provider-reported'.
        session.compacted_at = datetime.now(UTC)
    session.limits = cm.limits
    # Microcompact clears old tool results; with Anthropic, its server instead if the settings ask.
    server_side = info.provider == "anthropic" and getattr(session.settings, "anthropic_server_clearing", False)
    session.server_side_clearing = server_side
    for layer in cm.layers:
        if isinstance(layer, Microcompact):
            layer.server_side = server_side
    if hasattr(session, "_model_settings"):
        session.agent.model_settings = session._model_settings()
    if session.memory is not None and hasattr(session.memory, "model"):
        session.memory.model = model
    if remember:  # what `-c` / `-r ID` then run the session with, and a session `/clear` starts next
        kept = remembered.after_switch(session.store.options(), name, window or carried, name in REGISTRY)
        session.store.keep_options(kept)
        remembered.switched(kept)
    return Switch(old, name, info.window, cm.limits.threshold, compaction,
                  context if context is not None and context[0] != context[1] else None, unsent, uncompacted)


def chosen_by_switch(config: Loaded | None, name: str) -> Loaded | None:
    """The settings as loaded (settings_file.Loaded, or None) with `name` the model and `/model` what
    chose it: a 404's line names the command that chose the model (error_notes.model_chosen_by).
    Told apart by the name alone, a switch back to the model the session started with was said as
    `-m NAME`, or the config file's line, though the user had switched to it with /model."""
    if config is None:
        return config
    settings = config.settings.model_copy(update={"model": name})
    return replace(config, settings=settings, sources={**config.sources, "model": "/model"})


async def _compacted(session: AgentSession, window: int) -> tuple[CompactionResult, str | None]:
    """The compaction a smaller window needs, summarised by the model in use; where its summary request
    fails, a record of the steps written without a model (compacting.py's, for a summary request that
    cannot be sent), and why the summary failed. The old model's summary was the only way: a provider
    answering 402 (its balance run out) or 404 (a model it no longer serves) failed every `/model …
    --window N` and `/compact`, the switch that would leave that model included. Its event names the
    `window` it was made for (`switched_window`), before it is emitted: the REPL said it as
    `compacted (manual, full)`, a /compact the user had not typed, above the line saying why. Its
    saved record names it too (the boundary's `extra`, history_rewrites.py): `/history` listed it as
    `compaction (manual, full)`, also after a restart. The trigger stays `manual` (hooks, `-p` JSON)."""
    async def marked(result: CompactionResult) -> bool:
        result.event.detail["switched_window"] = window
        session.store.next_extra = {"switched_window": window}  # dropped again below, saved or not
        return True
    try:
        return await _marked(session, marked)
    finally:
        session.store.next_extra = {}


async def _marked(session: AgentSession, marked: Callable[[CompactionResult], Awaitable[bool]]
                  ) -> tuple[CompactionResult, str | None]:
    """`_compacted`'s compaction, `marked` as made for the new window."""
    try:
        return await session.compact(confirm=marked), None
    except (CompactionError, UsageLimitExceeded):  # refused, blocked, not smaller: no request failed
        raise
    except Exception as e:  # noqa: BLE001 - the summary request's failure: a record needs no request
        failed = e
    # How the model left was chosen (-m, a config file, a variable, /model), for a 404's line to name it:
    # said without, it named '-m NAME' (or in the REPL '/model NAME') whatever had chosen it.
    note_model(failed, session.info.name, session.opts.config)
    why = f"the summary request to {session.info.name} failed: {_said(failed)}"

    class Unsent:  # the summarizer of this compaction: it asks no model
        async def __call__(self, sent: object, prompt: str) -> str:
            raise SummaryNotSent(why)
    made, session.cm.summarizer = session.cm.summarizer, lambda cm: Unsent()
    try:
        return await session.compact(confirm=marked), why
    except CompactionError:  # no record either (records off, or none would shrink it): the summary's failure
        raise failed from None
    finally:
        session.cm.summarizer = made


def _said(e: BaseException) -> str:
    from ...error_text import describe_error

    return describe_error(e, "", "").rstrip().removesuffix(".")


def not_switched(e: Exception, old: str, window: int, threshold: int, context: int) -> str:
    """The line of a switch whose compaction failed: why, that nothing changed, and what to do. It was
    the failed turn's line, whose advice was `/model switches the model`: the command that had failed."""
    from ...error_text import describe_error

    needs = f"the context ({context:,} tokens) is over the {threshold:,} at which a {window:,}-token window compacts"
    bigger = "a --window whose threshold is over the context switches without compacting"
    if isinstance(e, NotSmaller):
        return (f"not switched: {needs}, and a compaction would not shrink it ({e.before:,} → {e.after:,} tokens); "
                f"nothing was changed; {bigger}")
    if isinstance(e, CompactionBlocked):
        return f"not switched: {needs}, and its compaction was blocked by {e.reason or 'a PreCompact hook'}; nothing was changed"
    if isinstance(e, CompactionError):
        return f"not switched: {needs}, and its compaction failed: {_said(e)}; nothing was changed"
    passing = "\0passing" in describe_error(e, "; \0passing", "")
    again = "the same /model again to retry, or " if passing else ""
    return (f"not switched: {needs}, and its summary request to {old} failed: {_said(e)}; nothing was changed; "
            f"{again}{bigger}")


def _carried(session: AgentSession, fallback: int | None) -> int | None:
    """The window a switch to a model the registry does not know carried over (`fallback`), when the
    session must remember it for `-c` to run with it: one a flag or the session gave. A switch to a
    known model left the session remembering none, so a switch back to the unknown one ran at the
    flag's window and `-c` then at the assumed 32,768. A config file's or the environment's window
    is read again by every run, and stays theirs."""
    if fallback is None or session.opts.context_window is not None:
        return fallback
    config = session.opts.config
    source = config.sources.get("context_window", "default") if config is not None else "flag"
    return None if source in ("default", "user file", "project file") or source.startswith("env") else fallback
