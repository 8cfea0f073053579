"""A memo keyed by object identity that does not keep the object alive.

Token estimates, collapse keys and notes fingerprints are memoised per message object: every
request re-shapes the whole history, and recomputing them each time dominated the pipeline's time.
Keying by `id()` needs the object to stay alive (or a dead object's id could be reused by a new
one), and holding a strong reference did that — for every message the session ever saw, including
each request's reshaped copies and everything compaction had dropped, so memory grew with the
session's length (found by benchmarks/soak.py). A weak reference guards against id reuse as well,
and its callback drops the entry when the message goes.

A message edited in place (a part's content or arguments replaced, a part added, removed or
replaced) is the same object with other content: `forget_changed`, called once per request on the
history, notices that by a cheap stamp of each message (its parts, their content and arguments, the
objects themselves) and drops what every memo holds of it, so that it is measured again: about 0.6
ms a request for 2,000 messages. A change made inside a part's list or dict content in place is
not noticed: replace the content instead.
"""

from __future__ import annotations

import weakref
from collections.abc import Iterable
from typing import Any, Generic, TypeVar

V = TypeVar("V")


class IdentityMemo(Generic[V]):
    def __init__(self) -> None:
        self._d: dict[int, tuple[weakref.ref[object], V]] = {}
        _memos.add(self)

    def __len__(self) -> int:
        return len(self._d)

    def get(self, obj: object) -> V | None:
        hit = self._d.get(id(obj))
        if hit is not None and hit[0]() is obj:
            return hit[1]
        return None

    def put(self, obj: object, value: V) -> V:
        key, d = id(obj), self._d

        def forget(ref: weakref.ref[object]) -> None:
            if (entry := d.get(key)) is not None and entry[0] is ref:
                del d[key]

        try:
            d[key] = (weakref.ref(obj, forget), value)
        except TypeError:  # not weak-referenceable: not memoised
            pass
        return value

    def drop(self, obj: object) -> None:
        hit = self._d.get(id(obj))
        if hit is not None and hit[0]() is obj:
            del self._d[id(obj)]


_memos: weakref.WeakSet[IdentityMemo[Any]] = weakref.WeakSet()  # every memo, for `forget_changed`


def content_stamp(message: Any) -> list[object]:
    """What `forget_changed` compares: each of the message's parts with its content and arguments
    (the objects themselves, held until the next stamp: compared by identity first, by value where
    one was replaced, and never mistaken for an object that took a freed one's address)."""
    stamp: list[object] = []
    for p in getattr(message, "parts", ()):
        stamp += (p, getattr(p, "content", None), getattr(p, "args", None))
    return stamp


def forget_changed(messages: Iterable[object]) -> None:
    """Drop what the memos hold of each of `messages` whose content changed in place since it was
    last seen here (the module's docstring)."""
    for m in messages:
        stamp = content_stamp(m)
        seen = _stamps.get(m)
        if seen is not None and _unchanged(seen, stamp):
            continue
        if seen is not None:
            for memo in list(_memos):
                memo.drop(m)
        _stamps.put(m, stamp)


def _unchanged(seen: list[object], stamp: list[object]) -> bool:
    """Whether two stamps are of the same content: the same objects, or equal ones of one type. A
    comparison that says anything but True (an array's elementwise answer) or fails is a change: the
    message is measured again, which costs time and never a wrong size."""
    if len(seen) != len(stamp):
        return False
    for a, b in zip(seen, stamp, strict=True):
        if a is b:
            continue
        try:
            if type(a) is not type(b) or (a == b) is not True:
                return False
        except Exception:  # noqa: BLE001 - content of the caller's own making: taken as changed
            return False
    return True


_stamps: IdentityMemo[list[object]] = IdentityMemo()  # each message's `content_stamp` when last seen
