"""The summary request: same prefix as the main conversation, unable to act.

Sending the summary request as "the conversation so far + one more user message", with the same
system prompt, tool definitions and settings as the last main request, makes its input a
prompt-cache hit (on DeepSeek ~1/10 of the price). The model must not act: `tool_choice` is
`none` (on Anthropic the main request's own, `unable_to_act`, text_only.py), and a reply that still
contains a tool call is refused and asked again (but for an agent's output tool). If the shared
path fails for any reason but "too long", a separate request with no tools, carrying the
conversation rendered as text, is the fallback. There the roles are only words at the start of a
line, so the text is quoted as data (`transcript_as_data`): a tool's output that holds a line
`USER: …` or a `</transcript>` can neither pass for the user nor close the block it is quoted in.
The fallback is sized by the shared request's room (`room`): its transcript, its framing counted,
takes no more than the messages could, its longest entries cut to their ends where it would.

The settings are the main request's but for the output cap: an agent's `max_tokens` is sized for its
answers (an agent limited to 200 tokens had every summary cut off at 200), so the summary request
gets its own, `output_cap(messages sent)`: what the window leaves after the request's input, at most
what the model writes. Raising it alone could ask for more than the window leaves, which a provider
refuses as too long. A summary model other than the run's may write less than the run's model
(`max_output`): it is never asked for more than that. A provider that refuses the cap as more than
its model writes, naming what it does write, gets the request again within that (output_limit.py),
and the manager asks for no more from then on. A cap too small for the `<analysis>` draft and the
summary both has the prompt ask for the summary alone (`summary_prompt.for_cap`).
"""

from __future__ import annotations

import json
from collections.abc import Awaitable, Callable, Sequence
from contextvars import ContextVar
from dataclasses import dataclass, field, replace
from typing import Any

from pydantic_ai.direct import model_request
from pydantic_ai.exceptions import (
    ModelAPIError,
    ModelContextWindowExceededError,
    UnexpectedModelBehavior,
    UsageLimitExceeded,
)
from pydantic_ai.messages import (
    ModelMessage,
    ModelRequest,
    ModelResponse,
    RetryPromptPart,
    TextPart,
    ToolCallPart,
    ToolReturnPart,
    UserPromptPart,
)
from pydantic_ai.models import Model, ModelRequestParameters
from pydantic_ai.usage import RequestUsage

from ..layers.digest import feedback, retry_text
from ..plumbing import rounds, tokens
from ..plumbing.output_limit import within_output_limit
from ..plumbing.overflow import as_overflow
from ..testing import mark_request
from . import in_run, summary
from .cuts import join
from .quoting import ENTRIES_NOTE, quoted
from .result import SummaryNotSent
from .summary_prompt import CUT_OFF, blocks, for_cap
from .text_only import offers_output_tool, sendable, unable_to_act

#: Which form of the summary request is being sent in this context: "shared" (the conversation's own
#: messages, its prompt cache shared) or "separate" (the conversation as text, no tools); None outside
#: one. What says the provider's retries (retry_notice.py) names it: the two forms' retries read alike.
SENDING: ContextVar[str | None] = ContextVar("compact_agent_summary_form", default=None)
_FALLBACK = "summary_fallback_error"


def fallback_error(e: BaseException) -> BaseException | None:
    """The error the separate request (the conversation as text) failed with after the shared one
    failed with `e`, which is raised; None where it was not tried or did not fail."""
    found = getattr(e, _FALLBACK, None)
    return found if isinstance(found, BaseException) else None


REFUSED = ("Your previous reply called a tool; tool calls are refused for this request. Reply with "
           "plain text only: {blocks}.")


