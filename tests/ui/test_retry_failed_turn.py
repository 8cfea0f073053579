"""Sending a failed message again retries its turn. After a request that failed (HTTP 500 after
retries, a dropped connection, a garbage reply) the error line said "send the message again to
retry", but the failed message already stayed in the conversation, closed by a "no answer" marker:
following the advice (Up, Enter) sent it twice, and the model read two copies (an "append X to the
file" was done twice). Now the very text of the unanswered message, sent again right after its
failed turn, sends that turn again: the conversation holds it once, with no close in between, in the
REPL and with `-c -p` alike; another message still goes after the unanswered one, as before."""

from __future__ import annotations

import asyncio
import re
from collections.abc import Callable

from compact_agent.agent.run.options import SessionOptions
from compact_agent.config import Settings
from compact_agent.session.loading import load_session_file
from compact_agent.ui.print_mode import run_print
from tests.fakes.openai_server import FakeOpenAIServer, Fault, Reply, message_text

from .repl_driver import drive

CLOSE = "[compact-agent: this turn ended before an answer"
NO_RETRIES = Settings(memory_enabled=False, max_retries=0, transient_retries=0)


def said(req) -> list[str]:
    """What the request carries of the conversation: the user's words and the replies."""
    return [message_text(m) for m in req.messages if m.get("role") in ("user", "assistant")]


def failing_until_told() -> tuple[dict[str, bool], FakeOpenAIServer]:
    state = {"down": True}

    def faults(req, attempt):
        return Fault.http(500) if state["down"] else None

    return state, FakeOpenAIServer(lambda req: Reply.text(f"done: {req.last_user_text()}"), faults=faults)


def back_at_second_prompt(state: dict[str, bool]) -> Callable[[], None]:
    """The REPL's `at_prompt`: the provider is back once the second prompt is up (the message is
    sent again, or another one follows it)."""
    prompts = iter(range(10))

    def at_prompt() -> None:
        if next(prompts) == 1:
            state["down"] = False

    return at_prompt


async def test_the_repl_sends_a_failed_message_again_as_a_retry_of_its_turn(tmp_path):
    state, server = failing_until_told()
    at_prompt = back_at_second_prompt(state)

    with server:
        run = await drive(tmp_path, None, ["append X to notes.txt\r", "append X to notes.txt\r", "/history\r"],
                          server=server, at_prompt=at_prompt, settings=NO_RETRIES)
    assert "the session is saved with your message: send it again (↑ Enter) to retry" in " ".join(run.out.split())
    answered = server.requests[-1]
    assert said(answered) == ["append X to notes.txt"], answered.messages
    history = run.out[run.out.index("messages (the numbers"):]
    rows = [" ".join(line.split()[1:]) for line in history.splitlines() if re.match(r"\s+\d+ ", line)]
    assert rows == ["you append X to notes.txt", "assistant done: append X to notes.txt"], history
    [path] = (tmp_path / "home" / "projects").glob("*/*.jsonl")
    kept = load_session_file(path)
    assert [message_text_of(m) for m in kept.messages] == ["append X to notes.txt", "done: append X to notes.txt"]
    assert not kept.warnings and not kept.boundaries, kept.warnings  # appended to, never rewritten


async def test_another_message_after_a_failed_one_still_goes_after_it(tmp_path):
    state, server = failing_until_told()
    at_prompt = back_at_second_prompt(state)

    with server:
        await drive(tmp_path, None, ["append X to notes.txt\r", "and Y too\r"], server=server,
                    at_prompt=at_prompt, settings=NO_RETRIES)
    texts = said(server.requests[-1])
    assert texts[0] == "append X to notes.txt" and texts[1].startswith(CLOSE) and texts[2] == "and Y too", texts


def test_continue_with_the_same_prompt_retries_the_failed_turn(tmp_path):
    state, server = failing_until_told()
    cwd = tmp_path / "project"
    cwd.mkdir()

    def opts(**more) -> SessionOptions:
        return SessionOptions(cwd=cwd, model="fake-model", base_url=server.base_url, api_key="k",
                              permission_mode="yes", home=tmp_path / "home", settings=NO_RETRIES, **more)

    with server:
        assert asyncio.run(run_print(opts(), "append X to notes.txt")) == 1
        state["down"] = False
        assert asyncio.run(run_print(opts(continue_last=True), "append X to notes.txt")) == 0
        assert said(server.requests[-1]) == ["append X to notes.txt"], server.requests[-1].messages
        assert asyncio.run(run_print(opts(continue_last=True), "and Y")) == 0
    assert said(server.requests[-1]) == ["append X to notes.txt", "done: append X to notes.txt", "and Y"]
    [path] = (tmp_path / "home" / "projects").glob("*/*.jsonl")
    assert not any("unanswered" in w for w in load_session_file(path).warnings)


def message_text_of(m) -> str:
    return "".join(str(getattr(p, "content", "")) for p in m.parts)


async def test_a_turn_that_failed_after_its_tools_ran_is_not_offered_as_a_retry(tmp_path):
    """The request carrying a tool's result failed: the line said 'send it again (↑ Enter) to
    retry', and doing so ran the turn's tools again (an `echo X >> log.txt` appended twice). It now
    says to go on from what the tools did, and that the same message again would run them again."""
    (tmp_path / "project").mkdir()
    (tmp_path / "project" / "notes.txt").write_text("alpha\n")
    state = {"down": False}

    def responder(req):
        if not any(m.get("role") == "tool" for m in req.messages):
            return Reply.tools([("read_file", {"path": "notes.txt"})])
        return Reply.text("read it")

    def faults(req, attempt):
        carries_result = any(m.get("role") == "tool" for m in req.messages)
        return Fault.http(500) if carries_result and state["down"] else None

    state["down"] = True
    with FakeOpenAIServer(responder, faults=faults) as server:
        run = await drive(tmp_path, None, ["read notes.txt\r"], server=server, settings=NO_RETRIES)
    line = " ".join(run.out.split())
    assert "send 'go on' to continue from there (the same message again would run them again)" in line, run.out
    assert "send it again (↑ Enter) to retry" not in line


async def test_rewind_lists_a_retried_message_once(tmp_path):
    """The retry goes on in its turn's checkpoint: /rewind listed the message twice, once for each
    attempt, the first of them a turn that was never in the conversation."""
    state, server = failing_until_told()
    at_prompt = back_at_second_prompt(state)

    with server:
        run = await drive(tmp_path, None, ["append X to notes.txt\r", "append X to notes.txt\r", "/rewind\r"],
                          server=server, at_prompt=at_prompt, settings=NO_RETRIES)
    listed = [line for line in run.out.splitlines() if re.match(r"\s+\d+ ", line)]
    assert len(listed) == 1 and "append X to notes.txt" in listed[0], run.out
