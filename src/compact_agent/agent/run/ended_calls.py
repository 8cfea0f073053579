"""What a run ended by SIGTERM or SIGHUP saves of the turn it was in: the model's last answer and,
for each tool call in it, a result.

The history is saved before each model request and when the turn ends; the answer that asked for
tools is saved with their results, before the next request. A run ended while they ran (`kill`, a
closed terminal window during a `sleep` in bash) ended at once (stop_signals.py) and lost that
answer: the next run warned that the user's message "got no answer before the last run ended",
though the model had answered, and the call was in no history. Now the signal's handler saves the
answer, with the result of each call that had finished and, for each that had not, one that says the
run ended while it ran (its command killed with it: agent/tools/shell_groups.py). Every call saved
has its result, as a provider requires, and the next run goes on from there, saying why
(session/last_run.py reads the mark, `ENDED_BY`).
"""

from __future__ import annotations

from typing import Any

from pydantic_ai.capabilities import AbstractCapability
from pydantic_ai.capabilities.abstract import ValidatedToolArgs, WrapToolExecuteHandler
from pydantic_ai.messages import (
    ModelMessage,
    ModelRequest,
    ModelResponse,
    ToolCallPart,
    ToolReturn,
    ToolReturnPart,
)
from pydantic_ai.models import ModelRequestContext
from pydantic_ai.tools import RunContext, ToolDefinition

from ...context.plumbing.markers import KEY
from ...session.last_run import ENDED_BY, UNFINISHED

#: The result of a call that had not finished when the run ended; the model reads it.
NOT_FINISHED = "[compact-agent was ended by {signal} before this call finished{more}]"
#: For bash: the call may have been waiting for approval, its command not started.
KILLED = ": its command, if it had started, was killed with the processes it started"


class EndedCalls(AbstractCapability[Any]):
    """Add to an Agent's capabilities: it keeps the run's history and its last answer, and the
    results of the tool calls of that answer as they finish, for `unsaved`."""

    def __init__(self) -> None:
        self.history: list[ModelMessage] | None = None  # the run's own list (it grows)
        self.answer: ModelResponse | None = None
        self.results: dict[str, Any] = {}  # by tool call id, the calls of `answer` that finished

    def forget(self) -> None:
        """A new turn: nothing of the last one is kept."""
        self.history, self.answer, self.results = None, None, {}

    async def after_model_request(self, ctx: RunContext[Any], *, request_context: ModelRequestContext,
                                  response: ModelResponse) -> ModelResponse:
        self.history, self.answer, self.results = ctx.messages, response, {}
        return response

    async def wrap_tool_execute(self, ctx: RunContext[Any], *, call: ToolCallPart, tool_def: ToolDefinition,
                                args: ValidatedToolArgs, handler: WrapToolExecuteHandler) -> Any:
        result = await handler(args)
        self.results[call.tool_call_id] = result
        return result

    def unsaved(self, signal: str) -> list[ModelMessage] | None:
        """The run's history with its last answer and, for its tool calls, a request that holds a
        result for each (`signal` ended the run); None before the turn's first answer, and once
        something followed that answer (the results of its calls, which the next request saves)."""
        if self.history is None or self.answer is None:
            return None
        messages = list(self.history)
        at = next((i for i, m in enumerate(messages) if m is self.answer), None)
        if at is None:  # not yet in the run's history
            messages.append(self.answer)
        elif at < len(messages) - 1:
            return None
        if calls := [p for p in self.answer.parts if isinstance(p, ToolCallPart)]:
            messages.append(ModelRequest(parts=[self._result(c, signal) for c in calls]))
        return messages

    def _result(self, call: ToolCallPart, signal: str) -> ToolReturnPart:
        mark: dict[str, Any] = {ENDED_BY: signal}
        if call.tool_call_id in self.results:
            done = self.results[call.tool_call_id]
            if isinstance(done, ToolReturn):
                meta: dict[str, Any] = done.metadata if isinstance(done.metadata, dict) else {}
                own: dict[str, Any] = meta[KEY] if isinstance(meta.get(KEY), dict) else {}
                return ToolReturnPart(call.tool_name, done.return_value, tool_call_id=call.tool_call_id,
                                      metadata={**meta, KEY: {**own, **mark}})
            return ToolReturnPart(call.tool_name, done, tool_call_id=call.tool_call_id, metadata={KEY: mark})
        text = NOT_FINISHED.format(signal=signal, more=KILLED if call.tool_name == "bash" else "")
        return ToolReturnPart(call.tool_name, text, tool_call_id=call.tool_call_id,
                              metadata={KEY: {**mark, UNFINISHED: True, "tool": {"error": True}}})
