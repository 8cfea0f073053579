"""`/compact --up-to N` and `--from N` that could not free a meaningful amount are refused before
their summary is asked for, by the rule a whole /compact follows (small_gain.py `LEAST_FREED`):
a `--up-to 1` right after a `--from 0` paid for a summary request to free 37 tokens of 1,374.
One that can free enough still asks for its summary."""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from pathlib import Path

import pytest

from compact_agent.agent.run.runner import AgentSession
from compact_agent.agent.run.small_gain import LEAST_FREED
from compact_agent.context import NotSmaller
from tests.e2e.scripted import is_notes_request, is_summary_request
from tests.fakes.openai_server import ChatRequest, FakeOpenAIServer, Reply
from tests.reliability.common import session


def model(req: ChatRequest) -> Reply:
    if is_summary_request(req):
        return Reply.text("<summary>1. Primary Request and Intent: short questions, short answers.</summary>")
    if is_notes_request(req):
        return Reply.text("")
    return Reply.text("ok " * 400 if "long" in req.last_user_text() else "ok")


@asynccontextmanager
async def after_turns(tmp_path: Path, answer: Callable[[ChatRequest], Reply], *prompts: str
                      ) -> AsyncIterator[tuple[AgentSession, FakeOpenAIServer]]:
    """A session in a 32K window, its turns `prompts` answered by `answer` (the fake OpenAI server)."""
    with FakeOpenAIServer(answer) as server:
        s = session(tmp_path / "home", tmp_path / "project", server, window=32_000)
        try:
            for prompt in prompts:
                await s.run_turn(prompt)
            yield s, server
        finally:
            await s.aclose()


def summaries(server: FakeOpenAIServer) -> int:
    return sum(is_summary_request(r) for r in server.requests)


@pytest.mark.parametrize(("pivot", "direction"), [(1, "up_to"), (2, "up_to"), (6, "up_to"), (0, "from")])
async def test_a_partial_compaction_that_frees_too_little_asks_for_no_summary(
        tmp_path: Path, pivot: int, direction: str) -> None:
    async with after_turns(tmp_path, model, "hi", "and again", "once more") as (s, server):
        messages, asked = list(s.messages), summaries(server)
        with pytest.raises(NotSmaller, match="would free at most") as refused:
            await s.compact(pivot=pivot, direction=direction)
        assert refused.value.unasked and refused.value.before - refused.value.after < LEAST_FREED
        assert summaries(server) == asked  # refused before the summary request
        assert s.messages == messages


async def test_the_same_after_a_compaction_from_the_start(tmp_path: Path) -> None:
    async with after_turns(tmp_path, model, "say something long", "say more, long", "thanks") as (s, server):
        await s.compact(pivot=0, direction="from")  # worth it: the long answers go
        asked = summaries(server)
        with pytest.raises(NotSmaller, match="would free at most"):
            await s.compact(pivot=1, direction="up_to")  # the summary alone: nothing to free
        assert summaries(server) == asked


async def test_a_partial_compaction_that_can_free_enough_still_asks(tmp_path: Path) -> None:
    async with after_turns(tmp_path, model, "say something long", "say more, long", "thanks") as (s, server):
        result = await s.compact(pivot=4, direction="up_to")
        assert summaries(server) == 1 and result.tokens_before - result.tokens_after >= LEAST_FREED


def long_last_answer(req: ChatRequest) -> Reply:
    if is_summary_request(req) or is_notes_request(req):
        return model(req)
    return Reply.text("word " * 3000 if "long" in req.last_user_text() else "ok")


async def test_up_to_at_its_last_number_is_judged_as_the_compaction_splits_it(tmp_path: Path) -> None:
    """`--up-to` at the last message keeps the last answer verbatim (the compaction moves the pivot):
    the check before the summary must split the conversation the same way. Judged with the long last
    answer summarised, it asked for the summary, and the compaction was then refused as not smaller."""
    async with after_turns(tmp_path, long_last_answer, "hi", "and again", "say something long") as (s, server):
        messages, asked = list(s.messages), summaries(server)
        with pytest.raises(NotSmaller, match="would free at most"):
            await s.compact(pivot=len(s.messages), direction="up_to")
        assert summaries(server) == asked  # refused before its summary request
        assert s.messages == messages