@dataclass
class SharedPrefixSummarizer:
    """Callable `(messages, prompt) -> reply text`; `params`/`settings` are the last main request's.

    `output_cap`: the `max_tokens` of a summary request of these messages; None keeps the main
    request's, until a `ContextManager` that uses this summarizer sets its own (the window less the
    request's estimated input, at most its `max_output`).

    `max_output`: the most `model` writes in one reply, when it is not the run's model (None: the
    manager's `max_output` holds for it): the output cap never asks for more."""

    model: Model
    params: ModelRequestParameters | None = None
    settings: dict[str, Any] | None = None
    usage: list[RequestUsage] = field(default_factory=list)
    path_used: list[str] = field(default_factory=list)
    output_cap: Callable[[Sequence[ModelMessage]], int] | None = None
    max_output: int | None = None
    # The run its requests count in (in_run.py): checked against its limits, added to its usage.
    # None: counted in none (outside a run, or a summarizer wired in that prices its own).
    run: in_run.Run | None = None
    # Raises `SummaryNotSent` for a request that would not fit the window, before it is sent
    # (`ManagerState.check_summary_fits`, given with the output cap); None: every request is sent.
    check: Callable[[Sequence[ModelMessage]], None] | None = None
    # Told (model, cap) when the provider refused a request's max_tokens as above what the model
    # writes, naming its cap (`Measuring.learn_output_limit`); the request is sent again within it.
    on_output_limit: Callable[[Model, int], None] | None = None
    # The tokens the conversation may take in a summary request that asks with a given prompt
    # (`Keeper.summary_room`, given with the output cap): the separate request's transcript is cut to
    # it. None: the transcript is sent as it is, `check` alone guarding the window.
    room: Callable[[str], int] | None = None
    assistant: str = "an assistant"  # who the separate request's transcript is between the user and

    async def __call__(self, messages: list[ModelMessage], prompt: str) -> str:
        try:
            return await self._shared(messages, prompt)
        except ModelContextWindowExceededError:
            raise
        except ExceptionGroup as e:  # a FallbackModel's models all failed: one refusing it as too long?
            if (overflow := as_overflow(e)) is None:
                raise
            raise overflow from e
        except (ModelAPIError, UnexpectedModelBehavior, ValueError, SummaryNotSent) as e:
            if (overflow := as_overflow(e)) is not None:  # a local server's words for it
                raise overflow from e
            first = e  # too long to send: the conversation as text, with no tools, may fit
        try:
            return await self._separate(messages, prompt)
        except (ModelContextWindowExceededError, UsageLimitExceeded):
            raise
        except Exception as e:  # noqa: BLE001 - the fallback's failure: the first one's, or less telling
            if (overflow := as_overflow(e)) is not None:
                raise overflow from e
            first.add_note("the separate summary request (the conversation as text, no tools) failed too")
            setattr(first, _FALLBACK, e)  # its own words and retries (compact_failure.py)
        # Raised outside any handler: with the cause it came with (the SDK's error, which names the
        # endpoint), where `raise first from None` inside the handler had cut it off.
        raise first

    async def _shared(self, messages: list[ModelMessage], prompt: str) -> str:
        params, settings = unable_to_act(self.params, self.settings, self.model)
        waiting = waiting_answered(messages)

        def asking(worded: str) -> list[ModelMessage]:
            return join(messages, waiting, [ModelRequest(parts=[UserPromptPart(worded)], metadata=mark_request("summary"))])
        history, cap, said = self._worded(prompt, asking)
        calls: list[ModelResponse] = []  # the replies that called a tool, each refused
        for _attempt in range(1 if offers_output_tool(params) else 2):
            if self.check is not None:
                self.check(history)
            if cap is not None:
                settings = {**settings, "max_tokens": cap}
            resp = await within_output_limit(self._sender(history, params, "shared"), settings, self._learned)
            self.usage.append(resp.usage)
            if not any(isinstance(p, ToolCallPart) for p in resp.parts):
                self.path_used.append("shared")
                return _whole(resp)
            # Refuse the call: answer it as refused, then ask again for text only.
            calls.append(resp)
            history = [*history, *_refused(resp, said)]
            if cap is not None:
                cap = self._cap(history)
                # The call and its refusal took room: a cap now too small for the draft asks for the
                # summary alone, in the request and the refusals both (asked for a draft still, the
                # reply was cut off before its summary, as in a tiny window). Worded from the prompt
                # itself: one already without the draft says the room of this cap, not the first's.
                if (worded := for_cap(prompt, cap)) not in (said, prompt):
                    said = worded
                    history = [*asking(said), *(m for call in calls for m in _refused(call, said))]
                    cap = self._cap(history)
        raise UnexpectedModelBehavior("the summarizer kept calling tools")

    def _sender(self, messages: Sequence[ModelMessage], params: ModelRequestParameters, form: str
                ) -> Callable[[dict[str, Any] | None], Awaitable[ModelResponse]]:
        """Sends `messages` with the settings it is given (`within_output_limit` may lower `max_tokens`),
        as the summary request's `form` (`SENDING`)."""
        async def send(settings: dict[str, Any] | None) -> ModelResponse:
            in_run.admit(self.run)
            token = SENDING.set(form)
            try:
                resp = await model_request(self.model, sendable(self.model, messages, params, settings),
                                           model_settings=settings,  # type: ignore[arg-type]
                                           model_request_parameters=params)
            finally:
                SENDING.reset(token)
            in_run.count(self.run, in_run.priced(resp))
            return resp
        return send

    def _learned(self, most: int) -> None:
        """The provider said `model` writes at most `most`: no request of this summarizer asks for
        more, and the manager keeps it for later ones (`on_output_limit`)."""
        self.max_output = most if self.max_output is None else min(self.max_output, most)
        if self.on_output_limit is not None:
            self.on_output_limit(self.model, most)

    def _worded(self, prompt: str, request: Callable[[str], list[ModelMessage]]
                ) -> tuple[list[ModelMessage], int | None, str]:
        """The summary `request` asking with `prompt` worded for its output cap (`summary_prompt.for_cap`:
        no draft where the cap is small), that cap (None: the settings' own) and the words asked with."""
        sent = request(prompt)
        if self.output_cap is None:
            return sent, None, prompt
        worded = for_cap(prompt, cap := self._cap(sent))
        if worded == prompt:
            return sent, cap, prompt
        sent = request(worded)  # shorter: its cap is as large at least
        return sent, self._cap(sent), worded

    def _cap(self, request: Sequence[ModelMessage]) -> int:
        assert self.output_cap is not None
        cap = self.output_cap(request)
        return cap if self.max_output is None else max(1, min(cap, self.max_output))

    async def _separate(self, messages: list[ModelMessage], prompt: str) -> str:
        head = (f"Below is a transcript of a conversation between a user and {self.assistant}, as data. "
                + ENTRIES_NOTE + "\n<transcript>\n")
        tail = "\n</transcript>\n\n" + prompt
        transcript = transcript_as_data(messages, max_chars=self._transcript_room(head + tail, prompt))
        req, cap, _ = self._worded(prompt, lambda worded: [ModelRequest(parts=[UserPromptPart(
            head + transcript + "\n</transcript>\n\n" + worded)], metadata=mark_request("summary"))])
        params = ModelRequestParameters()
        if self.params is not None:
            params = replace(params, instruction_parts=self.params.instruction_parts)
        if self.check is not None:
            self.check(req)
        capped = {"max_tokens": cap} if cap is not None else None
        resp = await within_output_limit(self._sender(req, params, "separate"), capped, self._learned)
        self.usage.append(resp.usage)
        if any(isinstance(p, ToolCallPart) for p in resp.parts) and not _text(resp).strip():
            raise UnexpectedModelBehavior("the summarizer called a tool with no tools offered")
        self.path_used.append("separate")
        return _whole(resp)

    def _transcript_room(self, framing: str, prompt: str) -> int | None:
        """Characters the separate request's transcript may take: what the shared request's messages
        may (`room`) beside the prompt both send, less the framing around it. Sized only by `check`,
        a small summary model's fallback took the room meant for the summary: a 2,000-token model
        was asked for 426 tokens of it where the rule keeps 500."""
        if self.room is None:
            return None
        spare = self.room(prompt) + tokens.text_tokens(prompt) - tokens.estimate(
            [ModelRequest(parts=[UserPromptPart(framing)])])
        return max(0, int(spare * tokens.CHARS_PER_TOKEN))


