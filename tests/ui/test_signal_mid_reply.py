"""A SIGTERM or SIGHUP that ends a run while a reply is being written keeps the part that came.

The run closed the turn as one stopped 'before an answer' though the REPL (or `-p`'s stream-json)
had shown some of the reply: that text was lost, the model read that no answer came, a resumed
session showed '(no answer: …)' under the prompt and `-c` said the turn was stopped 'before the
model answered'. Now the part that came is saved, marked as cut off by the signal: the model reads
it with the mark, a resumed session shows it with a note under it, /history's row says it, and
the load's note says the answer was being written. The same message sent again is that turn
retried, as after a reply the stream tore.

The save is what the signal's handler calls (stop_signals.saving) before the process ends by the
signal; here it is called from within the stream, once text has been shown, as the handler runs
between two pieces of it, and the session file is taken as the kill would have left it."""

from __future__ import annotations

import asyncio
import contextlib
import json
import signal
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from compact_agent import stop_signals
from compact_agent.agent.run import turn
from compact_agent.agent.run.options import SessionOptions
from compact_agent.config import Settings
from compact_agent.session.store import SessionStore
from compact_agent.ui.history_view import message_rows
from compact_agent.ui.print_mode import run_print
from tests.fakes.openai_server import ChatRequest, FakeOpenAIServer, Reply, user_messages

from .repl_driver import drive

WORDS = " ".join(f"word{i}" for i in range(400))
MARK = "[compact-agent: this reply was cut off here by {}; this answer is incomplete]"
WORDS_OF = {"SIGTERM": "a termination signal (SIGTERM)", "SIGHUP": "a hangup signal (SIGHUP: its terminal closed)"}


def writer(req: ChatRequest) -> Reply:
    return Reply.text(WORDS if "tell me" in req.last_user_text() else "ok")


def on_first_text(monkeypatch: pytest.MonkeyPatch, act: Callable[[str, Callable[[str], object]], None]) -> None:
    """Once the first text of a reply is shown, `act(piece, save)` runs once, `save` being the save a
    signal makes (what stop_signals._end calls), as a signal arriving then would."""
    saves: list[Callable[[str], object]] = []
    done: list[bool] = []

    @contextlib.contextmanager
    def saving(save: Callable[[str], object]) -> Iterator[None]:
        saves.append(save)
        yield

    real = turn.stream_handler

    def handler(on_text: Callable[[str], None] | None, on_tool: Any = None, partial: list[str] | None = None) -> Any:
        def text(piece: str) -> None:
            if on_text is not None:
                on_text(piece)
            if not done and piece.strip():
                done.append(True)
                act(piece, saves[-1])

        return real(text, on_tool, partial)

    monkeypatch.setattr(stop_signals, "saving", saving)
    monkeypatch.setattr(turn, "stream_handler", handler)


def killed_mid_reply(monkeypatch: pytest.MonkeyPatch, home: Path, name: str) -> Callable[[], tuple[str, bytes]]:
    """Once the first text of a reply is shown, the save the signal `name` makes runs (as stop_signals._end
    calls it) and the session file is taken as it is then; returns what gives (text shown, file)."""
    taken: list[tuple[str, bytes]] = []

    def kill(piece: str, save: Callable[[str], object]) -> None:
        save(name)
        [path] = (home / "projects").glob("*/*.jsonl")
        taken.append((piece, path.read_bytes()))

    on_first_text(monkeypatch, kill)

    def result() -> tuple[str, bytes]:
        """The run is over: its session file put back as the signal left it."""
        [path] = (home / "projects").glob("*/*.jsonl")
        path.write_bytes(taken[0][1])
        monkeypatch.undo()
        return taken[0][0], taken[0][1]

    return result


@pytest.mark.parametrize("name", ["SIGTERM", "SIGHUP"])
async def test_the_repl_keeps_the_reply_shown_and_says_the_signal_cut_it(tmp_path, monkeypatch, name):
    taken = killed_mid_reply(monkeypatch, tmp_path / "home", name)
    await drive(tmp_path, writer, ["tell me\r"])
    shown, _ = taken()
    words = WORDS_OF[name]

    resumed = await drive(tmp_path, writer, ["/history\r", "go on\r"], continue_last=True)
    out = " ".join(resumed.out.split())
    assert (f"the last turn was stopped by {words} while the model's answer was being written: the part that "
            "came is kept, marked as cut off; your next message goes on from there") in out, resumed.out
    assert "before the model answered" not in out and "got no answer" not in out and "(no answer" not in out
    note = f"(the reply was cut off here: the turn was stopped by {words}; the session was saved)"
    assert note in out and shown.strip() in out, resumed.out  # under the reply, as the session is resumed
    assert "1 assistant word0 word1" in out  # /history's row: the model's words, clipped to leave room for its note
    sent = resumed.server.requests[-1]
    assert [m["content"] for m in user_messages(sent)] == ["tell me", "go on"]
    [kept] = [m["content"] for m in sent.messages if m["role"] == "assistant"]
    assert kept.startswith(shown.strip()) and kept.endswith("\n\n" + MARK.format(words)), kept
    assert WORDS.startswith(kept.removesuffix(MARK.format(words)).strip())  # what came, no more


def options(tmp_path: Path, server: FakeOpenAIServer, **more: Any) -> SessionOptions:
    (tmp_path / "project").mkdir(exist_ok=True)
    return SessionOptions(cwd=tmp_path / "project", model="fake-model", base_url=server.base_url, api_key="k",
                          permission_mode="yes", home=tmp_path / "home", settings=Settings(memory_enabled=False),
                          **more)


