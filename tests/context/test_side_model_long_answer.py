"""An answer longer than a small summary model's window is cut to fit its summary request.

A summary request over its room loses its oldest rounds, and one round left still over it has its
longest texts cut to their ends. Only the user's texts and tool results were cut: a round whose
answer alone was longer than a summary model's own, smaller window was sent whole, refused by the
size check, and the compaction failed with "the summary request would take N tokens of the summary
model's 4,000-token window ... not sent". The answer is now cut as a long tool result is, keeping its
beginning and end; a call's arguments are never cut.
"""

from __future__ import annotations

from pydantic_ai.messages import ModelMessage, ModelRequest, ModelResponse, TextPart, UserPromptPart
from pydantic_ai.models.function import AgentInfo, FunctionModel
from pydantic_ai.profiles import ModelProfile

from compact_agent.context import CompactionSettings, ContextManager
from compact_agent.context.compaction.summary import MIDDLE_MARK

ANSWER = "HEAD " + "y" * 20_000 + " TAIL"  # 20,010 characters: 5,003 tokens, 5,007 with its message's 4


async def test_an_answer_longer_than_the_summary_models_window_is_cut_to_its_ends() -> None:
    sent: list[list[ModelMessage]] = []

    def summarize(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        sent.append(messages)
        return ModelResponse(parts=[TextPart("<summary>The module was explained.</summary>")])

    small = FunctionModel(summarize, profile=ModelProfile(context_window=4_000))
    cm = ContextManager(window=32_000, summary_model=small, settings=CompactionSettings(compaction_records=False))
    history: list[ModelMessage] = [ModelRequest(parts=[UserPromptPart("Explain the module.")]),
                                   ModelResponse(parts=[TextPart(ANSWER)]),
                                   ModelRequest(parts=[UserPromptPart("Thanks.")])]
    compacted = await cm.compact_now(history)

    assert len(sent) == 1 and len(compacted) == 1  # the summary and the user's words, in one message
    # Room for the messages: 4,000 less a quarter for the summary (1,000) and 2% margin (80) = 2,920.
    # The opening question, a round of its own, goes first, as the oldest; the answer (5,007) and
    # "Thanks." (4 + 2) are 5,013, 2,093 over: the answer loses 2,093 x 4 characters, and the mark's 93.
    answer, = (p for m in sent[0] if isinstance(m, ModelResponse) for p in m.parts)
    assert isinstance(answer, TextPart) and len(answer.content) == 20_010 - 2_093 * 4 - 93 == 11_545
    assert answer.content.startswith("HEAD y") and answer.content.endswith("y TAIL")
    assert MIDDLE_MARK in answer.content
