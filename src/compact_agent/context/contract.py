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
the history no longer starts with what it holds, after archiving what it held. Whatever the store
raises on the way (an append, the archive, the rewrite) becomes one `HistoryNotSaved`, and the
history is taken for saved only once the store took it: the next sync tries again.
"""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Callable, Sequence
from typing import Any, Protocol, runtime_checkable

from pydantic_ai import messages as _messages
from pydantic_ai.exceptions import UserError
from pydantic_ai.messages import (
    ModelMessage,
    ModelMessagesTypeAdapter,
    ModelRequest,
    ModelResponse,
    SystemPromptPart,
    repair_messages,
)

from .plumbing.events import Event, one_line
from .plumbing.stores import HistoryStore

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
    """
    if not any(m.run_id == run_id for m in compacted):
        return
    messages = result.all_messages()
    start = next((i for i, m in enumerate(messages) if m.run_id == run_id), None)
    if start is not None:
        result._new_message_index = start  # noqa: SLF001 - pydantic-ai's own field, set as its next request would


@runtime_checkable
class LoadableStore(Protocol):
    """A store that can say what it already holds: a new `ContextManager` resumes onto it."""

    def load_messages(self) -> Sequence[ModelMessage]: ...


def loaded(store: LoadableStore) -> list[ModelMessage]:
    """What `store.load_messages()` says it holds, refused in one line when it is not a list of
    messages (None for "nothing yet" failed as "'NoneType' object is not iterable"). Whatever the
    store raises is one `HistoryNotLoaded`."""
    try:
        held = store.load_messages()
    except Exception as e:  # noqa: BLE001 - a store of the caller's own may raise anything
        raise HistoryNotLoaded(e) from e
    if isinstance(held, str | bytes) or not isinstance(held, Sequence):
        raise TypeError(f"{type(store).__name__}.load_messages() must return a list of messages ([] when it holds "
                        f"none), not {type(held).__name__}")
    for i, m in enumerate(held):
        if not isinstance(m, ModelRequest | ModelResponse):
            raise TypeError(f"{type(store).__name__}.load_messages() must return a list of messages, but item "
                            f"{i + 1} is {type(m).__name__}")
    return list(held)


class HistoryNotLoaded(OSError):
    """The store's `load_messages()` raised: what it holds of the conversation is unknown. Raised by
    the request (or `compact_now`, or `resume()`) that would have read it, before anything is saved
    or sent; the next one reads the store again.

    `cause` (also `__cause__`) is the store's own error, whatever it raised; `errno` is its, where it
    has one."""

    def __init__(self, cause: BaseException) -> None:
        super().__init__(f"the store could not be read ({one_line(cause)}), so what it holds of the "
                         "conversation is unknown: nothing was saved or sent")
        self.cause = cause
        self.errno = getattr(cause, "errno", None)

    def __str__(self) -> str:  # OSError's would be "[Errno N] ..." without the store's words
        return str(self.args[0])


class HistoryNotSaved(OSError):
    """The store could not save the conversation: an append failed (before a request, or at the run's
    end), or the history changed (shorter or edited) and the store could not archive what it held, or
    rewrite it after the archive. Raised by the request (or run end, `compact_now`, or `resume(history)`)
    that would have saved it, before anything is sent; the store holds what it held, and the next run tries again.

    `cause` (also `__cause__`) is the store's own error, whatever it raised; `errno` is its, where it
    has one; `step` is "append", "archive" or "rewrite"; `messages` is the whole history the store
    was to hold (after a failed run end, with the answer it received): save it elsewhere, or pass it
    as the next run's `message_history`, which saves what the store lacks."""

    def __init__(self, cause: BaseException, *, step: str = "archive", new: int = 0,
                 messages: Sequence[ModelMessage] = ()) -> None:
        why = one_line(cause)
        if step == "append":
            said = (f"the store could not save {new} new message{'s' if new != 1 else ''} of the conversation "
                    f"({why}): it holds the conversation as it was before them")
        elif step == "rewrite":
            said = (f"the conversation changed, and the store could not rewrite it after archiving what it held "
                    f"({why}): it still holds that, and the changed conversation is not saved")
        else:
            said = (f"the conversation changed, and the store could not archive what it held before rewriting it "
                    f"({why}): it still holds that, and the changed conversation is not saved")
        super().__init__(said)
        self.cause, self.step, self.messages = cause, step, list(messages)
        self.errno = getattr(cause, "errno", None)

    def __str__(self) -> str:  # OSError's would be "[Errno N] ..." without the store's words
        return str(self.args[0])


