"""The run and conversation side of `ContextManager` (its methods call these functions): state per conversation, the end of a run,
compaction outside a run, and which model writes a summary.

pydantic-ai asks a capability for the instance to use for each run (`for_run`). The frozen layer
decisions, the calibration, the notes and the history belong to one conversation, so the first
conversation is served by the instance itself and every other `conversation_id` by a copy built
from the same arguments; objects the caller built (a store, layers, notes, a compactor) cannot be
copied, so with them a second conversation is refused instead of silently mixed in.
"""

from __future__ import annotations

import contextlib
import threading
from collections.abc import Callable, Sequence
from typing import Any, Protocol, TypeVar, cast

from pydantic_ai.capabilities import CombinedCapability
from pydantic_ai.capabilities.abstract import WrapRunHandler
from pydantic_ai.exceptions import UsageLimitExceeded, UserError
from pydantic_ai.messages import ModelMessage
from pydantic_ai.models import Model
from pydantic_ai.run import AgentRunResult
from pydantic_ai.tools import RunContext, ToolDefinition
from pydantic_ai.usage import RunUsage, UsageLimits

from . import request_limit, shaping
from .compaction import in_run
from .compaction.result import CompactionError, CompactionResult
from .compaction.unmarked import restore_compaction_marks
from .contract import new_from_compaction
from .defaults import as_model
from .handlers import Confirm
from .layers.budget import ToolResultBudget
from .layers.microcompact import Microcompact
from .plumbing.events import Event, of_run
from .plumbing.identity_memo import forget_changed
from .plumbing.overflow import model_key
from .plumbing.rounds import distinct_call_ids
from .plumbing.settings import Limits
from .plumbing.tokens import Calibration
from .saved_state import taken_back
from .state import ManagerState
from .wiring import Internals


class Compacting(Protocol):
    """What `compact_now` uses of the manager (pipeline.py's `ContextManager`): the store, the
    view layers and the compaction itself."""

    _now_model: Model | None
    _run_ids: tuple[str | None, str | None]

    def close_breaker(self) -> None: ...
    def persist(self, messages: Sequence[ModelMessage]) -> None: ...
    def shape(self, messages: list[ModelMessage]) -> tuple[list[ModelMessage], bool]: ...
    async def compact(self, messages: list[ModelMessage], *, trigger: str, instructions: str = "",
                      summary_input: list[ModelMessage] | None = None, keep_from: int | None = None,
                      view: list[ModelMessage] | None = None, confirm: Confirm | None = None,
                      going_ahead: Callable[[], None] | None = None) -> CompactionResult: ...

M = TypeVar("M", bound=ManagerState)


class ConversationBusy(UserError):
    """A run (or `compact_now`) of a conversation that has one in progress on the manager, refused
    before anything is sent or saved: a user's second submit of one turn, most often. A `UserError`,
    so what caught that still catches it; `conversation_id` names the conversation (a service answers
    409 Conflict by it). A store of your own may raise it too, for a run in another process (docs)."""

    def __init__(self, conversation_id: str | None, message: str | None = None) -> None:
        super().__init__(message or f"conversation {conversation_id!r} already has a run in progress: "
                                    "start the next when that one returns")
        self.conversation_id = conversation_id


async def for_run(cm: M, ctx: RunContext[Any]) -> M:
    """The state for this run's conversation: this instance for the first conversation, a
    fresh copy for each other one (their frozen decisions, notes and history must not mix). Busy
    from here on: `wrap_run` starts in a task of its own, and a conversation let go before it did
    ran in a state no longer kept."""
    with _CLAIM:
        state = state_for(cm, ctx.conversation_id or "", ctx.model)
        state._starting.add(ctx.run_id)
    return state


#: Held while a conversation's state is looked up or made, and while a run claims it: a manager may
#: serve runs in several threads (each `run_sync` on its thread's loop). Two runs of one conversation
#: at once in two threads each made a state of its own, and neither was refused as busy.
_CLAIM = threading.RLock()


def state_for(cm: M, key: str, model: object = None) -> M:
    """The state of conversation `key` ("" for runs without an id), made on first use: one whose
    run's `model` is the one this manager's limits are of starts from them; one on another model
    starts from the window given (or, given none, reads its model's); either takes what each model
    taught this manager (`window_from`)."""
    with _CLAIM:
        return _state_for(cm, key, model)


