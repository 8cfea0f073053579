"""What a compacted history owes a pydantic-ai user, and how the store follows the history.

pydantic-ai adds an agent's system prompts only to an empty history, and computes a run's
`new_messages()` from the first message stamped with the run's id. A compaction builds new messages
and drops the old first request, so without care the rewritten history would lose the system prompts
for good and `new_messages()` would start after the compaction message, in the middle of the
conversation. `keep_system_prompts` and `stamp_new` keep both promises, and `new_from_compaction`
the second one when the compaction came at the run's last request (below).

The store is told the history by identity, not by count: a caller may pass a shorter or edited
`message_history` (regenerate, branch), or a new `ContextManager` may open a store that already
holds the conversation. `StoreSync` appends only what the store lacks and rewrites the store when
the history no longer starts with what it holds, after archiving what it held. A history a processor of
the caller's trimmed in the run (pydantic-ai's `ProcessHistory`: it keeps, in order, some of what the
store holds and its newest message) is none of those: what is new is appended (`went_on_from`). Whatever the store
raises on the way (an append, the archive, the rewrite) becomes one `HistoryNotSaved`, and the
history is taken for saved only once the store took it: the next sync tries again. A store read for
the first time that holds another conversation's messages is refused, not rewritten, and so is a run
given no history while the store holds some (`history_refused.py` words both).

A caller may keep the whole conversation rather than the compacted history: pydantic-ai's
`ConversationStore` keeps each message once and appends what a run added. Such a run returns the
whole conversation (`whole_conversation`), and the next, given it again, goes on from the compacted
history in its place (`StoreSync.continued`).
"""

from __future__ import annotations

import dataclasses
import weakref
from collections.abc import Callable, Sequence
from typing import Any

from pydantic_ai.exceptions import UserError
from pydantic_ai.messages import (
    ModelMessage,
    ModelRequest,
    SystemPromptPart,
    repair_messages,
)

from . import history_refused as refused
from .history_refused import conversation_of as _conversation_of
from .plumbing.events import Event
from .plumbing.stores import (
    HistoryNotLoaded,
    HistoryNotSaved,
    HistoryStore,
    LoadableStore,
    loaded,
    went_on_from,
)
from .plumbing.stores import said_alike as _same

__all__ = ["HistoryNotLoaded", "HistoryNotSaved", "LoadableStore", "StoreSync", "keep_system_prompts", "loaded", "stamp_new"]


def opening_system_prompts(messages: Sequence[ModelMessage]) -> list[SystemPromptPart]:
    """The system prompts of the history's first request (where pydantic-ai put them)."""
    for m in messages:
        if isinstance(m, ModelRequest):
            return [p for p in m.parts if isinstance(p, SystemPromptPart)]
    return []


def keep_system_prompts(before: Sequence[ModelMessage], after: list[ModelMessage]) -> list[ModelMessage]:
    """`after` (a compacted history) opening with the system prompts `before` opened with.

    They go first in the first request, as pydantic-ai puts them; the parts are the same objects, so
    a dynamic prompt keeps its `dynamic_ref` and is re-evaluated by pydantic-ai on the next run.
    """
    prompts = opening_system_prompts(before)
    if not prompts:
        return after
    have = [p for m in after if isinstance(m, ModelRequest) for p in m.parts if isinstance(p, SystemPromptPart)]
    missing = [p for p in prompts if not any(p is q or p == q for q in have)]
    if not missing:
        return after
    out = list(after)
    for i, m in enumerate(out):
        if isinstance(m, ModelRequest):
            out[i] = dataclasses.replace(m, parts=[*missing, *m.parts])
            return out
    return [ModelRequest(parts=missing), *out]


def stamp_new(before: Sequence[ModelMessage], after: Sequence[ModelMessage], run_id: str | None,
              conversation_id: str | None) -> None:
    """Stamp the messages a compaction created with the run's ids, as pydantic-ai stamps its own.

    `new_messages()` then starts at the compaction message: what a run returns after compacting is
    the whole compacted history, a valid history on its own. A message the compaction made from an
    earlier run's (an incremental compaction adds its update to the compaction message it keeps)
    is this run's too. `compact_now` runs outside a run: it stamps the conversation only.
    """
    if run_id is None and conversation_id is None:
        return
    old = {id(m) for m in before}
    for m in after:
        if id(m) not in old:
            if run_id is not None:
                m.run_id = run_id
            if m.conversation_id is None:
                m.conversation_id = conversation_id


