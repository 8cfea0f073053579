"""An answer longer than a small summary model's window is cut to fit its summary request.

A summary request over its room loses its oldest rounds, and one round left still over it has its
longest texts cut to their ends. Only the user's texts and tool results were cut: a round whose
answer alone was longer than a summary model's own, smaller window was sent whole, refused by the
size check, and the compaction failed with "the summary request would take N tokens of the summary
model's 4,000-token window ... not sent". The answer is now cut as a long tool result is, keeping its
beginning and end; a call's arguments are never cut. The room is what that window leaves once a
quarter of it for the summary, the estimate's margin and the summary's instruction are kept free.
The opening question is dropped, so the program's note that the earlier conversation was left out
goes first, in that room too (a request may not begin with the model's answer), and the question is
quoted in the prompt, as the typed messages of every round left out are, in that room as well.
"""

from __future__ import annotations

from pydantic_ai.messages import ModelMessage, ModelRequest, ModelResponse, TextPart, UserPromptPart
from pydantic_ai.models.function import AgentInfo, FunctionModel
from pydantic_ai.profiles import ModelProfile

from compact_agent.context import CompactionSettings, ContextManager
from compact_agent.context.compaction.cuts import LEFT_OUT
from compact_agent.context.compaction.summary import MIDDLE_MARK
from compact_agent.context.compaction.summary_prompt import compact_prompt, typed_block, with_typed
from compact_agent.context.plumbing import tokens

ANSWER = "HEAD " + "y" * 20_000 + " TAIL"  # 20,010 characters: 5,003 tokens, 5,007 with its message's 4
INSTRUCTION = tokens.text_tokens(compact_prompt("", "full"))  # 644 tokens as written now
NOTE = tokens.estimate([ModelRequest(parts=[UserPromptPart(LEFT_OUT)])])  # 29 tokens as written now
QUOTE = tokens.text_tokens(with_typed(compact_prompt("", "full"), typed_block(["Explain the module."]))) - INSTRUCTION
"""The question quoted in the prompt, its round left out: 45 tokens as written now."""


def summary_model(window: int, sent: list[list[ModelMessage]]) -> FunctionModel:
    def summarize(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        sent.append(messages)
        return ModelResponse(parts=[TextPart("<summary>The module was explained.</summary>")])
    return FunctionModel(summarize, profile=ModelProfile(context_window=window))


async def answer_sent(window: int) -> str:
    """The answer as the summary request to a summary model of `window` carried it."""
    sent: list[list[ModelMessage]] = []
    cm = ContextManager(window=32_000, summary_model=summary_model(window, sent),
                        settings=CompactionSettings(compaction_records=False))  # max_output 8,192: reserve 8,000
    history: list[ModelMessage] = [ModelRequest(parts=[UserPromptPart("Explain the module.")]),
                                   ModelResponse(parts=[TextPart(ANSWER)]),
                                   ModelRequest(parts=[UserPromptPart("Thanks.")])]
    compacted = await cm.compact_now(history)
    assert len(sent) == 1 and len(compacted) == 1  # the summary and the user's words, in one message
    first = sent[0][0]
    assert isinstance(first, ModelRequest) and len(first.parts) == 1  # the note first, not the answer
    assert isinstance(first.parts[0], UserPromptPart) and first.parts[0].content == LEFT_OUT
    answer, = (p for m in sent[0] if isinstance(m, ModelResponse) for p in m.parts)
    assert isinstance(answer, TextPart) and MIDDLE_MARK in answer.content
    assert answer.content.startswith("HEAD y") and answer.content.endswith("y TAIL")
    return answer.content


async def test_an_answer_longer_than_the_summary_models_window_is_cut_to_its_ends() -> None:
    # Room for the messages: 4,000 less a quarter for the summary (1,000), 2% margin (80) and the
    # instruction (644) = 2,276. The opening question, a round of its own, goes first, as the
    # oldest, and is quoted (45); the note (29), the answer (5,007) and "Thanks." (4 + 2) are
    # 5,042, 2,811 over with the quote: the answer loses 2,811 x 4 characters, and the mark's 93:
    # 8,673 are left.
    over = NOTE + 5_013 + QUOTE - (4_000 - 1_000 - 80 - INSTRUCTION)
    assert len(await answer_sent(4_000)) == 20_010 - over * 4 - 93


async def test_a_summary_model_whose_quarter_cannot_hold_the_instruction_is_sent_what_fits() -> None:
    """A quarter of a 2,000-token window (500) is less than the summary's instruction (644): the
    messages were given the room the quarter and the margin left (1,460), and the request, the
    instruction on top, was too long to be sent. Now: 2,000 - 500 - 40 - 644 = 816, 4,271 over
    with the note and the question quoted, and 2,833 characters of the answer are left."""
    over = NOTE + 5_013 + QUOTE - (2_000 - 500 - 40 - INSTRUCTION)
    assert len(await answer_sent(2_000)) == 20_010 - over * 4 - 93
