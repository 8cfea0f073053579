"""A SIGTERM or SIGHUP that comes while the session store writes waits for the write, and the save
the signal makes (stop_signals.saving) comes after it (stop_signals.writing). The save ran in the
signal's handler, between two steps of whatever the main thread was doing: armed for every request,
it could append into the middle of the store's own append, or save against a file a compaction was
rewriting. Here the signal comes from inside the store's write, as the handler would run there."""

from __future__ import annotations

import asyncio
import json
import signal

import pytest
from pydantic_ai.messages import ModelRequest, UserPromptPart

from compact_agent import stop_signals
from compact_agent.session import journal
from compact_agent.session import store as store_module
from compact_agent.session.store import SessionStore


@pytest.fixture
def ended(monkeypatch) -> list[int]:
    """The signals the run would have ended by; nothing is said, no handler replaced, nothing killed."""
    out: list[int] = []
    monkeypatch.setattr(stop_signals, "_say", lambda *a: None)
    monkeypatch.setattr(signal, "signal", lambda *a: None)
    monkeypatch.setattr(stop_signals.os, "kill", lambda pid, signum: out.append(signum))
    monkeypatch.setattr(stop_signals, "_state", stop_signals._State())
    return out


def test_the_save_a_signal_makes_during_an_append_comes_after_it(tmp_path, monkeypatch, ended) -> None:
    store = SessionStore(tmp_path, "s")
    write = journal.append
    events: list[str] = []

    def signalled_mid_write(*args, **kwargs):
        if not events:
            events.append("signal")
            stop_signals._on_signal(signal.SIGTERM, None)  # the handler, run between two steps of the write
        events.append("write")
        return write(*args, **kwargs)

    monkeypatch.setattr(journal, "append", signalled_mid_write)

    def save(name: str) -> None:
        events.append("save")
        store.append_meta(stopped_by_signal=name)

    async def turn() -> None:
        with stop_signals.saving(save):
            store.append([ModelRequest(parts=[UserPromptPart("remember HERON")])])
            assert events == ["signal", "write"] and ended == []  # the append went on; the end waits for its step
            await asyncio.sleep(0)
        assert events == ["signal", "write", "save", "write"] and ended == [signal.SIGTERM]

    asyncio.run(turn())
    lines = [json.loads(x) for x in store.path.read_text().splitlines()]
    assert [e["kind"] for e in lines] == ["message", "meta"]
    assert lines[1]["parent"] == lines[0]["id"] and lines[1]["meta"] == {"stopped_by_signal": "SIGTERM"}


def test_without_an_event_loop_it_ends_as_the_write_is_over(ended) -> None:
    saved: list[str] = []
    with stop_signals.saving(saved.append):
        stop_signals.writing(lambda: stop_signals._on_signal(signal.SIGHUP, None))()
    assert saved == ["SIGHUP"] and ended == [signal.SIGHUP]


def test_a_command_started_in_the_step_after_the_write_is_listed_before_the_end(monkeypatch, ended) -> None:
    """The end a write deferred to the loop's next turn ran even if the step had begun to start a
    command by then (`deferred`, across the await of its spawn): a PostCompact hook started right after
    a compaction's rewrite was not yet listed in shell_groups, so nothing killed it and it outlived the
    run. The end now waits for that block as a signal coming in it would."""
    events: list[str] = []
    monkeypatch.setattr(stop_signals.shell_groups, "kill_all", lambda: events.append("kill_all"))

    async def step() -> None:
        stop_signals.writing(lambda: stop_signals._on_signal(signal.SIGTERM, None))()  # the rewrite
        with stop_signals.deferred():  # the hook: its group not yet known
            await asyncio.sleep(0)  # create_subprocess_exec yields here
            await asyncio.sleep(0)
            events.append("group listed")  # shell_groups.running(proc.pid)
        assert events == ["group listed", "kill_all"] and ended == [signal.SIGTERM]

    asyncio.run(step())


@pytest.mark.parametrize("write", ["archive", "rewrite"])
def test_the_save_a_signal_makes_during_a_compactions_writes_comes_after_them(tmp_path, monkeypatch, ended,
                                                                              write) -> None:
    """A compaction archives the session, then rewrites it: a close saved in the handler between two
    steps of either wrote against a file about to be copied or replaced (the rewrite's replace took
    the saved mark away). The save comes after the write's step, in the rewritten file."""
    store = SessionStore(tmp_path, "s")
    store.append([ModelRequest(parts=[UserPromptPart("remember HERON")])])
    atomic = store_module.atomic_write
    events: list[str] = []

    def signalled_mid_write(*args, **kwargs):
        if not events:
            events.append("signal")
            stop_signals._on_signal(signal.SIGTERM, None)  # the handler, run between two steps of the write
        events.append(kwargs["point"])
        return atomic(*args, **kwargs)

    monkeypatch.setattr(store_module, "atomic_write", signalled_mid_write)

    def save(name: str) -> None:
        events.append("save")
        store.append_meta(stopped_by_signal=name)

    async def compaction() -> None:
        with stop_signals.saving(save):
            if write == "archive":
                store.archive()
            else:
                store.rewrite({"trigger": "manual"}, [ModelRequest(parts=[UserPromptPart("summary")])])
            assert events == ["signal", write] and ended == []  # the write went on; the end waits for its step
            await asyncio.sleep(0)
        assert events == ["signal", write, "save"] and ended == [signal.SIGTERM]

    asyncio.run(compaction())
    lines = [json.loads(x) for x in store.path.read_text().splitlines()]
    assert lines[-1]["kind"] == "meta" and lines[-1]["meta"] == {"stopped_by_signal": "SIGTERM"}
