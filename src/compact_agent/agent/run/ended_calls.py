"""What a turn that ends while the model's tool calls run saves of itself: the model's last answer
and, for each tool call in it, a result. It ends so by a SIGTERM or SIGHUP, or by the user (Esc or
Ctrl-C in the REPL, Ctrl-C in print mode, or the reader of print mode's output closing the pipe:
`-p ... | head -1`, pipes.py).

The history is saved before each model request and when the turn ends; the answer that asked for
tools is saved with their results, before the next request. A run ended while they ran (`kill`, a
closed terminal window during a `sleep` in bash) ended at once (stop_signals.py) and lost that
answer: the next run warned that the user's message "got no answer before the last run ended",
though the model had answered, and the call was in no history. A turn the user stopped went back to
what was saved (turn.py) and lost it the same way: the next message went on as if the model had
never answered, and `-c` said the turn "was stopped by you before an answer". Now the answer is
saved, with the result of each call that had finished and, for each that had not, one that says the
run ended (or the user stopped the turn) before it finished: its command killed with it
(agent/tools/shell_groups.py for a signal; the tool itself for Esc and Ctrl-C). Every call saved has
its result, as a provider requires, and the next turn goes on from there, saying why
(session/last_run.py reads the mark, `ENDED_BY`: the signal's name, or `BY_USER`).
"""

from __future__ import annotations

from collections.abc import Sequence
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
from ...session.last_run import BY_USER, ENDED_BY, NEVER_RAN, STARTED, UNFINISHED, cut_by_signal
from ..tools.shell import MAY_RUN
from .unfinished import signalled_close

#: The result of a call that had not finished when the run ended; the model reads it.
NOT_FINISHED = "[compact-agent was ended by {signal} before this call finished{more}]"
#: The result of a call that had not finished when the user stopped the turn (Esc, Ctrl-C).
STOPPED = "[stopped by the user before this call finished{more}]"
#: For bash: the call may have been waiting for approval, its command not started.
KILLED = ": its command, if it had started, was killed with the processes it started"
#: For bash past its approval (`MAY_RUN` marked): its command had started.
KILLED_STARTED = ": its command was killed with the processes it started"
#: For bash stopped at its approval question: its command never ran.
NOT_RUN = ": its command did not run (it was waiting for approval)"