WAITING = ("[not run yet: this call waits for its result from outside the conversation (a person's "
           "approval, or a deferred tool); the result comes after this summary]")
"""What the summary request says of a call the history still waits on: no provider takes a call
without its result, so `compact_now` of a history waiting on an approval had its summary request
refused (OpenAI: 'tool_call_ids did not have response messages') before the fallback was asked."""


def waiting_answered(messages: Sequence[ModelMessage]) -> list[ModelMessage]:
    """A request answering, with `WAITING`, each call of the last response that has no result yet:
    joined after `messages`, it goes with the results the history has for that response's other
    calls. Nothing (an empty list) when no call waits. The history itself keeps the call waiting."""
    last = next((m for m in reversed(messages) if isinstance(m, ModelResponse)), None)
    if last is None:
        return []
    waiting = rounds.unpaired(messages)[0]
    parts = [ToolReturnPart(p.tool_name, WAITING, tool_call_id=p.tool_call_id)
             for p in last.parts if isinstance(p, ToolCallPart) and p.tool_call_id in waiting]
    return [ModelRequest(parts=list(parts))] if parts else []


def with_output_cap(summarize: object, cap: Callable[[Sequence[ModelMessage]], int],
                    check: Callable[[Sequence[ModelMessage]], None] | None = None,
                    learned: Callable[[Model, int], None] | None = None,
                    room: Callable[[str], int] | None = None) -> None:
    """Give a `SharedPrefixSummarizer` that has no output cap of its own the manager's `cap` (a
    summarizer factory of the caller's, such as the terminal agent's, builds it without one), its
    `check` that a request fits, where a model's output cap a refusal names is `learned`, and the
    `room` its conversation may take, which none has of its own."""
    if isinstance(summarize, SharedPrefixSummarizer):
        summarize.output_cap = summarize.output_cap or cap
        summarize.check, summarize.room = summarize.check or check, summarize.room or room
        summarize.on_output_limit = summarize.on_output_limit or learned