def test_print_mode_keeps_it_too_and_the_same_message_again_retries_the_turn(tmp_path, monkeypatch, capsys):
    with FakeOpenAIServer(writer) as server:
        taken = killed_mid_reply(monkeypatch, tmp_path / "home", "SIGTERM")
        assert asyncio.run(run_print(options(tmp_path, server), "tell me", "stream-json")) == 0
        shown, _ = taken()
        capsys.readouterr()

        assert asyncio.run(run_print(options(tmp_path, server, continue_last=True), "/history")) == 0
        out, err = capsys.readouterr()
        assert "while the model's answer was being written: the part that came is kept" in " ".join(err.split())
        assert "1 assistant    word0 word1" in out, out
        [path] = (tmp_path / "home" / "projects").glob("*/*.jsonl")
        [(who, what)] = message_rows(SessionStore(path.parent, path.stem).load().messages[-1])
        assert who == "assistant" and what.startswith(shown.strip()) and what.endswith(
            " (the reply was cut off here: the turn was stopped by a termination signal (SIGTERM); the session "
            "was saved)"), what  # /history's row, whole

        assert asyncio.run(run_print(options(tmp_path, server, continue_last=True), "tell me")) == 0
    sent = server.requests[-1]  # the turn retried: its cut reply left out, the message once
    assert [m["content"] for m in user_messages(sent)] == ["tell me"]
    assert [m for m in sent.messages if m["role"] == "assistant"] == []


def test_ctrl_c_in_print_mode_keeps_the_part_that_came_as_stopped_by_the_user(tmp_path, monkeypatch, capsys):
    """Ctrl-C (SIGINT) unwinds the run (asyncio cancels the turn) rather than ending it at once: the
    part of the reply that came is kept as a reply the user stopped, as Esc and Ctrl-C keep it in the REPL."""
    real = turn.stream_handler
    shown: list[str] = []

    def handler(on_text: Callable[[str], None] | None, on_tool: Any = None, partial: list[str] | None = None) -> Any:
        def text(piece: str) -> None:
            if not shown and piece.strip():
                shown.append(piece)
                signal.raise_signal(signal.SIGINT)  # to asyncio's handler, which cancels the run

        return real(text, on_tool, partial)

    monkeypatch.setattr(turn, "stream_handler", handler)
    with FakeOpenAIServer(writer) as server, pytest.raises(KeyboardInterrupt):
        asyncio.run(run_print(options(tmp_path, server), "tell me", "stream-json"))
    monkeypatch.undo()
    [path] = (tmp_path / "home" / "projects").glob("*/*.jsonl")
    [(who, what)] = message_rows(SessionStore(path.parent, path.stem).load().messages[-1])
    assert who == "assistant" and what.startswith(shown[0].strip()), what
    assert what.endswith(" (you stopped this reply here; it is incomplete)"), what


def test_print_mode_s_result_object_says_the_reply_was_cut_off(tmp_path, monkeypatch):
    """-p's result object of the run the signal ended said `"cut_off": false` of the reply it kept cut off."""
    state = stop_signals._State()
    monkeypatch.setattr(stop_signals, "_state", state)
    with FakeOpenAIServer(writer) as server:
        taken = killed_mid_reply(monkeypatch, tmp_path / "home", "SIGTERM")
        asyncio.run(run_print(options(tmp_path, server), "tell me", "stream-json"))
        taken()  # (puts `_state` back too)
    written: list[bytes] = []
    monkeypatch.setattr(stop_signals, "_state", state)
    monkeypatch.setattr(stop_signals.os, "write", lambda fd, data: written.append(data))
    monkeypatch.setattr(stop_signals.select, "select", lambda *a: ([], [1], []))
    stop_signals._write_result("terminated (SIGTERM)", "SIGTERM", "error_terminated")
    result = json.loads(written[-1])
    assert result["cut_off"] is True and result["subtype"] == "error_terminated", result


@pytest.mark.parametrize("output", ["text", "json"])
def test_print_mode_s_text_output_keeps_the_part_that_came_though_it_printed_none(tmp_path, monkeypatch, output):
    """-p's text and json output print the answer once it is whole, so a signal while the reply came
    ends the run with none of it printed; the part that came is kept all the same (nothing the model
    wrote is lost, and `-c` goes on from it), as the docs say: they said it was what had been shown."""
    with FakeOpenAIServer(writer) as server:
        taken = killed_mid_reply(monkeypatch, tmp_path / "home", "SIGTERM")
        assert asyncio.run(run_print(options(tmp_path, server), "tell me", output)) == 0
        taken()
    [path] = (tmp_path / "home" / "projects").glob("*/*.jsonl")
    [(who, what)] = message_rows(SessionStore(path.parent, path.stem).load().messages[-1])
    assert who == "assistant" and what.startswith("word0 word1") and what.endswith(
        " (the reply was cut off here: the turn was stopped by a termination signal (SIGTERM); the session was saved)")
    docs = " ".join((Path(__file__).resolve().parents[2] / "docs" / "usage.md").read_text(encoding="utf-8").split())
    assert ("with `-p`'s text or json output, which print the answer only once it is whole, what came though none "
            "of it was printed: nothing the model wrote is lost) is kept, as a reply cut off") in docs