def _state_for(cm: M, key: str, model: object) -> M:
    if cm._conversation is None or cm._conversation == key:
        if cm._conversation is None:
            cm._conversation = key
            taken_back(cm, key, cm)  # a saved state given for it (load_layer_state(..., conversation_id=))
        return cm
    other = cm._others.get(key)
    if other is not None:
        cm._others.move_to_end(key)
        return other
    if cm._owned:
        # The same conversation under a new id, most often: a UI's message format (Vercel AI's) drops
        # it, and the next run took a new one. Passing the id is the fix, not another manager.
        same = (f"if this run goes on with conversation {cm._conversation!r}, pass conversation_id="
                f"{cm._conversation!r} to the run or the UI adapter (a history sent through a UI's message "
                "format comes back without its id); else " if cm._conversation else "")
        given = [f"{name}=" for name in cm._owned]
        named = f"{', '.join(given[:-1])} and {given[-1]}" if len(given) > 1 else given[0]
        raise UserError(
            f"this ContextManager cannot also serve conversation {key!r}: its {named} "
            + ("hold" if len(given) > 1 else "holds") + f" conversation {cm._conversation!r} (a run's "
            "conversation is the conversation_id= passed to it, else the one its message_history carries, "
            f"else a new one pydantic-ai makes up); {same}create one ContextManager per conversation, or "
            f"leave {named} out")
    known = not cm._window_unknown and (model is None or model_key(model) == cm._windows.model)
    windows = cm._windows.copy(cm.window_learned)
    if known:
        other = type(cm).wired(internals_now(cm, limits=cm.limits), window=cm.window, **options_now(cm))
        other._window_of_model, other.window_learned = cm._window_of_model, cm.window_learned
    else:  # read at its first request
        windows.model = None
        window = None if cm._window_of_model else cm.window_learned.given if cm.window_learned else cm.limits.window
        other = type(cm).wired(internals_now(cm, limits=None), window=window, **options_now(cm))
    other._windows = windows
    other._conversation = key
    other._manager = cm
    cm._others[key] = other
    taken_back(cm, key, other)
    evict(cm, spare=other)
    return other


def evict(cm: ManagerState, spare: ManagerState | None = None) -> None:
    """Keep at most `max_conversations`: the first (this instance's own state) counts toward the
    limit and is never dropped; of the others the least recently used idle one that never compacted
    goes, else the least recently used idle one (with a limit of 1, no other is kept past its run),
    and says so (`dropped`). A busy one stays: dropped, its run went on in a state no
    longer kept, and a new run with its id started afresh without the history the first was still
    adding to. With every other busy the limit is exceeded until one is done (the end of a run or
    `compact_now`, the next run's start, or `drain`). `spare` is the one about to run."""
    with _CLAIM:  # not while another thread looks one up (`state_for`)
        while len(cm._others) + 1 > cm.max_conversations:
            idle = [key for key, one in cm._others.items() if one is not spare and not busy(one)]
            if not idle:
                return
            # One that compacted takes its archives with it (an InMemoryStore's, their only copy): it goes last.
            dropped(cm._others.pop(next((key for key in idle if not cm._others[key].compactions), idle[0])))


def dropped(one: ManagerState) -> None:
    """Say that a conversation's state was let go, with what went with it (`ConversationEvent`)."""
    archives = getattr(one.store, "archives", None)
    one.emit(Event("conversation", "dropped", detail={
        "compactions": len(one.compactions), "archives": len(archives) if isinstance(archives, list) else 0}))


#: `_running` while `compact_now` rewrites the conversation (a run's is its run_id).
COMPACTING = "compact_now"


def busy(cm: ManagerState) -> bool:
    """A run of the conversation in progress, or its notes being written."""
    return cm._running is not None or bool(cm._starting) or (cm.memory is not None and cm.memory.in_flight)


