"""An image is estimated at a flat 1,600 tokens (tokens.IMAGE_TOKENS), and a provider may count one far
lower: OpenAI's low detail at 85, Gemini at 258. In a session of 200K after eight turns of text counted
at 1.1x the estimate, a turn with one small screenshot grew the estimate by ~1,650 and the report by
~135: the silent-cut watch took the report for a server cutting the prompt, and learned the largest
report seen (11,152) as the window, which the agent keeps for every later session on that server and
model. The image's estimate is no growth a cut is judged by."""

from __future__ import annotations

import base64

from pydantic_ai import Agent, BinaryContent
from pydantic_ai.messages import ModelMessage, ModelResponse, TextPart
from pydantic_ai.models.function import AgentInfo, FunctionModel
from pydantic_ai.usage import RequestUsage

from compact_agent.context import ContextManager, Event

PNG = base64.b64decode("iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==")


def counted(messages: list[ModelMessage]) -> int:
    """A provider's count: text at 1.1 tokens per characters/4, an image at 85."""
    n = 20
    for m in messages:
        for p in m.parts:
            content = getattr(p, "content", "")
            for item in content if isinstance(content, list) else [content]:
                n += 85 if isinstance(item, BinaryContent) else int(len(str(item)) / 4 * 1.1)
    return n


def reply(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
    return ModelResponse(parts=[TextPart("ok " + "x" * 2_000)],
                         usage=RequestUsage(input_tokens=counted(messages), output_tokens=500))


async def test_an_image_turn_in_a_long_session_changes_no_window() -> None:
    events: list[Event] = []
    cm = ContextManager(window=200_000, event_handler=events.append)
    agent = Agent(FunctionModel(reply), capabilities=[cm])
    history: list[ModelMessage] = []
    for _ in range(8):
        history = (await agent.run("please look at this: " + "word " * 600, message_history=history)).all_messages()
    assert cm.window_learned is None and cm.calibration.cut_to() is None
    await agent.run(["what is in this screenshot?", BinaryContent(PNG, media_type="image/png")],
                    message_history=history)
    assert cm.calibration.cut_to() is None
    assert cm.window_learned is None and cm.limits.window == 200_000
    assert not [e for e in events if e.layer == "window" or (e.layer == "calibration" and e.action == "rejected")]
