"""One manager serving runs in several threads (a worker pool's `run_sync`s): a conversation's
state is looked up and made, and a run claims it, one thread at a time. Two runs of one
conversation started at once in two threads each found no state for it, each made one, and the
second replaced the first: the two ran in two states, and neither was refused as busy.

The second thread is let in while the first is making the state (no timing: it either waits for
the first, or makes a state of its own; the test waits for one of the two)."""

from __future__ import annotations

import threading
from types import TracebackType
from typing import Any

import pytest

from compact_agent.context import ContextManager, lifecycle


class Watched:
    """The lock `lifecycle` takes, telling `moved` when the second thread reaches it."""

    def __init__(self, lock: Any, moved: threading.Event) -> None:
        self.lock, self.moved = lock, moved

    def __enter__(self) -> None:
        if threading.current_thread().name == "second":
            self.moved.set()  # it waits for the lock now
        self.lock.__enter__()

    def __exit__(self, kind: type[BaseException] | None, error: BaseException | None, tb: TracebackType | None) -> None:
        self.lock.__exit__(kind, error, tb)


def test_two_threads_get_one_state_of_one_conversation(monkeypatch: pytest.MonkeyPatch) -> None:
    cm = ContextManager(window=16_000)
    lifecycle.state_for(cm, "first")  # the manager's own conversation: "conv-X" gets a state of its own
    moved = threading.Event()
    monkeypatch.setattr(lifecycle, "_CLAIM", Watched(getattr(lifecycle, "_CLAIM", threading.RLock()), moved),
                        raising=False)
    second: list[ContextManager] = []

    def other_thread() -> None:
        second.append(lifecycle.state_for(cm, "conv-X"))
        moved.set()  # made it without waiting

    thread = threading.Thread(target=other_thread, name="second")
    made = ContextManager.wired

    def wired(cls: type[ContextManager], *args: Any, **kwargs: Any) -> ContextManager:
        if not thread.is_alive() and not second:  # the first thread, making the state: the second comes now
            thread.start()
            assert moved.wait(timeout=30)
        return made.__func__(cls, *args, **kwargs)  # type: ignore[attr-defined,no-any-return]

    monkeypatch.setattr(ContextManager, "wired", classmethod(wired))
    first = lifecycle.state_for(cm, "conv-X")
    thread.join(timeout=30)
    assert second == [first]
    assert cm.conversation("conv-X") is first
