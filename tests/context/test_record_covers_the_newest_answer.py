"""A compaction that keeps a record written without a model covers what the schedule priced, up to
the newest request, also when the previous request's answer came in since.

A summary request is the request last sent with the instruction appended (a cache hit), so what
came after that request — the newest answer — is kept verbatim: the summary cannot say it. A record
asks no model, yet it was cut there too. In an 8K window, four short reads and then a 3,750-token
answer, the next message crossed the threshold; the schedule priced a compaction that would free
the answer, and the record kept it whole: 'compacted (auto, record written without a model):
5,591 → 5,577 tokens', the cached prefix thrown away for 14 tokens.
"""

from __future__ import annotations

from pydantic_ai import Agent
from pydantic_ai.messages import (
    ModelMessage,
    ModelRequest,
    ModelResponse,
    TextPart,
    ToolCallPart,
    UserPromptPart,
)
from pydantic_ai.models.function import AgentInfo, FunctionModel
from pydantic_ai.usage import RequestUsage

from compact_agent.context import ContextManager, Prices
from compact_agent.context.plumbing import tokens

SYSTEM = "You are a careful assistant. " * 150  # 4,350 characters: about 1,090 tokens, as an agent's prompt
ANSWER = "the ordinary words of a long answer, said at length. " * 320  # 16,960 characters: 4,240 tokens
HELLO = "\n".join(f'print("hello, world number {i}")' for i in range(30))


def asked(messages: list[ModelMessage]) -> str:
    last = messages[-1]
    return next((p.content for p in last.parts if isinstance(p, UserPromptPart) and isinstance(p.content, str)), "")


async def test_a_record_frees_the_newest_answer_the_schedule_priced_it_without() -> None:
    cm = ContextManager(window=8_000, max_output=2_000, prices=Prices(known=False))

    def model(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        # The provider's count: characters/4 of what was sent, as the estimate counts it.
        usage = RequestUsage(input_tokens=tokens.estimate(messages) + tokens.text_tokens(SYSTEM))
        ask = asked(messages)
        if "read" in ask:
            return ModelResponse(parts=[ToolCallPart("read_file", {"path": "hello.py"})], usage=usage)
        text = "read it" if not ask else ANSWER if ask == "say big things" else "more things."
        usage.output_tokens = tokens.text_tokens(text)
        return ModelResponse(parts=[TextPart(text)], usage=usage)

    agent = Agent(FunctionModel(model), instructions=SYSTEM, capabilities=[cm])

    @agent.tool_plain
    def read_file(path: str) -> str:
        """Read a file."""
        return HELLO

    history: list[ModelMessage] = []
    for prompt in ["please read hello.py"] * 4 + ["say big things", "say more"]:
        history = (await agent.run(prompt, message_history=history)).all_messages()

    assert len(cm.compactions) == 1, [(c.tokens_before, c.tokens_after) for c in cm.compactions]
    compaction = cm.compactions[0]
    assert compaction.strategy == "record"
    assert compaction.event.detail["reason"] == "threshold"  # under the hard limit: the request would fit
    # The answer (4,240 tokens) is what it frees: the request it leaves holds the prompt, the record and
    # the newest message. Cut where a summary request's would be, it kept the answer and freed 239 (5,760 → 5,521).
    assert compaction.tokens_before > 5_200 > compaction.tokens_after + 3_500, (compaction.tokens_before,
                                                                                compaction.tokens_after)
    assert not any(isinstance(p, TextPart) and p.content == ANSWER for m in compaction.messages
                   if isinstance(m, ModelResponse) for p in m.parts)
    last = compaction.messages[-1]  # the record's message, joined with the newest request
    assert isinstance(last, ModelRequest) and isinstance(last.parts[-1], UserPromptPart)
    assert last.parts[-1].content == "say more"