async def compact_now(cm: Compacting, messages: Sequence[ModelMessage], instructions: str,
                      model: Model | str | None, confirm: Confirm | None, usage: RunUsage | None = None,
                      usage_limits: UsageLimits | None = None) -> list[ModelMessage]:
    """`ContextManager.compact_now`: a manual compaction outside a run, of the history given. A history
    whose messages name their conversation is compacted in that conversation's state (its store, its archive),
    whichever state it was called on: the newest one named, as a run given that history runs in it (pydantic-ai's
    rule; a branch given its own `conversation_id=` carries its trunk's id on the messages before it). Its
    summaries' tokens and cost count in `usage`, held to `usage_limits` where given (compaction/in_run.py),
    whose `per_request_input_tokens_limit` sizes it as a run's compaction (request_limit.py)."""
    state = cast(ManagerState, cm)  # the ContextManager it is
    key = next((m.conversation_id for m in reversed(messages) if m.conversation_id), state._conversation or "")
    # Until it returns, the store and the history are its to rewrite (a run meanwhile would save a turn the
    # compacted history then drops): it claims the conversation as a run does, under the lock (`claim`).
    with _CLAIM:
        target = cast(Compacting, state_for(state, key))
        if target is cm:
            if state._running == COMPACTING:
                raise CompactionError(f"conversation {key!r} is being compacted by another compact_now call on "
                                      "this ContextManager: compact the history that one returns, once it has")
            if state._running is not None:  # its store and history are the run's to rewrite (wrap_run)
                raise CompactionError(f"conversation {key!r} has a run in progress on this ContextManager: compact_now"
                                      " compacts a history between runs (the run compacts its own when it needs to)")
            state._running = COMPACTING
    if target is not cm:
        return await compact_now(target, messages, instructions, model, confirm, usage, usage_limits)
    try:
        history = list(messages)
        restore_compaction_marks(history)  # a history saved without metadata (compaction/unmarked.py)
        forget_changed(history)  # a message edited in place since is measured again (identity_memo.py)
        distinct_call_ids(history)  # a call id a provider reused, named apart as a run does (rounds.py)
        state._sync.check_known(state.store, len(history))  # a store that cannot say what it holds (contract.py)
        cm.persist(history)  # a history the store does not begin with rewrites the store (contract.py)
        cm._now_model = as_model(model)
        cm._run_ids = (None, key or None)  # outside a run: what it creates belongs to no run (contract.stamp_new)
        # The summary request's view, shaped as a request's is but committed only once the compaction
        # goes ahead (rewritten in the store): blocked, declined or failed, it leaves nothing behind.
        counted = (in_run.counted_in(usage if usage is not None else RunUsage(), usage_limits)
                   if usage is not None or usage_limits is not None else contextlib.nullcontext())
        with counted, request_limit.within(state, usage_limits):  # a per-request limit as a run's (request_limit.py)
            view = shaping.tentative(state, list(history))
            result = await cm.compact(history, trigger="manual", instructions=instructions,
                                      summary_input=view.shaped.messages, confirm=confirm,
                                      going_ahead=lambda: view.commit(state))
    finally:
        cm._now_model = None
        state._running = None
        evict(state._manager or state)  # done: past the limit, it may go now
    cm.close_breaker()
    return list(result.messages)


def options_now(cm: ManagerState) -> dict[str, Any]:
    """The public options as they are now (a caller may have set `event_handler` since)."""
    return {"max_output": cm.max_output, "settings": cm.settings, "summary_model": cm.summary_model,
            "token_counter": cm.token_counter, "compactable_tools": cm.compactable_tools,
            "event_handler": cm.event_handler, "notes_in_background": cm.notes_in_background,
            "max_conversations": cm.max_conversations, "prices": cm.prices, "before_compact": cm.before_compact,
            "summary_wording": cm.summary_wording}


def internals_now(cm: ManagerState, limits: Limits | None) -> Internals:
    """What another conversation's copy is wired with: the same, but its own layers, notes and
    compactor (built afresh) and the limits this one has now."""
    return Internals(limits=limits, summarizer=cm.summarizer, clock=cm.clock, event_sink=cm.event_sink,
                     on_compact_start=cm.on_compact_start, provider=cm.provider, cache_ttl_s=cm.cache_ttl_s,
                     save_state=cm.save_state, after_compact=cm.after_compact,
                     keep_system_prompts=cm.keep_system_prompts, refit_prompt=cm.refit_prompt, server=cm.server)


