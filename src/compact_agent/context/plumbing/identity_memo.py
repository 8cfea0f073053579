"""A memo keyed by object identity that does not keep the object alive.

Token estimates, collapse keys and notes fingerprints are memoised per message object: every
request re-shapes the whole history, and recomputing them each time dominated the pipeline's time.
Keying by `id()` needs the object to stay alive (or a dead object's id could be reused by a new
one), and holding a strong reference did that — for every message the session ever saw, including
each request's reshaped copies and everything compaction had dropped, so memory grew with the
session's length (found by benchmarks/soak.py). A weak reference guards against id reuse as well,
and its callback drops the entry when the message goes.
"""

from __future__ import annotations

import weakref
from typing import Generic, TypeVar

V = TypeVar("V")


class IdentityMemo(Generic[V]):
    def __init__(self) -> None:
        self._d: dict[int, tuple[weakref.ref[object], V]] = {}

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