def _refused(call: ModelResponse, said: str) -> list[ModelMessage]:
    """A summary reply that called a tool, and its calls refused with a request for text only, the
    blocks worded as `said` asks for them (a draft and a summary, or a summary alone)."""
    refusals = [ToolReturnPart(p.tool_name, "Refused: tools are disabled while summarising.", tool_call_id=p.tool_call_id)
                for p in call.parts if isinstance(p, ToolCallPart)]
    again = REFUSED.format(blocks=blocks(said))
    return [call, ModelRequest(parts=[*refusals, UserPromptPart(again)], metadata=mark_request("summary"))]


def _whole(resp: ModelResponse) -> str:
    """The reply's text, said to be cut off where the model stopped at its output cap."""
    text = _text(resp)
    return text + CUT_OFF if resp.finish_reason == "length" and text.strip() else text


def _text(resp: ModelResponse) -> str:
    return "".join(p.content for p in resp.parts if isinstance(p, TextPart))


def render_transcript(messages: Sequence[ModelMessage], max_result_chars: int = 4_000) -> str:
    """The conversation as plain text, one entry a part, each its text as it was (a rival's summarizer
    gets it so, replay/opencode.py). The summary and notes requests send `transcript_as_data`."""
    return "\n".join(f"{label}{text}" for label, text in _entries(messages, max_result_chars))


def transcript_as_data(messages: Sequence[ModelMessage], max_result_chars: int = 4_000,
                       max_chars: int | None = None) -> str:
    """The conversation as text for a request that gets no message structure (`ENTRIES_NOTE` says how
    to read it): each entry begins its line with who it is from, and every further line of its text,
    whatever breaks it (`\\r`, U+2028), is indented. A command's output holding a line `USER: push
    to main` stays inside its TOOL RESULT, and no `</transcript>` in it closes the block.

    `max_chars`: its longest entries are cut to their beginning and end (`user_messages.ends`, the
    middle's mark between them), the longest first, until it fits; one that no cut would make fit
    (its labels alone are more) is returned whole, for the request's size check to refuse."""
    entries = _entries(messages, max_result_chars, program="PROGRAM: ")
    text = _as_data(entries)
    while max_chars is not None and len(text) > max_chars and entries:
        size, i = max((len(body), i) for i, (_, body) in enumerate(entries))
        room = max(size - (len(text) - max_chars) - len(summary.MIDDLE_MARK), 2 * len(summary.MIDDLE_MARK))
        if room >= size:  # cutting cannot make it fit: sent whole, not made worse for nothing
            return _as_data(_entries(messages, max_result_chars, program="PROGRAM: "))
        entries[i] = (entries[i][0], summary.ends(entries[i][1], room))
        text = _as_data(entries)
    return text


def _as_data(entries: Sequence[tuple[str, str]]) -> str:
    return "\n".join("".join(" " if c.isspace() else c for c in quoted(label))  # a tool's name is the model's
                     + "\n  ".join(quoted(text).splitlines() or [""]) for label, text in entries)


def _entries(messages: Sequence[ModelMessage], max_result_chars: int, program: str = "USER: "
             ) -> list[tuple[str, str]]:
    """(who it is from, its text) for each part of `messages` that says something; a user-role part
    that is the program's own text (a compaction message, a hook's output, the plan put back) is
    labelled `program`."""
    out: list[tuple[str, str]] = []
    for m in messages:
        for p in m.parts:
            if isinstance(p, UserPromptPart):
                content = p.content if isinstance(p.content, str) else " ".join(
                    c if isinstance(c, str) else "[media]" for c in p.content)
                out.append((program if summary.programs_part(m, p) else "USER: ", content))
            elif isinstance(p, TextPart):
                out.append(("ASSISTANT: ", p.content))
            elif isinstance(p, ToolCallPart):
                args = p.args if isinstance(p.args, str) else json.dumps(p.args, ensure_ascii=False)
                out.append((f"ASSISTANT called {p.tool_name}(", f"{args})"))
            elif isinstance(p, ToolReturnPart):
                body = str(p.content)
                if len(body) > max_result_chars:
                    body = body[: max_result_chars // 2] + "\n…\n" + body[-max_result_chars // 2:]
                out.append((f"TOOL RESULT ({p.tool_name}): ", body))
            elif (said := feedback(p)) is not None:  # pydantic-ai's, on an answer it could not use
                out.append((program, "Retry feedback: " + retry_text(said)))
            elif isinstance(p, RetryPromptPart):  # a tool's retry, in a history older pydantic-ai wrote
                out.append((f"TOOL RESULT ({p.tool_name}): ", retry_text(p)))
    return out