def new_from_compaction(result: Any, compacted: Sequence[ModelMessage], run_id: str) -> None:
    """Make a run's `new_messages()` start at the compaction it made, when it made one.

    pydantic-ai works out where the new messages start before each model request's
    `prepare_model_request` hooks run, and a compaction there rewrites the history after it: when
    no request followed (the run's last one compacted: a chat turn answered in one request, the
    answer after a tool loop), the run's result kept the start worked out before, past the end of
    the shorter history or in its middle, and `new_messages()` was `[]` or a tail. `compacted` is
    the messages of the newest compaction; when the run made it (they carry its id), the start is
    the first message stamped with the run's id, as pydantic-ai finds it at every request after one.

    A run that went on from a pydantic-ai `Conversation` whose store is known (`conversation=`, as
    a `ConversationStore` loads it) returns the whole conversation instead (`whole_conversation`).
    """
    if whole_conversation(result, run_id):
        return
    if not any(m.run_id == run_id for m in compacted):
        return
    messages = result.all_messages()
    start = next((i for i, m in enumerate(messages) if m.run_id == run_id), None)
    if start is not None:
        result._new_message_index = start  # noqa: SLF001 - pydantic-ai's own field, set as its next request would


def whole_conversation(result: Any, run_id: str) -> bool:
    """A run given a `Conversation` that knows which of its messages its store holds (pydantic-ai
    2.68's `ConversationStore.load`, or a run's `result.conversation`) returns the conversation it was
    given with every message the run added, not the compacted history, and `new_messages()` those it
    added: the store keeps each message once, the prompts among them, and appends what it lacks
    (pydantic-ai's `save` appends the messages from `new_message_index` on). The compacted history
    stays the manager's (its store), and the next run given that whole conversation goes on from it
    (`StoreSync.continued`): no second summary of what was compacted. Returned, the compacted
    history was saved after the whole one each turn, its summary and the messages it kept as new
    messages, and the next turn compacted the lot again. A run given `message_history` (or a
    `Conversation` no store loaded) returns the compacted history, as before."""
    sync = _RUNS.get(run_id)
    if sync is None or sync.log is None or not sync.compacted:
        return False
    state = getattr(result, "_state", None)
    if getattr(state, "conversation_unsaved", None) is None:  # not a stored conversation's run
        sync.log, sync.compacted = list(sync.held), False  # its caller holds the compacted history
        return False
    history = result.all_messages()
    history[:] = sync.log  # pydantic-ai's own list: `all_messages()` and its `conversation` alike
    start = next((i for i, m in enumerate(history) if m.run_id == run_id), len(history))
    result._new_message_index = start  # noqa: SLF001 - pydantic-ai's own field: where the run's messages start
    return True


# The sync of each run in progress or just ended, by run id: `new_from_compaction` is handed the
# run's result, not its manager. One entry per sync (its latest run), gone with it.
_RUNS: weakref.WeakValueDictionary[str, StoreSync] = weakref.WeakValueDictionary()


def _another_conversation(held: Sequence[ModelMessage], messages: Sequence[ModelMessage]) -> str | None:
    """The conversation a store read for the first time holds, when it is not this history's: its
    messages name conversations none of this history's messages do, and the history does not go on
    from them (one that does is the same conversation under a new id: a UI's message format drops
    it). A store whose messages name none (one that keeps no ids) cannot be told apart: None."""
    theirs = {m.conversation_id for m in held if m.conversation_id}
    ours = {m.conversation_id for m in messages if m.conversation_id}
    if not theirs or not ours or theirs & ours:
        return None
    if len(messages) >= len(held) and all(_same(a, b) for a, b in zip(held, messages, strict=False)):
        return None
    return _conversation_of(held)


