"""Where a conversation's history is kept: the store protocol and the in-memory store.

The persisted history is the truth; the pipeline appends every message to a store and, at a
compaction, archives the full transcript before rewriting the history. A library must not touch the
disk unless asked to, so the default store keeps all of it in memory; the agent's JSONL session
(`compact_agent.session.store.SessionStore`) is another implementation of the same protocol.

A store may also offer side files (`side_dir(name) -> Path`): then the tool-result budget spills
oversized results there (the model can read them back) and context collapse keeps its commit log
there. Without them, oversized results are cut to a head-and-tail preview and the log stays in memory.

A store that can say what it holds (`load_messages()`) is read by a new manager; what it raises on
the way reaches the caller as one `HistoryNotLoaded`, and what it raises while saving as one
`HistoryNotSaved` (contract.py says when).
"""

from __future__ import annotations

import copy
import json
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol, runtime_checkable

from pydantic_ai import messages as _messages
from pydantic_ai.messages import ModelMessage, ModelMessagesTypeAdapter, ModelRequest, ModelResponse

from .events import one_line
from .settings import said_with_type


@runtime_checkable
class HistoryStore(Protocol):
    """What the pipeline needs to keep a conversation: append, archive, rewrite."""

    def append(self, messages: Sequence[ModelMessage]) -> None:
        """Add messages to the end of the history (called before every model request and at run end).

        Raise if they could not be saved (anything: the caller gets it as `HistoryNotSaved`, and
        nothing is sent that the store does not hold)."""
        ...

    def archive(self) -> Path | None:
        """Keep a copy of the whole history before a compaction rewrites it.

        Return the file the copy is in (the summary tells the model where it is, so it can read it
        back; a string naming it is taken too) or None when the copy is not a file the model can read. Raise (an `OSError`, say) if the
        copy could not be made: the compaction is then abandoned and nothing is rewritten.
        """
        ...

    def rewrite(self, boundary: dict[str, Any], messages: Sequence[ModelMessage]) -> None:
        """Replace the history by `messages` after a compaction; `boundary` describes the compaction
        (trigger, strategy, tokens_before, tokens_after, archive, time, messages_summarized)."""
        ...


@runtime_checkable
class SideFiles(Protocol):
    """A store that offers a private folder per purpose ("tool-results", "collapse")."""

    dir: Path

    def side_dir(self, name: str) -> Path: ...


@dataclass
class InMemoryStore:
    """The default store: the history, every archived transcript and every boundary, in memory.

    `messages` is the current (compacted) history, `boundaries[i]` what the i-th compaction did,
    `archives` the full history before each of the latest `max_archives` compactions (oldest
    first; `archives_dropped` older ones were let go). Each archive is a deep copy of a whole
    transcript, and a capability keeps up to 64 conversations: unbounded, a long session held every
    transcript it ever had (200 steps: 30 copies, 4.4 MB). Nothing is written anywhere; copy what
    you need to keep before the process ends, or give a store of your own.
    """

    messages: list[ModelMessage] = field(default_factory=list)
    archives: list[list[ModelMessage]] = field(default_factory=list)
    boundaries: list[dict[str, Any]] = field(default_factory=list)
    max_archives: int = 8
    archives_dropped: int = 0

    def __post_init__(self) -> None:
        # Checked here: a string failed every compaction later, at its archive, with a bare comparison error.
        if isinstance(self.max_archives, bool) or not isinstance(self.max_archives, int):
            raise TypeError(f"InMemoryStore.max_archives must be a whole number, 0 or more, "
                            f"not {said_with_type(self.max_archives)}")
        if self.max_archives < 0:
            raise ValueError(f"InMemoryStore.max_archives must be a whole number, 0 or more, not {self.max_archives}")

    def append(self, messages: Sequence[ModelMessage]) -> None:
        self.messages.extend(messages)

    def load_messages(self) -> list[ModelMessage]:
        """What it holds: a new `ContextManager` given this store resumes onto it."""
        return list(self.messages)

    def archive(self) -> Path | None:
        # Messages are mutable dataclasses and the run goes on with some of the same objects: the
        # archive must not change with them.
        self.archives.append(copy.deepcopy(self.messages))
        excess = len(self.archives) - max(0, self.max_archives)
        if excess > 0:
            del self.archives[:excess]
            self.archives_dropped += excess
        return None

    def rewrite(self, boundary: dict[str, Any], messages: Sequence[ModelMessage]) -> None:
        self.boundaries.append(dict(boundary))
        self.messages = list(messages)


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
        except (ValueError, RecursionError):  # past the parser's depth too
            return args  # not JSON: the same only as the same text
    return args


def _said(message: Any) -> tuple[Any, list[dict[str, Any]]]:
    parts = [{**{k: _args(v) if k == "args" else v for k, v in part.items() if k in _SAID},
              "error": part.get("outcome") in _ERRORS} for part in message.get("parts", ())]
    return message.get("kind"), parts


def said_alike(a: ModelMessage, b: ModelMessage, *, renamed: bool = False) -> bool:
    """Whether `a` and `b` say the same, one maybe read back from a store that keeps it in another
    form (arguments parsed, timestamps to the second, provider details dropped). `renamed`: also
    when a tool call id of one is the other's named apart (`<id>_2`, rounds.distinct_call_ids: a call
    id two runs reused is renamed in the whole conversation, not in a compacted one without the first)."""
    if a is b or a == b:
        return True
    try:
        x, y = ModelMessagesTypeAdapter.dump_python([a, b], mode="json")
    except Exception:  # noqa: BLE001 - not serialisable: not the same
        return False
    (kind, parts), (other, theirs) = _said(x), _said(y)
    if not renamed or kind != other or len(parts) != len(theirs):
        return (kind, parts) == (other, theirs)
    return all({**p, "tool_call_id": None} == {**q, "tool_call_id": None}
               and _named_apart(p.get("tool_call_id"), q.get("tool_call_id")) for p, q in zip(parts, theirs, strict=True))


def _named_apart(x: Any, y: Any) -> bool:
    if x == y:
        return True
    if not isinstance(x, str) or not isinstance(y, str):
        return False
    short, long = sorted((x, y), key=len)
    rest = long[len(short):]
    return long.startswith(short) and rest[:1] == "_" and rest[1:].isdigit()


def went_on_from(held: Sequence[ModelMessage], messages: Sequence[ModelMessage]) -> int | None:
    """How many of `messages`, from the first, are the history `held` with some of its messages left
    out (in order, its newest kept, as a history processor that keeps the first request and the
    newest steps leaves it): the messages after them are what is new. None when they are not (one of
    them is none of `held`'s, or `held`'s newest is not among them). Matched by identity where the
    message is the same object, else by what it says (`said_alike`)."""
    if not held:
        return None
    where = {id(m): i for i, m in enumerate(held)}
    k = 0
    for i, m in enumerate(messages):
        j = where.get(id(m), -1)
        if j < k:
            j = next((x for x in range(k, len(held)) if said_alike(held[x], m)), -1)
        if j < 0:
            return None
        if j == len(held) - 1:
            return i + 1
        k = j + 1
    return None
