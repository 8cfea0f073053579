"""An agent (pydantic-ai's FunctionModel, `provider`) with a `ContextManager` that runs the tests,
fixes the failing one it names and runs them again, then reads three long pages: the first run's
`FAILED` output is a result the model reached back into, and the padding moves both runs out of the
verbatim tail. `fix_then_read(cm)` gives the history of the three prompts."""

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

from compact_agent.context import ContextManager
from compact_agent.context.testing import reply_to_library_request

FAILED = "FAILED tests/test_parse.py::test_parse_empty - ValueError\n1 failed, 4 passed"
PASSED = "5 passed in 0.12s"
PROMPTS = ("Run the tests.", "Fix it.", "Read the pages.")


def _prompt(messages: list[ModelMessage]) -> str:
    for m in reversed(messages):
        if isinstance(m, ModelRequest):
            for p in m.parts:
                if isinstance(p, UserPromptPart) and isinstance(p.content, str):
                    return p.content
    return ""


def _since_prompt(messages: list[ModelMessage]) -> list[str]:
    """The tools called since the user's latest message."""
    names: list[str] = []
    for m in reversed(messages):
        if isinstance(m, ModelRequest) and any(isinstance(p, UserPromptPart) for p in m.parts):
            break
        if isinstance(m, ModelResponse):
            names += [p.tool_name for p in m.parts if isinstance(p, ToolCallPart)]
    return names[::-1]


def provider(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
    if (reply := reply_to_library_request(messages, "Fixing the failing parser test.")) is not None:
        return reply
    prompt, done = _prompt(messages), _since_prompt(messages)
    if prompt.startswith("Run the tests"):
        return ModelResponse(parts=[ToolCallPart("run_tests", {})] if not done else [TextPart("One test fails.")])
    if prompt.startswith("Fix it"):  # names the failing test (a reach back into the first run), fixes it, runs again
        if not done:
            return ModelResponse(parts=[TextPart("I will fix test_parse_empty in src/parse.py."),
                                        ToolCallPart("fix", {})])
        if done == ["fix"]:
            return ModelResponse(parts=[ToolCallPart("run_tests", {})])
        return ModelResponse(parts=[TextPart("All tests pass now.")])
    if len(done) < 3:  # padding that moves the test runs out of the verbatim tail
        return ModelResponse(parts=[ToolCallPart("read", {"page": len(done) + 1})])
    return ModelResponse(parts=[TextPart("Read them.")])


async def fix_then_read(cm: ContextManager) -> list[ModelMessage]:
    """The history of `Agent(FunctionModel(provider), capabilities=[cm])` after the three prompts."""
    agent = Agent(FunctionModel(provider), capabilities=[cm])
    state = {"fixed": False}

    @agent.tool_plain
    def run_tests() -> str:
        return PASSED if state["fixed"] else FAILED

    @agent.tool_plain
    def fix() -> str:
        state["fixed"] = True
        return "Edited src/parse.py."

    @agent.tool_plain
    def read(page: int) -> str:
        return f"page {page}: " + "word " * 1_500

    history: list[ModelMessage] = []
    for prompt in PROMPTS:
        history = (await agent.run(prompt, message_history=history)).all_messages()
    return history