class EndedCalls(AbstractCapability[Any]):
    """Add to an Agent's capabilities: it keeps the run's history and its last answer, and the
    results of the tool calls of that answer as they finish, for `unsaved`."""

    def __init__(self) -> None:
        self.history: list[ModelMessage] | None = None  # the run's own list (it grows)
        self.answer: ModelResponse | None = None
        self.results: dict[str, Any] = {}  # by tool call id, the calls of `answer` that finished
        self.may_run: dict[str, list[bool]] = {}  # by tool call id: marked once its command was approved (bash)
        self.asking: list[ModelMessage] | None = None  # the run's own list, from its first request on

    def forget(self) -> None:
        """A new turn: nothing of the last one is kept."""
        self.history, self.answer, self.results, self.may_run, self.asking = None, None, {}, {}, None

    async def before_model_request(self, ctx: RunContext[Any], request_context: ModelRequestContext
                                   ) -> ModelRequestContext:
        self.asking = ctx.messages
        return request_context

    def unanswered(self, signal: str, partial: Sequence[str] = ()) -> list[ModelMessage] | None:
        """The run's history closed where `signal` ended it while a request was out (the user's
        message, or the results of the model's calls) and some of the reply had come (`partial`):
        that text kept as cut off by the signal (`signalled_close`). None before any request, when
        the history does not end at one, or when no text came (`asked`: the run marks the request)."""
        if not self.asking or (close := signalled_close(self.asking, signal, partial)) is None \
                or not cut_by_signal(close):
            return None
        return [*self.asking, close]

    def asked(self) -> bool:
        """Whether the run's history ends at a request: one was being made (or was out) when asked."""
        return self.asking is not None and bool(self.asking) and isinstance(self.asking[-1], ModelRequest)

    def out(self) -> bool:
        """Whether a request was out when the run ended (sent, its usage never came): the history ends
        at it (`asked`: a signal's line is said before the run unwinds), or, once Ctrl-C unwound the
        run, at the reply the run recorded for the request it stopped (pydantic-ai's "interrupted")."""
        last = self.asking[-1] if self.asking else None
        return self.asked() or isinstance(last, ModelResponse) and last.state in ("interrupted", "suspended")

    async def after_model_request(self, ctx: RunContext[Any], *, request_context: ModelRequestContext,
                                  response: ModelResponse) -> ModelResponse:
        self.history, self.answer, self.results, self.may_run = ctx.messages, response, {}, {}
        return response

    async def wrap_tool_execute(self, ctx: RunContext[Any], *, call: ToolCallPart, tool_def: ToolDefinition,
                                args: ValidatedToolArgs, handler: WrapToolExecuteHandler) -> Any:
        mark = self.may_run[call.tool_call_id] = []
        token = MAY_RUN.set(mark)
        try:
            result = await handler(args)
        finally:
            MAY_RUN.reset(token)
        self.results[call.tool_call_id] = result
        return result

    def unsaved(self, by: str) -> list[ModelMessage] | None:
        """The run's history with its last answer and, for its tool calls, a request that holds a
        result for each (`by` ended the run: a signal's name, or `BY_USER`); None before the turn's
        first answer, and once something followed that answer (the results of its calls, which the
        next request saves)."""
        if self.history is None or self.answer is None:
            return None
        messages = list(self.history)
        at = next((i for i, m in enumerate(messages) if m is self.answer), None)
        if at is None:  # not yet in the run's history
            messages.append(self.answer)
        elif messages[at + 1:] and not _collected(messages[at + 1:]):
            return None
        else:  # what a cancelled run collected of the results (not all): they are in ours
            del messages[at + 1:]
        if calls := [p for p in self.answer.parts if isinstance(p, ToolCallPart)]:
            messages.append(ModelRequest(parts=[self._result(c, by) for c in calls]))
        return messages

    def _result(self, call: ToolCallPart, by: str) -> ToolReturnPart:
        mark: dict[str, Any] = {ENDED_BY: by}
        if call.tool_call_id in self.results:
            done = self.results[call.tool_call_id]
            if isinstance(done, ToolReturn):
                meta: dict[str, Any] = done.metadata if isinstance(done.metadata, dict) else {}
                own: dict[str, Any] = meta[KEY] if isinstance(meta.get(KEY), dict) else {}
                return ToolReturnPart(call.tool_name, done.return_value, tool_call_id=call.tool_call_id,
                                      metadata={**meta, KEY: {**own, **mark}})
            return ToolReturnPart(call.tool_name, done, tool_call_id=call.tool_call_id, metadata={KEY: mark})
        waited = call.tool_call_id in self.may_run and not self.may_run[call.tool_call_id]  # at its approval
        started = bool(self.may_run.get(call.tool_call_id)) and call.tool_name == "bash"  # past it
        more = (NOT_RUN if waited else KILLED_STARTED if started else KILLED) if call.tool_name == "bash" else ""
        text = STOPPED.format(more=more) if by == BY_USER else NOT_FINISHED.format(signal=by, more=more)
        never_ran = waited and call.tool_name == "bash"
        own = {**mark, UNFINISHED: True, **({NEVER_RAN: True} if never_ran else {}), **({STARTED: True} if started else {})}
        # Like a timed-out command (tools/base.py Killed, NotRun): it says nothing of what the call
        # returns, and a compaction keeps the run before it that the model was using.
        tool = {"error": True, "ran": False} if never_ran else {"error": True, "finished": False}
        return ToolReturnPart(call.tool_name, text, tool_call_id=call.tool_call_id,
                              metadata={KEY: {**own, "tool": tool}})


def _collected(after: list[ModelMessage]) -> bool:
    """Whether `after`, what follows the answer in the run's history, is the request pydantic-ai
    leaves when the run is cancelled while the tools run (Esc, Ctrl-C): only the results of the
    calls that had finished, marked `interrupted`, never sent. Saved as it is, a call would be
    without its result."""
    return len(after) == 1 and isinstance(after[0], ModelRequest) and after[0].state == "interrupted"
