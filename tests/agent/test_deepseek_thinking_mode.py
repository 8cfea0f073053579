"""A DeepSeek thinking-mode session whose requests go over the window by the model's reasoning still
gets its answers, against a server that refuses what DeepSeek refuses: an assistant message with tool
calls sent back without its `reasoning_content` (400 "The `reasoning_content` in the thinking mode must
be passed back to the API.").

A request over the hard limit only by the model's thinking went without all of it (thinking_out.py),
the reasoning of the tool calls too; through `--base-url` (pydantic-ai's 'auto' mode) no
`reasoning_content` was then sent at all, and every later request of the session was refused. Now,
for a model that asks for it back (deepseek-reasoner, deepseek-v4-*, deepseek-flash), the reasoning
of the calls stays where the request fits with it, and is sent empty only where nothing else fits.
"""

from __future__ import annotations

from pathlib import Path

from compact_agent.agent.run.options import SessionOptions
from compact_agent.agent.run.runner import AgentSession
from compact_agent.context import Event
from tests.context.test_thinking_left_out_before_compacting import responder
from tests.fakes.openai_server import ChatRequest, FakeOpenAIServer, Reply

MODEL = "deepseek-v4-flash"
STEP_THOUGHT = "list the python files first " * 140  # 3,920 characters: ~1,000 tokens
LONG_THOUGHT = "consider the file then check " * 1_035  # 30,015 characters: ~7,500 tokens of an 8,000 window


def session(tmp_path: Path, server: FakeOpenAIServer, events: list[Event]) -> AgentSession:
    return AgentSession(SessionOptions(cwd=tmp_path, model=MODEL, base_url=server.base_url, api_key="k",
                                       context_window=8_000, home=tmp_path / "home", permission_mode="yes"),
                        on_event=events.append)


def calls_sent_back(server: FakeOpenAIServer) -> list[str | None]:
    """The `reasoning_content` of every assistant message with tool calls the requests sent back."""
    return [m.get("reasoning_content") for r in server.requests for m in r.messages
            if m.get("role") == "assistant" and m.get("tool_calls")]


def a_step_then_a_long_answer(req: ChatRequest) -> Reply:
    if "second" in req.last_user_text():
        return Reply.text("Second answer.", reasoning_content="short")
    if not any(m.get("role") == "tool" for m in req.messages):
        return Reply.tools([("glob", {"pattern": "*.py"})], reasoning_content=STEP_THOUGHT)
    return Reply.text("There is a.py.", reasoning_content=LONG_THOUGHT)


async def test_the_reasoning_of_the_calls_is_sent_back_where_the_answers_going_makes_room(tmp_path: Path) -> None:
    """The second turn's request is over the hard limit by the first answer's reasoning: that goes, the
    step's reasoning is sent back whole, and no compaction comes."""
    (tmp_path / "a.py").write_text("x = 1\n")
    events: list[Event] = []
    with FakeOpenAIServer(a_step_then_a_long_answer, window=8_000, model=MODEL, thinking_mode=True) as server:
        s = session(tmp_path, server, events)
        try:
            first = await s.run_turn("look at the files")
            second = await s.run_turn("a second question")
        finally:
            s.close()
    assert not server.rejected, [body for _, _, body in server.rejected]
    assert (first.output, second.output) == ("There is a.py.", "Second answer.")
    assert not s.cm.compactions and len(server.requests) == 3
    last = server.requests[-1].messages
    assert [m.get("reasoning_content") for m in last if m.get("role") == "assistant"] == [STEP_THOUGHT, None]
    shrinks = [e for e in events if (e.layer, e.action) == ("budget", "shrink")]
    assert [e.detail["thinking_left_out"] for e in shrinks] == [1]


async def test_steps_whose_reasoning_fills_the_window_still_get_answers(tmp_path: Path) -> None:
    """No request fits with a step's reasoning: it goes out empty, never missing, and both turns are
    answered."""
    (tmp_path / "a.py").write_text("x = 1\n")
    events: list[Event] = []
    with FakeOpenAIServer(responder(), window=8_000, model=MODEL, thinking_mode=True) as server:
        s = session(tmp_path, server, events)
        try:
            first = await s.run_turn("think it over")
            second = await s.run_turn("a second question")
        finally:
            s.close()
    assert not server.rejected, [body for _, _, body in server.rejected]
    assert (first.output, second.output) == ("Done thinking.", "Short.")
    sent = calls_sent_back(server)
    assert sent and all(isinstance(r, str) for r in sent), sent
    assert all(r.prompt_tokens < 2_000 for r in server.requests), [r.prompt_tokens for r in server.requests]


async def test_the_model_says_whether_the_reasoning_is_asked_back_and_a_switch_follows(tmp_path: Path) -> None:
    """The manager learns it from the run's model at every request (thinking_out.asks_reasoning_back),
    so /model and another conversation's copy follow the model with nothing to carry."""
    from compact_agent.agent.run.model_switch import switch_model
    from compact_agent.context.decisions.thinking_out import asks_reasoning_back

    s = AgentSession(SessionOptions(cwd=tmp_path, model=MODEL, base_url="http://127.0.0.1:9/v1", api_key="k",
                                    home=tmp_path / "home"))
    try:
        assert asks_reasoning_back(s.model)
        await switch_model(s, "deepseek-chat", remember=False)  # DeepSeek's non-thinking mode
        assert not asks_reasoning_back(s.model)
        await switch_model(s, "deepseek-reasoner", remember=False)
        assert asks_reasoning_back(s.model)
    finally:
        s.close()


async def test_the_agents_own_tool_calls_go_out_with_the_field_too(tmp_path: Path) -> None:
    """An @-mention's read (and the files restored after a compaction) is a tool-call exchange of the
    agent's own, with no reasoning of the model's: through `--base-url` it went without
    `reasoning_content` and the first request was refused. DeepSeek's names there are now sent back
    their reasoning as pydantic-ai's DeepSeek provider sends it: the field on every tool-call message,
    empty where there is none. Another model served there is built as before."""
    from pydantic_ai.models.openai import OpenAIChatModel

    from compact_agent.models import build_model

    (tmp_path / "a.py").write_text("x = 1\n")

    def answer(req: ChatRequest) -> Reply:
        return Reply.text("Seen.", reasoning_content="look")

    with FakeOpenAIServer(answer, window=64_000, model=MODEL, thinking_mode=True) as server:
        s = AgentSession(SessionOptions(cwd=tmp_path, model=MODEL, base_url=server.base_url, api_key="k",
                                        context_window=64_000, home=tmp_path / "home", permission_mode="yes"))
        try:
            out = await s.run_turn("what is in @a.py")
            await s.run_turn("and the second?")
        finally:
            s.close()
    assert out.output == "Seen." and server.rejected == []
    assert calls_sent_back(server) == ["", ""]  # the mention's read, in both requests alike
    for name in ("qwen3-coder", "deepseek-chat", "deepseek/deepseek-v4-pro"):
        model = build_model(name, base_url="http://127.0.0.1:9/v1", api_key="k")
        assert isinstance(model, OpenAIChatModel)
        assert model.profile.get("openai_chat_send_back_thinking_parts", "auto") == "auto", name
