"""The threads a turn runs the agent's sync callbacks in, ended with the turn however it ends.

pydantic-ai runs sync callbacks (the instructions, before each request; sync tools) in worker
threads, by default AnyIO's. Those are stopped by a callback on the event loop's main task, which
runs only if the loop runs again after that task ends. An exception that ends the loop from another
task first (an `on_event` observer raising SystemExit or KeyboardInterrupt inside a tool call: rich
answers a closed pipe with SystemExit) leaves that callback unrun: the idle worker, not a daemon,
kept the interpreter from exiting, for ever.

A turn's own pool ends in the turn's `finally`; should that never run (the loop abandoned), its idle
threads still end at interpreter exit, as every `ThreadPoolExecutor`'s do.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from concurrent.futures import Future, ThreadPoolExecutor
from contextlib import contextmanager
from typing import Any, TypeVar

from pydantic_ai import Agent

T = TypeVar("T")


class TurnThreads(ThreadPoolExecutor):
    """A pool whose work, once it is shut down, runs inline: a task started inside the turn (the
    session notes written in the background) inherits the turn's executor and may outlive it."""

    def __init__(self) -> None:
        super().__init__(thread_name_prefix="compact-agent turn")
        self.closed = False

    def submit(self, fn: Callable[..., T], /, *args: Any, **kwargs: Any) -> Future[T]:
        if not self.closed:
            return super().submit(fn, *args, **kwargs)
        done: Future[T] = Future()
        try:
            done.set_result(fn(*args, **kwargs))
        except BaseException as e:  # noqa: BLE001 - handed to the caller, as a thread's would be
            done.set_exception(e)
        return done

    def shutdown(self, wait: bool = True, *, cancel_futures: bool = False) -> None:
        self.closed = True
        super().shutdown(wait=wait, cancel_futures=cancel_futures)


@contextmanager
def turn_threads() -> Iterator[TurnThreads]:
    """The agent's sync callbacks run in a pool of this turn's, shut down when the block ends:
    idle threads end, a busy one when its call returns (not waited for: the turn does not hang on it)."""
    pool = TurnThreads()
    try:
        with Agent.using_thread_executor(pool):
            yield pool
    finally:
        pool.shutdown(wait=False, cancel_futures=True)
