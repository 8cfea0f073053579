"""A summary request sized short where the provider counts none of the model's thinking.

The OpenAI-compatible fake, like a server that leaves the `reasoning_content` sent back out of the
prompt, counts none of the thinking, not even that of the turn under way. The calibration was told
only whether the earlier turns' thinking counted and took the turn under way's as counted: every
request in the middle of a turn was measured with thinking the provider did not count, so the ratio
learned was far too low (0.51 where the fake counts about 0.94 of our estimate). Main requests,
measured with that thinking, came out about right; a summary request, whose instruction starts a
turn of its own so that all thinking is earlier and left out, was measured hundreds of tokens
short, and its `max_tokens` took the window past its end: "you requested 4,439 tokens" of 4,000
(at 8,000, five summary requests in 200 were refused so, each retried with fewer rounds). The
calibration now learns whether the turn under way's thinking is counted too
(`Calibration.current_thinking_counted`), and sizes leave it out where not."""

from __future__ import annotations

from pydantic_ai import Agent
from pydantic_ai.messages import ModelMessage
from pydantic_ai.models.openai import OpenAIChatModel
from pydantic_ai.providers.openai import OpenAIProvider

from compact_agent.context import ContextManager
from compact_agent.context.plumbing.tokens import Calibration
from tests.fakes.openai_server import ChatRequest, FakeOpenAIServer, Reply

WINDOW = 4_000
THINKING = "Which page answers this, and what do I already know of it? " * 20  # 1,200 characters, 300 tokens


def two_reads_a_turn(req: ChatRequest) -> Reply:
    if "<summary>" in req.last_user_text():
        return Reply.text("<summary>Pages read so far.</summary>", reasoning_content=THINKING)
    turn = max(i for i, m in enumerate(req.messages) if m.get("role") == "user")
    if sum(1 for m in req.messages[turn:] if m.get("role") == "tool") < 2:
        return Reply.tools([("read", {"page": req.index})], reasoning_content=THINKING)
    return Reply.text("Read them.", reasoning_content=THINKING)


async def test_a_summary_request_fits_the_window_where_no_thinking_is_counted() -> None:
    with FakeOpenAIServer(two_reads_a_turn, window=WINDOW) as server:
        model = OpenAIChatModel("fake-model", provider=OpenAIProvider(base_url=server.base_url, api_key="k"))
        cm = ContextManager(window=WINDOW)
        agent = Agent(model, capabilities=[cm], instructions="Read what you are asked to.")

        @agent.tool_plain
        def read(page: int) -> str:
            return f"page {page}: " + " ".join(f"w{page}x{i}" for i in range(60))
        history: list[ModelMessage] = []
        for turn in range(4):
            history = (await agent.run(f"Read the next pages ({turn}).", message_history=history)).all_messages()
        await cm.compact_now(history)
    assert cm.calibration.thinking_counted is False and cm.calibration.current_thinking_counted is False
    summary = server.requests[-1]
    assert "<analysis>" in summary.last_user_text()
    assert summary.prompt_tokens + summary.body["max_completion_tokens"] <= WINDOW
    assert server.rejected == []  # was the summary request: 4,439 tokens asked of 4,000


def test_a_step_whose_thinking_was_not_counted_says_the_turns_own_is_not() -> None:
    c = Calibration()
    c.observe(1_000, 1_000)
    # A step of the turn: our estimate grew by 700, of which 300 is the step's thinking.
    c.observe(1_400, 1_700, unsure=300, earlier=0)
    assert c.current_thinking_counted is False and c.thinking_counted is False  # none of it, then
    assert c.counted(1_700, 0, 300) == 1_400 and c.last_report() == (1_400, 1_400)
    assert c.kept_report() == (1_400, 1_700, 0, 300)


def test_a_step_whose_thinking_was_counted_leaves_the_earlier_undecided() -> None:
    c = Calibration()
    c.observe(1_000, 1_000)
    c.observe(1_700, 1_700, unsure=300, earlier=0)
    assert c.current_thinking_counted is True and c.thinking_counted is None
    # The next turn's start moves the 300 among the earlier, which this provider drops.
    c.observe(1_600, 1_900, unsure=300, earlier=300)
    assert c.thinking_counted is False and c.current_thinking_counted is True


def test_what_a_session_kept_of_the_turns_own_thinking_comes_back() -> None:
    c = Calibration()
    c.recall_report([1_400, 1_700, 0, 300], {"earlier": False, "current": False, "votes": 2})
    assert c.current_thinking_counted is False and c.last_report() == (1_400, 1_400)
    for bad in ([1_400, 1_700, 0, -1], [1_400, 1_700, 1_000, 800], [1_400, 1_700, 0, True]):
        wrong = Calibration()
        wrong.recall_report(bad, {"earlier": None, "current": "no", "votes": 1})
        assert wrong.last_report() is None and wrong.current_thinking_counted is None
