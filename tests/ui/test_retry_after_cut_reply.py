"""Sending a message again after its reply was cut off mid-stream retries its turn. The cut text was
saved (marked as cut) after the message, and the error line said "send it again (↑ Enter) to
retry": doing so sent the message, the half answer and the same message again, so the model read
the request twice (an "append X to the file" done twice). Now the retry sends the conversation as
it was before the failed turn, with the message once; the cut reply goes to the session's archive
(the file is rewritten without it), in the REPL and with `-c -p` alike. Another message still goes
after the cut reply, which the model then reads. A reply cut inside a tool call's arguments sends no
call without its result."""

from __future__ import annotations

import asyncio
import re
from pathlib import Path
from typing import Any

import pytest

from compact_agent.agent.run.options import SessionOptions
from compact_agent.config import Settings
from compact_agent.session.loading import load_session_file
from compact_agent.ui.print_mode import run_print
from tests.fakes.openai_server import ChatRequest, FakeOpenAIServer, Fault, Reply, message_text

from .repl_driver import drive

NO_RETRIES = Settings(memory_enabled=False, max_retries=0, transient_retries=0)
CUT_MARK = "[compact-agent: the provider's reply was cut off here"
HALF = "half of an answer " * 30
CLOSED = Fault.reset_mid_stream()


def said(req: ChatRequest) -> list[str]:
    """What the request carries of the conversation: the user's words and the replies."""
    return [message_text(m) for m in req.messages if m.get("role") in ("user", "assistant")]


def cut_until_told(responder: Any = None, fault: Fault = CLOSED) -> tuple[dict[str, bool], FakeOpenAIServer]:
    """A server whose streamed replies are cut mid-way (by default, the connection closed) while `state["cut"]`."""
    state = {"cut": True}

    def answer(req: ChatRequest) -> Reply:
        return Reply.text(HALF if state["cut"] else f"done: {req.last_user_text()}")

    def faults(req: ChatRequest, attempt: int) -> Fault | None:
        return fault if state["cut"] else None

    return state, FakeOpenAIServer(responder or answer, faults=faults)


def mended_at_second_prompt(state: dict[str, bool]) -> Any:
    prompts = iter(range(10))

    def at_prompt() -> None:
        if next(prompts) == 1:  # the provider streams whole replies when the message is sent again
            state["cut"] = False

    return at_prompt


def session_file(tmp_path: Path) -> Path:
    [path] = (tmp_path / "home" / "projects").glob("*/*.jsonl")
    return path


def every_call_answered(req: ChatRequest) -> bool:
    calls = [c["id"] for m in req.messages if m.get("role") == "assistant" for c in m.get("tool_calls") or []]
    results = [str(m.get("tool_call_id")) for m in req.messages if m.get("role") == "tool"]
    return sorted(calls) == sorted(results)


@pytest.mark.parametrize("fault", [CLOSED, Fault.torn()], ids=["connection-closed", "torn-stream"])
async def test_the_repl_retries_a_turn_whose_reply_was_cut_without_the_cut_reply(tmp_path, fault):
    state, server = cut_until_told(fault=fault)
    with server:
        run = await drive(tmp_path, None, ["append X to notes.txt\r", "append X to notes.txt\r", "/history\r"],
                          server=server, at_prompt=mended_at_second_prompt(state), settings=NO_RETRIES)
    out = " ".join(run.out.split())
    assert "the session is saved with your message: send it again (↑ Enter) to retry" in out, run.out
    assert "Traceback" not in run.out
    assert said(server.requests[-1]) == ["append X to notes.txt"], server.requests[-1].messages
    history = run.out[run.out.index("messages (the numbers"):]
    rows = [" ".join(line.split()[1:]) for line in history.splitlines() if re.match(r"\s+\d+ ", line)]
    assert rows == ["you append X to notes.txt", "assistant done: append X to notes.txt"], history
    assert "the conversation went on from an earlier point" in out and "the conversation as it was before:" in out
    kept = load_session_file(session_file(tmp_path))
    assert [message_text_of(m) for m in kept.messages] == ["append X to notes.txt", "done: append X to notes.txt"]
    assert not kept.warnings, kept.warnings
    [boundary] = kept.boundaries  # what the session held, the cut reply with it, is in the archive
    archived = Path(boundary.archive).read_text()
    assert "half of an answer" in archived and "the provider's reply was cut off here" in archived


async def test_another_message_after_a_cut_reply_still_goes_after_it(tmp_path):
    state, server = cut_until_told()
    with server:
        await drive(tmp_path, None, ["append X to notes.txt\r", "go on\r"], server=server,
                    at_prompt=mended_at_second_prompt(state), settings=NO_RETRIES)
    texts = said(server.requests[-1])
    assert len(texts) == 3 and texts[0] == "append X to notes.txt" and texts[2] == "go on", texts
    assert texts[1].startswith(HALF[:40].strip()) and CUT_MARK in texts[1], texts
    assert not load_session_file(session_file(tmp_path)).boundaries  # appended to, never rewritten


