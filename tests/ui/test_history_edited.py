"""An edited history reads as what it is. A program using the library that asks for an answer again
(it runs the agent from the history before that answer: docs/library.md, "a regenerated answer, a
branch") rewrites the session under the trigger `history_changed`; opened in the terminal agent,
`/history` said `compaction (history_changed, replace)  0 → 0 tokens` above `the conversation before
it`, and `/status`, `/cost` and `/expand` counted it a compaction, in a session never compacted. Now
`/history` says the conversation went on from an earlier point, and nothing counts it."""

from __future__ import annotations

import re
from pathlib import Path

from pydantic_ai import Agent
from pydantic_ai.messages import ModelMessage, ModelResponse, TextPart
from pydantic_ai.models.function import AgentInfo, FunctionModel

from compact_agent.agent.run.options import session_root
from compact_agent.context import ContextManager
from compact_agent.session.files import new_session_id
from compact_agent.session.store import SessionStore, load_session_file
from tests.fakes.openai_server import Reply

from .repl_driver import drive


async def asked_again(cwd: Path, home: Path) -> Path:
    """The library's own use: a conversation in a session file of `cwd`, its second answer asked for again."""
    answers = iter(["first answer", "an answer", "another answer"])

    def model(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        return ModelResponse(parts=[TextPart(next(answers))])

    store = SessionStore(session_root(cwd, home), new_session_id())
    agent = Agent(FunctionModel(model), capabilities=[ContextManager(window=64_000, store=store)])
    first = await agent.run("hello")
    await agent.run("say something", message_history=first.all_messages())
    await agent.run("say something", message_history=first.all_messages())  # the answer, asked for again
    return store.path


async def test_history_says_the_conversation_went_on_from_an_earlier_point(tmp_path: Path) -> None:
    cwd, home = tmp_path / "project", tmp_path / "home"
    cwd.mkdir()
    path = await asked_again(cwd, home)
    assert [b.trigger for b in load_session_file(path).boundaries] == ["history_changed"]  # as the library writes it
    run = await drive(tmp_path, lambda req: Reply.text("ok"), ["/history\r", "/status\r", "/cost\r", "/expand\r"],
                      continue_last=True)
    out = " ".join(run.out.split())
    assert "compaction (" not in out and "0 → 0 tokens" not in out, run.out
    assert "the conversation went on from an earlier point (an answer asked for again, or a branch)" in out
    assert "the conversation as it was before:" in out and "no compactions yet" in out
    assert re.search(r"\d{2}:\d{2} the conversation went on", out), run.out  # its time, as a compaction's
    assert "compactions 0 in the whole session" in out, run.out  # /status
    assert "no tool calls in this session yet" in out, run.out  # /expand: not "since the last compaction"
    rows = [line.split(None, 2)[1:] for line in run.out.splitlines() if re.match(r"\s+\d+ (you|assistant) ", line)]
    assert rows == [["you", "hello"], ["assistant", "first answer"], ["you", "say something"],
                    ["assistant", "another answer"]], run.out
