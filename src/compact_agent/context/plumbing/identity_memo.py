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
ms a request for 2,000 messages. A change made inside a part's content or arguments in place (a
dict's value, a list's item, however deep) is noticed as well: the stamp keeps a deep copy of each
content or arguments that is not a string, number or bytes, taken when the message is first seen or
changed, and compares it by value with the live one on each request. Content whose copy does not
compare equal to itself (no value equality, or it cannot be copied) is taken as changed on every
request: measured again each time, which costs time and never a wrong size.
"""

from __future__ import annotations

import copy
import operator
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


_SCALARS = (str, bytes, int, float, complex, type(None))


class _Opaque:
    """Stands for a content whose copy cannot be compared with it: equal to nothing."""

    def __eq__(self, other: object) -> bool:
        return False

    __hash__ = None  # type: ignore[assignment]


_OPAQUE = _Opaque()


def _snapshot(obj: object) -> object:
    """A deep copy of `obj` to compare the live object with later, None where there is nothing a
    change in place could hide (a string, a number, bytes), `_OPAQUE` where the copy would not
    tell (it cannot be made, or is not equal to the object itself)."""
    if isinstance(obj, _SCALARS):
        return None
    try:
        snap = copy.deepcopy(obj)
        same = type(snap) is type(obj) and (snap == obj) is True
    except Exception:  # noqa: BLE001 - content of the caller's own making: taken as always changed
        return _OPAQUE
    return snap if same else _OPAQUE


def _live(message: Any) -> list[object]:
    """Each of the message's parts with its content and arguments (the objects themselves)."""
    live: list[object] = []
    for p in getattr(message, "parts", ()):
        live += (p, getattr(p, "content", None), getattr(p, "args", None))
    return live


def content_stamp(message: Any) -> tuple[list[object], list[int], list[object]]:
    """What `forget_changed` compares: each of the message's parts with its content and arguments
    (the objects themselves, held until the next stamp: compared by identity first, by value where
    one was replaced, and never mistaken for an object that took a freed one's address), then where
    in that list a content or arguments could change inside, and a deep copy of each (`_snapshot`)."""
    live = _live(message)
    where = [i for i, o in enumerate(live) if i % 3 and not isinstance(o, _SCALARS)]
    return live, where, [_snapshot(live[i]) for i in where]


def forget_changed(messages: Iterable[object]) -> None:
    """Drop what the memos hold of each of `messages` whose content changed in place since it was
    last seen here (the module's docstring)."""
    for m in messages:
        seen = _stamps.get(m)
        if seen is not None and _unchanged(seen, _live(m)):
            continue
        if seen is not None:
            for memo in list(_memos):
                memo.drop(m)
        _stamps.put(m, content_stamp(m))


def _unchanged(seen: tuple[list[object], list[int], list[object]], live: list[object]) -> bool:
    """Whether a stamp is of the same content as the message's live parts: the same objects, or
    equal ones of one type, and each content and arguments still equal to its copy. A comparison
    that says anything but True (an array's elementwise answer) or fails is a change: the message
    is measured again, which costs time and never a wrong size."""
    old, where, copies = seen
    if len(old) != len(live):
        return False
    try:
        if not all(map(operator.is_, old, live)):
            for a, b in zip(old, live, strict=True):
                if a is not b and (type(a) is not type(b) or (a == b) is not True):
                    return False
        return copies == [live[i] for i in where]  # the copy first: `_OPAQUE` equals nothing
    except Exception:  # noqa: BLE001 - content of the caller's own making: taken as changed
        return False


_stamps: IdentityMemo[tuple[list[object], list[int], list[object]]] = IdentityMemo()  # each message's `content_stamp` when last seen
