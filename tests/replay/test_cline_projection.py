"""Cline's basic compaction brings what it kept within the messages' trigger as Cline's budget projection
does (budget-projection/project.ts, run by basic-compaction.ts with the trigger as its ceiling): the
texts of all but the latest typed message are cut, newest first, then messages go oldest first, never
the first or the latest typed one. A long session whose typed messages (and the notices on them) pass
the trigger is brought back under it when a new typed message arrives, instead of growing without end."""

from __future__ import annotations

from pydantic_ai.messages import (
    ModelRequest,
    ModelResponse,
    TextPart,
    ToolCallPart,
    ToolReturnPart,
    UserPromptPart,
)

from compact_agent.replay import cline
from compact_agent.replay.cline import Cline
from compact_agent.replay.sizing import TokenModel

from ._helpers import assert_valid_conversation
from .synthetic import sim

WINDOW = 10_000  # trigger 0.81 x: 8,100 tokens, and no overhead: the messages' trigger too


def typed(text: str) -> ModelRequest:
    return ModelRequest(parts=[UserPromptPart(text)])


def answer(text: str) -> ModelResponse:
    return ModelResponse(parts=[TextPart(text)])


def read(n: int, chars: int) -> list[ModelRequest | ModelResponse]:
    call = ToolCallPart("Read", {"file_path": f"/src/f{n}.py"}, tool_call_id=f"c{n}")
    return [ModelResponse(parts=[call]), ModelRequest(parts=[ToolReturnPart("Read", "r" * chars, tool_call_id=f"c{n}")])]


def texts_of(m: ModelRequest | ModelResponse) -> list[str]:
    return [p.content for p in m.parts if isinstance(p, (UserPromptPart, TextPart)) and isinstance(p.content, str)]


async def test_an_older_typed_message_past_the_trigger_is_cut_to_bring_the_request_under_it():
    big = "the first task, spelled out at length. " + "x" * 40_000  # ~10K tokens: past the trigger alone
    history = [typed(big), answer("done with the first"), typed("now the second task"), *read(1, 4_000)]
    s = sim(WINDOW)
    c = Cline(s)
    assert s.tm.request(history) > c.trigger
    step = await c.step(history, s)
    assert step.compacted
    assert_valid_conversation(step.view)
    assert s.tm.request(step.view) <= c.trigger  # as it was, ~10K: the first message kept whole, over the window
    said = [t for m in step.view if isinstance(m, ModelRequest) for t in texts_of(m)]
    first = next(t for t in said if t.startswith("the first task"))
    # its head, marked as cut: 8,100 tokens x 4 characters / the 2 messages kept (the typed ones)
    assert first.endswith(" chars]") and "\n...[truncated " in first and len(first) == 16_200
    assert "now the second task" in said  # the latest typed message is never cut


async def test_the_latest_typed_message_is_not_cut_even_past_the_trigger():
    big = "the only task. " + "y" * 40_000
    history = [typed(big), *read(1, 4_000), *read(2, 4_000)]
    s = sim(WINDOW)
    step = await Cline(s).step(history, s)
    assert step.compacted
    said = [t for m in step.view if isinstance(m, ModelRequest) for t in texts_of(m)]
    assert big in said  # Cline protects it: the request stays past the window (counted as over)
    assert s.tm.request(step.view) > WINDOW


async def test_with_no_room_for_messages_all_but_the_first_and_latest_typed_go():
    # The overhead takes the whole trigger (as Claude Code's ~26K does at a 32K window): the messages'
    # trigger is 1 token, so older texts keep 16 characters and every message that may go, goes.
    history = [typed("first task " + "a" * 400), answer("answer one " + "b" * 400),
               typed("second task " + "c" * 400), answer("answer two " + "d" * 400),
               typed("third task " + "e" * 400), *read(1, 2_000)]
    s = sim(WINDOW, TokenModel(overhead=9_000))
    c = Cline(s)
    step = await c.step(history, s)
    assert step.compacted
    assert_valid_conversation(step.view)
    said = [t for m in step.view for t in texts_of(m) if not t.startswith(cline.NOTICE_START)]
    assert said == ["first task aaaaa", "third task " + "e" * 400]  # 16 characters; the latest whole
    assert not any(isinstance(m, ModelResponse) for m in step.view)  # the answers went