def window_from(cm: ManagerState, model: Model) -> None:
    """The window of the model this request goes to: given none, `ContextManager()` works within the
    model's own, where pydantic-ai knows it; given one, within that for every model. A limit a model's
    server taught (a refusal, prompts it cut) is that model's: a conversation's requests to another
    model (a hand-off with `message_history`, `run(model=...)`) work within that one's window, and
    back on the first, within its limit again (`ModelWindows`, plumbing/overflow.py). The calibration
    (the ratio of its tokenizer's counts to our estimate) is each model's too. A limit taken back with
    the saved state goes to the model it was learned for (`ModelWindows.restored`)."""
    windows, key = cm._windows, model_key(model)
    if windows.model == key:
        return
    if cm._window_of_model:
        base = getattr(model, "context_window", None)  # pydantic-ai 2.68+: from the model's profile
        if not isinstance(base, int) or base <= 0:
            raise UserError(f"ContextManager needs the context window of model {model.model_name!r}, which "
                            "pydantic-ai does not know: ContextManager(window=...) for every model, or "
                            f"{type(model).__name__}(..., profile={{'context_window': N}}) for this one (a model "
                            "a test gives with agent.override too)")
    else:  # the window given (the host's), under what the model in force taught
        base = cm.window_learned.given if cm.window_learned is not None else cm.limits.window
    first = windows.model is None
    if first and windows.restored not in (None, key) and cm.window_learned is not None:
        windows.learned[windows.restored] = cm.window_learned  # the saved state's limit is another model's
        cm.window_learned = None
    windows.restored = None
    windows.leave(cm.window_learned, cm.calibration)
    # On the first request, a limit taken back with the saved state (saved_state.py) is this model's.
    learned = (cm.window_learned if first else None) or windows.learned.get(key)
    windows.model = key
    if not first:  # its own tokenizer's ratio (a new model's is learned afresh), and its own reports
        cm.calibration = windows.calibrations.pop(key) if key in windows.calibrations else Calibration()
        cm.calibration.watch.switched = True
    cm._window_unknown = False
    if learned is not None and learned.given == base:
        if cm.limits.window != learned.window or cm.window_learned != learned:
            cm.set_window(learned.window)
            cm.window_learned = learned
    elif cm.window is None or cm.limits.window != base or cm.window_learned is not None:
        cm.set_window(base)


def conversation(cm: M, conversation_id: str) -> M | None:
    """The state kept for `conversation_id` (its store, compactions, savings), if any."""
    if cm._conversation == conversation_id:
        return cm
    return cm._others.get(conversation_id)


async def wrap_run(cm: ManagerState, ctx: RunContext[Any], *, handler: WrapRunHandler) -> AgentRunResult[Any]:
    """Runs one run of this conversation; a second one while it runs is refused (`overlapping`)."""
    with _CLAIM:
        claim(cm, ctx)
    restore_compaction_marks(ctx.messages)  # a history saved without metadata (compaction/unmarked.py)
    cm._sync.starting(ctx.run_id, ctx.messages)  # the history as given: a processor's edits in the run are no other history
    cm.run_stream.start()  # its events also go to the run's own event stream (plumbing/events.py)
    try:
        with of_run(cm, ctx):  # its events name the run and its agent (plumbing/events.py `stamp`)
            return await handler()
    except BaseException:
        if cm.memory is not None and not cm.notes_in_background:
            cm.memory.close()  # a failed or cancelled run leaves no task behind
        raise
    finally:
        cm._running = None
        cm.run_stream.stop()
        if cm.memory is not None and not cm.notes_in_background:
            await cm.memory.drain(None)
        evict(cm._manager or cm)  # done: past the limit, it may go now (`evict`)