class StoreSync:
    """The messages the store is known to hold, in order, compared with each new history."""

    def __init__(self, emit: Callable[[Event], None] | None = None) -> None:
        self.held: list[ModelMessage] = []
        self.started = False
        self._step, self._new = "append", 0  # what a sync is doing, for the error if the store fails
        self.emit = emit  # a `store` / `replaced` event when a sync rewrote the store (`_sync`)
        # The conversation as its caller holds it: the history its run was given, and each message
        # appended since (a compaction rewrites `held`, not this). Differs from `held` only when the
        # caller keeps the whole conversation and the manager its compacted view (`continued`).
        self.log: list[ModelMessage] | None = None
        self.run: str | None = None  # the run the latest sync was of
        self.compacted = False  # `held` is a compacted `log`: a compaction since the log was the history
        self.given: tuple[str | None, list[ModelMessage]] | None = None  # a run's id and history at its start

    def starting(self, run: str | None, messages: Sequence[ModelMessage]) -> None:
        """A run starts from `messages`, as its caller gave them, before any hook of the run edits them."""
        self.given = (run, list(messages))

    def reset(self, messages: Sequence[ModelMessage]) -> None:
        """The store now holds exactly `messages`: a compaction's history (`log` stays whole)."""
        self._hold(messages)
        self.compacted = self.log is not None

    def _hold(self, messages: Sequence[ModelMessage]) -> None:
        self.held = list(messages)
        self.started = True

    def check_known(self, store: HistoryStore, earlier: int) -> None:
        """Refuse to guess what a store holds. A store without `load_messages()`, told nothing yet
        (no `resume`), and a history that arrives with `earlier` messages: the store may hold them
        (a restart) or not (a new store), and appending them all duplicated the conversation in a
        store that had them. The caller knows which; `resume` says it."""
        if self.started or earlier <= 0 or isinstance(store, LoadableStore):
            return
        raise UserError(
            f"the store ({type(store).__name__}) has no load_messages(), so whether it already holds the "
            f"{earlier} earlier message{'s' if earlier != 1 else ''} of this conversation is unknown: call "
            "resume(history) on the ContextManager with what the store holds before the run (resume([]) if "
            "it holds none of them), or give the store a load_messages()")

    def resume(self, store: HistoryStore, messages: Sequence[ModelMessage] | None) -> list[ModelMessage]:
        """The caller says the store holds `messages` (None: whatever it holds). A store that cannot
        be read is believed. One that can is asked: when it holds the beginning of `messages` (none
        of them, a new store the conversation moves to), the rest is appended now, in one `append`;
        when it holds anything else, nothing is written and the caller is told in one line (it was
        believed, and a new store then lacked the conversation's beginning for good)."""
        if not isinstance(store, LoadableStore):
            self._hold(messages or [])
            return list(self.held)
        held = loaded(store)
        if messages is None:
            self._hold(held)
            return held
        before, self.held = self.held, held
        n = self.common(messages)
        if n < len(held) and self.reshaped(messages) is None:
            self.held = before
            raise UserError(refused.not_held(type(store).__name__, len(held), len(messages), n))
        if n == len(held):
            self.held = list(messages[:n])  # the caller's objects from now on
        self.started = True
        self.sync(store, messages, dict)  # what the store lacks of it, appended (no rewrite: it holds its beginning)
        return list(messages)

    def common(self, messages: Sequence[ModelMessage]) -> int:
        """How many of `messages`, from the first, say what the store holds (`_same`): the same
        object, an equal one, or one that differs only in what the model does not read again. A
        system prompt pydantic-ai's `ReinjectSystemPrompt(replace_existing=True)` makes anew before
        each request (its UI adapters add it by default) differs in its timestamp alone, a history
        sent through a UI's message format and back in its timestamps, ids and provider details:
        compared with `==`, each was taken for an edited history, and the whole store was archived
        and rewritten before every request. The store keeps the messages as it was first told them."""
        n = 0
        for a, b in zip(self.held, messages, strict=False):
            if not _same(a, b):
                break
            n += 1
        return n

    def reshaped(self, messages: Sequence[ModelMessage]) -> int | None:
        """How many of `messages` are what the store holds, merged as pydantic-ai merges a history
        it is given (`repair_messages`: adjacent requests joined, nothing added or dropped in a valid
        one); None when they are not. A turn that sent results of its own before the prompt (an
        attachment) was held as two requests and came back as one, and each such turn rewrote and
        archived the whole store as a changed history."""
        merged = repair_messages(self.held, repair_last_response=False)
        if len(merged) >= len(self.held) or len(merged) > len(messages):
            return None  # nothing was merged: a real change
        if all(a is b or _same(a, b) for a, b in zip(merged, messages, strict=False)):
            return len(merged)
        return None

    def resent(self, messages: Sequence[ModelMessage]) -> int | None:
        """How many of `messages` are what the store holds when a run goes on from the requests the
        store ends with, without a new prompt (a failed turn sent again): pydantic-ai sends them as
        one new request of the very same parts. None when they are not. Taken for a changed
        history, the retry rewrote and archived the whole store."""
        k = 0
        while k < len(self.held) and isinstance(self.held[-1 - k], ModelRequest):
            k += 1
        n = len(self.held) - k
        if not k or len(messages) <= n or not isinstance(sent := messages[n], ModelRequest):
            return None
        parts = [p for m in self.held[n:] for p in m.parts]
        if self.common(messages[:n]) != n or len(sent.parts) != len(parts) \
                or not all(any(a is b for b in parts) for a in sent.parts):
            return None
        return n + 1

    def sync(self, store: HistoryStore, messages: Sequence[ModelMessage], boundary: Callable[[], dict[str, Any]]) -> None:
        """Make `store` hold `messages`: append what is new, or rewrite it when the history no
        longer begins with what the store holds (a shorter or edited history). A history a run is
        given that is the whole conversation its caller was left with goes on from the compacted one
        in its place (`continued`). The run is the one its newest message is stamped with: the request
        being sent, or the run's answer at its end."""
        run = getattr(messages[-1], "run_id", None) if messages else None
        new_run = run is not None and run != self.run  # its first sync: the history its caller gave it
        if not self.started:
            if isinstance(store, LoadableStore):
                # A new capability on a store that holds the conversation. One that cannot be read
                # stays unread (taken for empty, the next sync appended what it held once more).
                held = loaded(store)
                theirs = _another_conversation(held, messages)
                if theirs is not None and new_run and self.given == (run, []):  # no history (and no id, most often)
                    raise UserError(refused.no_history(type(store).__name__, held, _conversation_of(messages)))
                if theirs is not None:
                    raise UserError(refused.another_conversation(type(store).__name__, theirs, _conversation_of(messages)))
                self.held, self.compacted = held, False
                n = self.common(messages)
                if n == len(self.held):
                    self.held = list(messages[:n])  # the caller's objects from now on
            self.started = True
        if new_run and self.given == (run, []) and self.held and not self.common(messages):
            # Given no history, of a conversation the store holds (a program that opened its store in a new
            # process and left message_history= out): rewritten, it was archived and forgotten, with only a
            # `replaced` event to say so. The same first prompt again is its first answer asked for anew.
            raise UserError(refused.no_history(type(store).__name__, self.held))
        given = list(messages) if new_run else []
        going_on = new_run and isinstance(messages, list) and self.continued(messages)
        # Messages left out in the run, by a history processor of the caller's (pydantic-ai's
        # `ProcessHistory`), of a history that went on from what the store holds when the run began.
        def edited() -> bool:
            return run is not None and (not new_run or (self.given is not None and self.given[0] == run
                                                        and self.common(self.given[1]) == len(self.held)))
        try:
            self._sync(store, messages, boundary, edited)
        except HistoryNotSaved:
            raise
        except Exception as e:  # noqa: BLE001 - a store of the caller's own may raise anything
            if isinstance(store, LoadableStore):
                self.started = False  # a write cut short may have saved a part: the next sync reads what it holds
            raise HistoryNotSaved(e, step=self._step, new=self._new, messages=messages) from e
        self.held = list(messages)
        if new_run and run is not None:  # its caller holds what it gave
            _RUNS.pop(self.run or "", None)
            self.run, self.log, self.compacted = run, given, going_on
            _RUNS[run] = self

    def _sync(self, store: HistoryStore, messages: Sequence[ModelMessage], boundary: Callable[[], dict[str, Any]],
              edited: Callable[[], bool] = bool) -> None:
        self._step, self._new = "append", 0
        n = self.common(messages)
        if n == len(self.held):
            self._append(store, messages[n:])
        elif (same := self.reshaped(messages)) is not None:
            # The conversation the store holds, in the shape pydantic-ai gives a history at a run's
            # start (adjacent requests merged: an attachment's results, then the prompt): no change.
            self._append(store, messages[same:])
        elif (same := self.resent(messages)) is not None:
            self._append(store, messages[same:])
        elif edited() and (same := went_on_from(self.held, messages)) is not None:
            # Trimmed in the run (a history processor keeps the first request and the newest steps):
            # no change of conversation, and the store keeps what was left out. Taken for one, every
            # request archived and rewrote the store and said `replaced`.
            self._append(store, messages[same:])
        else:
            # What the store held goes to an archive first, as before a compaction: a regenerated
            # answer or a branch leaves the messages after the change in no other place.
            # Without the archive nothing is rewritten, and nothing goes on unsaved either: the run
            # stops here, before its request is sent (as when an append fails), and `held` stays what
            # the store holds, so the next `persist` tries again.
            self._step = "archive"
            archived = store.archive()
            self._step = "rewrite"
            said = {**boundary(), "archive": str(archived or "")}
            store.rewrite(said, list(messages))
            self.log, self.compacted = None, False  # what the caller holds is known again at the next run's start
            # Said, not only written: a second process serving the conversation at once (a user's double
            # submit) looks the same from here, and a service must be able to notice it (docs/library.md).
            if self.emit is not None:
                self.emit(Event("store", "replaced", trigger=said.get("trigger", ""), detail={
                    "held": len(self.held), "same": n, "messages": len(messages), "archive": said["archive"]}))

    def _append(self, store: HistoryStore, new: Sequence[ModelMessage]) -> None:
        if new:
            self._new = len(new)
            store.append(list(new))
            if self.log is not None:
                self.log.extend(new)

    def continued(self, messages: list[ModelMessage]) -> bool:
        """A history that begins with the whole conversation the caller was left with, when that is
        not what the store holds (pydantic-ai's `ConversationStore` keeps every message once, where
        the manager compacted): the manager's compacted history takes its place in `messages`, so the
        run goes on from that, with what is new after it. Sent as given, the store was archived and
        rewritten (a `replaced` event, as if another process had written it) and compacted anew."""
        log = self.log
        if log is None or not self.compacted or len(messages) < len(log) or \
                not all(_same(a, b, renamed=True) for a, b in zip(log, messages, strict=False)):
            return False
        messages[:len(log)] = self.held
        return True
