"""A `ContextManager` is one pipeline's state, so it is equal only to itself and can be a dict key
or a set member, and its repr says what it was given. pydantic-ai's capability base is a dataclass
whose generated `__eq__` compares only its own fields (id, description, defer_loading): any two
managers compared equal (`cm in managers` found another one, `managers.remove(cm)` removed the
wrong one), none could be hashed, and the repr showed those three fields only."""

from __future__ import annotations

import weakref

from compact_agent.context import ContextManager


def test_two_managers_are_two_and_each_can_be_a_key() -> None:
    a, b = ContextManager(window=16_000), ContextManager(window=16_000)
    assert a == a and a != b and b not in [a]
    sessions = {a: "first", b: "second"}
    assert sessions[a] == "first" and sessions[b] == "second" and len({a, b, a}) == 2
    alive = weakref.WeakSet([a, b])
    assert a in alive and len(alive) == 2


def test_its_repr_says_what_it_was_given() -> None:
    assert repr(ContextManager(window=16_000, max_output=2_000)) == "ContextManager(window=16000, max_output=2000)"
    assert repr(ContextManager()) == "ContextManager(window=None, max_output=8192)"