def claim(cm: ManagerState, ctx: RunContext[Any]) -> None:
    """The run takes the conversation (`_running`), or is refused: another run or `compact_now` has it."""
    cm._starting.discard(ctx.run_id)
    sole_manager(ctx)
    if cm._running == COMPACTING:
        raise ConversationBusy(ctx.conversation_id, f"conversation {ctx.conversation_id!r} is being compacted "
                               "(compact_now) on this ContextManager: start the run when it returns, with the "
                               "history it returns")
    if cm._running is not None:
        if cm._running == ctx.run_id:  # the same run entered it twice: one capability given twice
            raise UserError(f"this ContextManager is given {given_twice(cm, ctx)}: give it once")
        raise ConversationBusy(ctx.conversation_id, overlapping(ctx.conversation_id))
    cm._running = ctx.run_id


def given_twice(cm: ManagerState, ctx: RunContext[Any]) -> str:
    """Where one run was given this manager twice: to the agent and to the run, or twice in one list."""
    leaves: list[object] = []
    getattr(ctx.agent, "root_capability", CombinedCapability([])).apply(leaves.append)  # the agent's own
    agent = sum(one is (cm._manager or cm) for one in leaves)
    return ("to both the agent and the run (Agent(capabilities=[cm]) and agent.run(capabilities=[cm]))" if agent == 1
            else f"to the {'agent' if agent else 'run'} twice (capabilities=[cm, cm])")


def run_error(ctx: RunContext[Any], error: BaseException) -> BaseException:
    """What a failed run raises (`on_run_error`): a usage limit the library's own requests counted toward names
    them (in_run.py: pydantic-ai's line said nothing of a summary it counted); else the error itself."""
    return in_run.worded(error, ctx.usage) if isinstance(error, UsageLimitExceeded) else error


def sole_manager(ctx: RunContext[Any]) -> None:
    """Two different managers on one run would each compact the same history, neither knowing of the other's
    compactions, store or notes: refused before either sends anything (one given twice: `given_twice`)."""
    states = [one for one in ctx.capabilities.values() if isinstance(one, ManagerState)]
    managers = {id(one._manager or one) for one in states}
    if len(managers) > 1:
        for one in states:  # the run will not start: not busy with it (`busy`)
            one._starting.discard(ctx.run_id)
        raise UserError(f"this agent is given {len(managers)} different ContextManagers: each would compact the same "
                        "history on its own; give it one")


def overlapping(conversation_id: str | None) -> str:
    """Why a run of a conversation that has a run in progress on the manager is refused: the two
    would share one conversation's state (the store, the layers' frozen decisions, the measured
    growth, the compactions) and each rewrite what the other wrote, with no error to say so."""
    return (f"conversation {conversation_id!r} already has a run in progress on this ContextManager: runs of "
            "one conversation cannot overlap; start the next when that one returns (with its all_messages()), "
            "or give this one its own conversation_id= to make it a conversation of its own")


async def after_run(cm: ManagerState, ctx: RunContext[Any], *, result: AgentRunResult[Any]) -> AgentRunResult[Any]:
    """Persist what the run added after its last model request (the final response); a run that
    compacted returns the compacted history as its `new_messages()` (contract.new_from_compaction)."""
    cm.persist(result.all_messages())
    if cm.compactions and ctx.run_id:
        new_from_compaction(result, cm.compactions[-1].messages, ctx.run_id)
    return result


async def drain(cm: ManagerState, timeout: float | None = None) -> None:
    """Wait for background notes in flight (all conversations), then cancel what is left.
    Needed only with `notes_in_background=True`, before the event loop ends. Conversations kept
    past `max_conversations` while their notes were written go once they are done (`evict`)."""
    for one in [cm, *cm._others.values()]:
        if one.memory is not None:
            await one.memory.drain(timeout)
    evict(cm)


def agent_tools(cm: ManagerState, tools: Sequence[ToolDefinition]) -> None:
    """The tools the request offers the model, by name with their parameters: a spilled result's
    preview names a tool to read the rest with only when the agent has it (layers/previews.py)."""
    offered = {t.name: frozenset((t.parameters_json_schema or {}).get("properties") or ()) for t in tools}
    for layer in cm.layers or ():
        if isinstance(layer, ToolResultBudget):
            layer.tools = offered


def compact_tools(cm: ManagerState, names: set[str]) -> None:
    """Every tool of the agent is compactable unless `compactable_tools` said which."""
    for layer in cm.layers or ():
        if isinstance(layer, Microcompact) and not names <= layer.compactable:
            layer.compactable = frozenset(layer.compactable) | names
