"""A /compact refused as freeing too little names what it would keep: the parts must add up to the
whole, each as the provider counts it. The newest message was measured with characters/4 of the
reasoning the provider leaves out of its count while the whole was not: 'your messages and the
files changed -167, the newest message 323' of a context whose messages came to 17."""

from __future__ import annotations

from pathlib import Path

from compact_agent.agent.run.options import SessionOptions
from compact_agent.agent.run.runner import AgentSession
from compact_agent.context import NotSmaller
from tests.e2e.scripted import is_summary_request
from tests.fakes.openai_server import ChatRequest, FakeOpenAIServer, Reply

REASONING = "Weighing what the user wants before answering. " * 55  # about 650 tokens, not counted


def answer(req: ChatRequest) -> Reply:
    if is_summary_request(req):
        return Reply.text("<summary>We talked.</summary>")
    if req.messages[-1]["role"] == "tool":
        return Reply.text("Noted.", reasoning_content=REASONING)
    return Reply.tools([("read_file", {"path": "notes.txt"})], reasoning_content=REASONING)


async def test_the_parts_of_a_refusal_add_up_as_the_provider_counts_them(tmp_path: Path) -> None:
    (tmp_path / "notes.txt").write_text("remember the plan\n")
    with FakeOpenAIServer(answer) as server:
        s = AgentSession(SessionOptions(cwd=tmp_path, model="fake-model", base_url=server.base_url, api_key="k",
                                        context_window=16_000, home=tmp_path / "home"))
        try:
            for k in range(4):
                await s.run_turn(f"point {k}: " + "the plan " * 200)
            assert s.cm.calibration.current_thinking_counted is False  # the fake counts none of it
            refused = None
            for _ in range(4):  # compact until what is left is too little to compact
                try:
                    await s.compact()
                except NotSmaller as e:
                    refused = e
                    break
            assert refused is not None and refused.parts
            parts = refused.parts
            assert min(parts["summary"], parts["verbatim"], parts["fixed"]) >= 0, parts
            assert parts["summary"] + parts["verbatim"] + parts["fixed"] == refused.after
            assert parts["verbatim"] < 100  # the newest message, 'Noted.', its reasoning left out
        finally:
            s.close()