@pytest.mark.parametrize("text", ["Let me look at the notes first.", None], ids=["after-text", "calls-only"])
async def test_a_reply_cut_inside_a_tool_call_is_retried_with_every_call_answered(tmp_path, text):
    """The cut comes inside a tool call's arguments (after some text, or in a reply of calls only):
    the text is saved, the calls are not, and the retry runs the calls of the whole reply with their
    results."""
    (tmp_path / "project").mkdir()
    (tmp_path / "project" / "notes.txt").write_text("alpha\n")
    state: dict[str, bool] = {}

    def responder(req: ChatRequest) -> Reply:
        if not any(m.get("role") == "tool" for m in req.messages):
            more = [] if text else [("grep", {"pattern": "alpha"})]  # so that the cut is inside the second's
            return Reply.tools([("read_file", {"path": "notes.txt"}), ("glob", {"pattern": "*.txt"}), *more],
                               content=text)
        return Reply.text("read it")

    state, server = cut_until_told(responder)
    with server:
        run = await drive(tmp_path, None, ["read notes.txt\r", "read notes.txt\r"], server=server,
                          at_prompt=mended_at_second_prompt(state), settings=NO_RETRIES)
    out = " ".join(run.out.split())
    assert "send it again (↑ Enter) to retry" in out, run.out
    first, *retried = server.requests
    assert said(first) == ["read notes.txt"]
    assert len(retried) == 2, [said(r) for r in retried]
    assert said(retried[0]) == ["read notes.txt"], retried[0].messages  # no half answer, the prompt once
    assert said(retried[1])[:1] == ["read notes.txt"] and said(retried[1]).count("read notes.txt") == 1
    assert all(every_call_answered(r) for r in server.requests), [r.messages for r in server.requests]
    kept = load_session_file(session_file(tmp_path))
    assert not any(CUT_MARK in message_text_of(m) for m in kept.messages)
    assert message_text_of(kept.messages[-1]) == "read it"


def test_continue_with_the_same_prompt_after_a_cut_reply_retries_the_turn(tmp_path):
    state, server = cut_until_told()
    cwd = tmp_path / "project"
    cwd.mkdir()

    def opts(**more: Any) -> SessionOptions:
        return SessionOptions(cwd=cwd, model="fake-model", base_url=server.base_url, api_key="k",
                              permission_mode="yes", home=tmp_path / "home", settings=NO_RETRIES, **more)

    with server:
        assert asyncio.run(run_print(opts(), "append X to notes.txt")) == 1
        cut = load_session_file(session_file(tmp_path)).messages
        assert CUT_MARK in message_text_of(cut[-1])  # the half answer print mode streamed was saved
        state["cut"] = False
        assert asyncio.run(run_print(opts(continue_last=True), "append X to notes.txt")) == 0
        assert said(server.requests[-1]) == ["append X to notes.txt"], server.requests[-1].messages
        assert asyncio.run(run_print(opts(continue_last=True), "and Y")) == 0
    assert said(server.requests[-1]) == ["append X to notes.txt", "done: append X to notes.txt", "and Y"]
    assert not load_session_file(session_file(tmp_path)).warnings  # no prompt left typed and unanswered


def message_text_of(m: Any) -> str:
    return "".join(str(getattr(p, "content", "")) for p in m.parts)


async def test_a_reply_cut_after_the_tools_ran_goes_on_from_what_they_did(tmp_path):
    """Cut in the request that carries a tool's result: the line says to go on (the same message
    would run the tools again), and 'go on' sends every call with its result, then the cut text."""
    (tmp_path / "project").mkdir()
    (tmp_path / "project" / "notes.txt").write_text("alpha\n")
    state = {"cut": False}

    def responder(req: ChatRequest) -> Reply:
        if not any(m.get("role") == "tool" for m in req.messages):
            return Reply.tools([("read_file", {"path": "notes.txt"})])
        return Reply.text(HALF if state["cut"] else "went on")

    def faults(req: ChatRequest, attempt: int) -> Fault | None:
        return CLOSED if state["cut"] and any(m.get("role") == "tool" for m in req.messages) else None

    prompts = iter(range(10))

    def at_prompt() -> None:
        state["cut"] = next(prompts) == 0

    with FakeOpenAIServer(responder, faults=faults) as server:
        run = await drive(tmp_path, None, ["read notes.txt\r", "go on\r"], server=server, at_prompt=at_prompt,
                          settings=NO_RETRIES)
    out = " ".join(run.out.split())
    assert "send 'go on' to continue from there (the same message again would run them again)" in out, run.out
    last = server.requests[-1]
    texts = said(last)
    assert texts[0] == "read notes.txt" and CUT_MARK in texts[-2] and texts[-1] == "go on", texts
    assert all(every_call_answered(r) for r in server.requests), [r.messages for r in server.requests]
    assert "went on" in run.out