def _not_held(store: str, held: int, given: int, same: int) -> str:
    """Why `resume(history)` is refused: the store holds more than the history, or something else."""
    read = "pass what the store holds (resume() with no argument reads it)"
    its = f"{held} message{'s' if held != 1 else ''}"
    if same == given == 0:
        return f"resume([]): the store ({store}) is not new, it holds {its}: {read}, or give this conversation a new store"
    if same == given:
        return (f"resume(): the store ({store}) holds {its}, the history given only its first {given}: {read}, or "
                "run with the shorter history without resume(), which archives what the store held and rewrites it")
    return (f"resume(): what the store ({store}) holds differs from the history given at message {same + 1} (of "
            f"its {its}): {read}, or give this history a store of its own")


# What a message says, as the model reads it again: kinds, words, tools, arguments, call ids and
# whether a result is an error (its `outcome` "failed" or "retried": it reaches the model as one,
# `{"error": ...}` or the provider's own error flag, where a "success" of the same words does not; a
# "denied" or "interrupted" one is sent as a plain result, so one given back as a "success", as AG-UI
# before 0.1.11 gives an interrupted one, says the same), in order. Not when it was said (a store may
# keep timestamps to the second), nor the run, usage or provider details that came with it.
_SAID = ("part_kind", "content", "tool_name", "args", "tool_call_id")
_ERRORS = frozenset(getattr(_messages, "ERROR_OUTCOMES", ("failed", "retried")))


def _args(args: Any) -> Any:
    """Tool-call arguments parsed, as a provider's JSON string or a store's dict alike."""
    if args is None or args == "":
        return {}
    if isinstance(args, str):
        try:
            return json.loads(args)
        except ValueError:
            return args  # not JSON: the same only as the same text
    return args


def _said(message: Any) -> tuple[Any, list[dict[str, Any]]]:
    parts = [{**{k: _args(v) if k == "args" else v for k, v in part.items() if k in _SAID},
              "error": part.get("outcome") in _ERRORS} for part in message.get("parts", ())]
    return message.get("kind"), parts


def _same(a: ModelMessage, b: ModelMessage) -> bool:
    """Whether `a` and `b` say the same, one maybe read back from a store that keeps it in another
    form (arguments parsed, timestamps to the second, provider details dropped)."""
    if a is b or a == b:
        return True
    try:
        x, y = ModelMessagesTypeAdapter.dump_python([a, b], mode="json")
    except Exception:  # noqa: BLE001 - not serialisable: not the same
        return False
    return _said(x) == _said(y)


class StoreSync:
    """The messages the store is known to hold, in order, compared with each new history."""

    def __init__(self, emit: Callable[[Event], None] | None = None) -> None:
        self.held: list[ModelMessage] = []
        self.started = False
        self._step, self._new = "append", 0  # what a sync is doing, for the error if the store fails
        self.emit = emit  # a `store` / `replaced` event when a sync rewrote the store (`_sync`)

    def reset(self, messages: Sequence[ModelMessage]) -> None:
        """The store now holds exactly `messages`."""
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
            self.reset(messages or [])
            return list(self.held)
        held = loaded(store)
        if messages is None:
            self.reset(held)
            return held
        before, self.held = self.held, held
        n = self.common(messages)
        if n < len(held) and self.reshaped(messages) is None:
            self.held = before
            raise UserError(_not_held(type(store).__name__, len(held), len(messages), n))
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
        longer begins with what the store holds (a shorter or edited history)."""
        if not self.started:
            if isinstance(store, LoadableStore):
                # A new capability on a store that holds the conversation. One that cannot be read
                # stays unread (taken for empty, the next sync appended what it held once more).
                self.held = loaded(store)
                n = self.common(messages)
                if n == len(self.held):
                    self.held = list(messages[:n])  # the caller's objects from now on
            self.started = True
        try:
            self._sync(store, messages, boundary)
        except HistoryNotSaved:
            raise
        except Exception as e:  # noqa: BLE001 - a store of the caller's own may raise anything
            if isinstance(store, LoadableStore):
                self.started = False  # a write cut short may have saved a part: the next sync reads what it holds
            raise HistoryNotSaved(e, step=self._step, new=self._new, messages=messages) from e
        self.held = list(messages)

    def _sync(self, store: HistoryStore, messages: Sequence[ModelMessage], boundary: Callable[[], dict[str, Any]]
              ) -> None:
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
            # Said, not only written: a second process serving the conversation at once (a user's double
            # submit) looks the same from here, and a service must be able to notice it (docs/library.md).
            if self.emit is not None:
                self.emit(Event("store", "replaced", trigger=said.get("trigger", ""), detail={
                    "held": len(self.held), "same": n, "messages": len(messages), "archive": said["archive"]}))

    def _append(self, store: HistoryStore, new: Sequence[ModelMessage]) -> None:
        if new:
            self._new = len(new)
            store.append(list(new))
