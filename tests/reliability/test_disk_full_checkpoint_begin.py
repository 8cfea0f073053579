"""A disk too full for a new checkpoint list (a new file needs blocks; an append to the session file
may still fit in its last one): the turn goes on, its message reaches the model and stays in the
conversation. The list was written as each turn began, before anything else: every turn failed with
a bare 'No space left on device' (`-p`: exit 1), and in the REPL the message typed was marked as
never sent, so after space was freed the next request went on without it, and nothing said so. The
checkpoint is kept in memory, saved with the next list that can be written, and said once.

Where it is the request itself that the session file cannot take (the typed message's own entry,
saved as it was typed, fitted), the message stays in the conversation, unanswered, as after a
request the provider refused; it was marked unsent and dropped out, nothing saying so."""

from __future__ import annotations

import asyncio
import errno
import logging
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from compact_agent.agent.run.options import SessionOptions
from compact_agent.agent.run.runner import AgentSession
from compact_agent.agent.tools import checkpoint_store
from compact_agent.config import Settings
from tests.fakes.openai_server import ChatRequest, FakeOpenAIServer, Reply, message_text
from tests.ui.repl_driver import drive


def echo(req: ChatRequest) -> Reply:
    return Reply.text("echo: " + " | ".join(message_text(m) for m in req.messages if m.get("role") == "user"))


def no_room_for_the_list(monkeypatch: pytest.MonkeyPatch) -> list[bool]:
    """While its one item is True, a new checkpoint list cannot be written (the temp file beside it
    finds no room, as on a full disk); every other write goes through."""
    real, full = checkpoint_store.atomic_write_bytes, [False]

    def write(path: Path, data: bytes, mode: int | None = None) -> None:
        if full[0] and Path(path).name == checkpoint_store.INDEX:
            raise OSError(errno.ENOSPC, "No space left on device")  # as a short write says it: no file named
        real(path, data, mode)

    monkeypatch.setattr(checkpoint_store, "atomic_write_bytes", write)
    return full


class Said(logging.Handler):
    def __init__(self) -> None:
        super().__init__(logging.WARNING)
        self.lines: list[str] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.lines.append(record.getMessage())


@pytest.fixture
def warnings() -> Iterator[list[str]]:
    said = Said()
    logger = logging.getLogger("compact_agent.agent.tools.checkpoints")
    logger.addHandler(said)
    try:
        yield said.lines
    finally:
        logger.removeHandler(said)


def opened(tmp_path: Path, server: FakeOpenAIServer) -> AgentSession:
    """The session `-c` opens (a new one where there is none yet)."""
    return AgentSession(SessionOptions(cwd=tmp_path / "project", model="fake-model", base_url=server.base_url,
                                       api_key="k", home=tmp_path / "home", continue_last=True,
                                       settings=Settings(memory_enabled=False)))


def prompts_of(s: AgentSession) -> list[str]:
    from pydantic_ai.messages import ModelRequest, UserPromptPart

    return [str(p.content) for m in s.messages if isinstance(m, ModelRequest)
            for p in m.parts if isinstance(p, UserPromptPart)]


async def three_messages_the_second_full(tmp_path: Path, server: FakeOpenAIServer, full: list[bool]) -> Any:
    """The REPL typed "first", "second" and "third", the disk full (`full[0]`) for the second only."""
    prompts = iter([False, True, False, False])

    def at_prompt() -> None:
        full[0] = next(prompts, False)

    return await asyncio.wait_for(drive(tmp_path, echo, ["first\r", "second\r", "third\r"], server=server,
                                        at_prompt=at_prompt), 60)


async def test_the_repl_sends_the_message_and_keeps_it(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                       warnings: list[str]) -> None:
    with FakeOpenAIServer(echo, model="fake-model") as server:
        run = await three_messages_the_second_full(tmp_path, server, no_room_for_the_list(monkeypatch))
        assert [message_text(m) for m in server.requests[-1].messages if m.get("role") == "user"] == \
            ["first", "second", "third"]
        assert "echo: first | second" in run.out and "No space left on device" not in run.out
        assert len(warnings) == 1 and "checkpoints.json: No space left on device" in warnings[0]
        s = opened(tmp_path, server)
        try:
            assert prompts_of(s) == ["first", "second", "third"]
            # the checkpoint of the second message, kept in memory, was saved with the third's
            assert [cp.prompt for cp in s.checkpoints.list()] == ["first", "second", "third"]
        finally:
            s.close()


async def test_a_turn_goes_on_without_its_checkpoint_saved(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                          warnings: list[str]) -> None:
    full = no_room_for_the_list(monkeypatch)
    with FakeOpenAIServer(echo, model="fake-model") as server:
        s = opened(tmp_path, server)
        try:
            await s.run_turn("one")
            full[0] = True
            out = await s.run_turn("two")  # as `-p` runs it: it failed with exit 1
            assert out.output == "echo: one | two"
            assert "No space left on device" in warnings[0]
            assert [cp.prompt for cp in s.checkpoints.list()] == ["one", "two"]  # /rewind in this run has it
            full[0] = False
        finally:
            s.close()
        s = opened(tmp_path, server)
        try:
            assert prompts_of(s) == ["one", "two"]
        finally:
            s.close()


def no_room_for_messages(monkeypatch: pytest.MonkeyPatch) -> list[bool]:
    """While its one item is True, the session file takes no message (a request, an answer): the
    entry a typed message is saved in as it is entered, a few bytes, still fits in its last block."""
    from compact_agent.session import journal

    real, full = journal.append, [False]

    def append(path: Path, data: object, side_dir: Path) -> Path | None:
        if full[0] and isinstance(data, bytes) and b'"kind": "message"' in data:
            raise OSError(errno.ENOSPC, "No space left on device")
        return real(path, data, side_dir)  # type: ignore[arg-type]

    monkeypatch.setattr(journal, "append", append)
    return full


async def test_a_message_whose_request_could_not_be_saved_stays_in_the_conversation(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    with FakeOpenAIServer(echo, model="fake-model") as server:
        run = await three_messages_the_second_full(tmp_path, server, no_room_for_messages(monkeypatch))
        said = " ".join(run.out.split())
        assert "could not write the session file" in said
        assert "No space left on device; what was saved before is intact" in said
        assert len(server.requests) == 2  # nothing was sent that could not be saved first
        # as after a refused request: the message is in the conversation, closed as unanswered
        assert [message_text(m) for m in server.requests[-1].messages if m.get("role") == "user"] == \
            ["first", "second", "third"]
        s = opened(tmp_path, server)
        try:
            assert prompts_of(s) == ["first", "second", "third"]
            assert not s.warnings
        finally:
            s.close()
