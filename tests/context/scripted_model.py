"""A FunctionModel that plays a script of steps and answers the library's own requests: the model
the tests of a tool's content (ToolReturn) build their agents on.

`scripted(seen, summary, step)`: each request of the agent's is recorded in `seen` and answered by
`step(n)` (n counts them from 1: the parts of that response); a summary or notes request of the
library's gets `summary`. Every response reports the request's size, a quarter of its characters
plus 150, as a provider would."""

from __future__ import annotations

from collections.abc import Callable, Sequence

from pydantic_ai.messages import ModelMessage, ModelRequest, ModelResponse, ModelResponsePart, UserPromptPart
from pydantic_ai.models.function import AgentInfo, FunctionModel
from pydantic_ai.usage import RequestUsage

from compact_agent.context.testing import library_request, reply_to_library_request


def size(messages: list[ModelMessage]) -> int:
    return sum(len(str(getattr(p, "content", "") or getattr(p, "args", ""))) for m in messages for p in m.parts) // 4


def scripted(seen: list[list[ModelMessage]], summary: str,
             step: Callable[[int], Sequence[ModelResponsePart]]) -> FunctionModel:
    count = {"n": 0}

    def answer(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        usage = RequestUsage(input_tokens=size(messages) + 150, output_tokens=20)
        if library_request(messages) is not None:
            reply = reply_to_library_request(messages, summary, usage=usage)
            assert reply is not None
            return reply
        seen.append(list(messages))
        count["n"] += 1
        return ModelResponse(parts=list(step(count["n"])), usage=usage)

    return FunctionModel(answer)


def request_texts(messages: list[ModelMessage]) -> list[str]:
    """The text of every user-role part the requests hold, the tools' content among them."""
    return [p.content for m in messages if isinstance(m, ModelRequest) for p in m.parts
            if isinstance(p, UserPromptPart) and isinstance(p.content, str)]
