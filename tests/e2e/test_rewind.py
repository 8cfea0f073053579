"""`/rewind` and the prompts after an interrupted turn: nothing typed is lost, nothing rewound stays.

An interrupted (or failed, or killed) turn leaves the history ending in the user's prompt. The
next prompt must still be saved, and the positions `/rewind` truncates to must still be right.
"""

from __future__ import annotations

import asyncio
from pathlib import Path

from compact_agent.agent.run.options import SessionOptions
from compact_agent.agent.run.runner import AgentSession
from compact_agent.session.store import SessionStore, load_session_file
from tests.fakes.openai_server import ChatRequest, FakeOpenAIServer, Reply, message_text


def prompts(messages: list) -> list[str]:
    return [p.content for m in messages for p in m.parts if p.part_kind == "user-prompt"]


def responder(req: ChatRequest) -> Reply:
    users = [message_text(m) for m in req.messages if m.get("role") == "user"]
    last = req.messages[-1]
    if last.get("role") == "user" and "edit" in message_text(last):
        return Reply.tools([("read_file", {"path": "hello.txt"})])
    if last.get("role") == "tool" and "original" in message_text(last):
        return Reply.tools([("edit_file", {"path": "hello.txt", "old_string": "original", "new_string": "edited"})])
    if last.get("role") == "user" and "first" in message_text(last):
        return Reply.tools([("bash", {"command": "echo hi"})])
    return Reply.text("ok: " + " | ".join(users))


async def test_rewind_after_an_interrupted_turn(tmp_path: Path) -> None:
    """Interrupted at the permission prompt, then `go`, then `now edit hello` (approved), then
    `/rewind 2`: the file and the conversation are back to before the edit turn, and both prompts
    typed afterwards are in the session file and in the next request."""
    cwd = tmp_path / "p"
    cwd.mkdir()
    (cwd / "hello.txt").write_text("original\n")
    loop = asyncio.get_running_loop()
    current: dict[str, asyncio.Future] = {}
    asked: list[str] = []

    def ask(tool: str, detail: str) -> str:
        asked.append(tool)
        if len(asked) == 1:  # Ctrl-C at the prompt, then Enter: refused, and the turn is cancelled
            loop.call_soon(current["task"].cancel)
            return "deny"
        return "once"

    with FakeOpenAIServer(responder) as server:
        s = AgentSession(SessionOptions(cwd=cwd, model="fake-model", base_url=server.base_url, api_key="k",
                                        permission_mode="ask", ask=ask, home=tmp_path / "h"))

        async def turn(prompt: str) -> str | None:
            current["task"] = task = asyncio.ensure_future(s.run_turn(prompt))
            try:
                return (await task).output
            except asyncio.CancelledError:
                return None

        assert await turn("first") is None
        assert await turn("go") == "ok: first | go"
        assert (await turn("now edit hello") or "").startswith("ok:")
        assert (cwd / "hello.txt").read_text() == "edited\n"
        assert [c.prompt for c in s.checkpoints.list()] == ["first", "go", "now edit hello"]
        s.rewind(2)
        assert (cwd / "hello.txt").read_text() == "original\n"
        assert prompts(s.messages) == ["first", "go"]
        assert await turn("after one") == "ok: first | go | after one"
        assert await turn("after two") == "ok: first | go | after one | after two"
        s.close()
    assert prompts(load_session_file(s.store.path).messages) == ["first", "go", "after one", "after two"]
    assert not server.rejected


async def test_a_prompt_after_a_killed_turn_is_saved(tmp_path: Path) -> None:
    """A session whose last saved message is a prompt (the process died before the answer): the
    next prompt is saved too, not merged into the old request in memory only."""
    cwd = tmp_path / "p"
    cwd.mkdir()
    with FakeOpenAIServer(responder) as server:
        opts = SessionOptions(cwd=cwd, model="fake-model", base_url=server.base_url, api_key="k",
                              permission_mode="yes", home=tmp_path / "h")
        s = AgentSession(opts)
        assert (await s.run_turn("one")).output == "ok: one"
        s.close()
        from pydantic_ai.messages import ModelRequest, UserPromptPart

        SessionStore(s.store.root, s.session_id).append([ModelRequest(parts=[UserPromptPart("two")])])
        opts.continue_last = True
        again = AgentSession(opts)
        assert (await again.run_turn("three")).output == "ok: one | two | three"
        assert (await again.run_turn("four")).output == "ok: one | two | three | four"
        again.close()
    assert prompts(load_session_file(s.store.path).messages) == ["one", "two", "three", "four"]
