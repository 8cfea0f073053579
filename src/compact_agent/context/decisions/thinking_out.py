"""What of the model's thinking a request leaves out, and when (the last resort's step 4, and before it).

The model's earlier reasoning is what a request can most often do without: `without_thinking` leaves it
out of a view. A request over the hard limit only by that thinking goes without it where that brings it
under the threshold (`thinking_over_limit`), and the next requests leave it out before the view layers
shape them (`thinking_held_out`) while the view with it would be over the threshold
(`thinking_still_out`; saved with the layers' decisions), until a compaction or rewind makes room.

Where the provider asks for the reasoning of the model's tool calls back (`reasoning_asked_back`, as the
run's model says: `asks_reasoning_back`; DeepSeek's thinking mode, which refuses a request whose
assistant message with tool calls lacks its `reasoning_content`, 400 "must be passed back to the API"),
none of these leaves that out: only the reasoning of answers without calls goes. The last resort empties it (`reasoning_emptied`) only where
nothing else but folding the steps fits; a compaction removes those responses altogether.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping

from pydantic_ai.messages import ModelMessage, ModelResponse, ThinkingPart, ToolCallPart

from ..plumbing import tokens
from .view import ShrinkView

__all__ = ["asks_reasoning_back", "named_to_ask_reasoning_back", "reasoning_emptied", "thinking_held_out",
           "thinking_over_limit", "thinking_still_out", "without_thinking"]

#: pydantic-ai's word for it in a model's profile (its DeepSeek provider's: "DeepSeek 400s on a thinking
#: request whose current-turn tool call lacks `reasoning_content`").
REQUIRES_FIELD = "openai_chat_thinking_requires_field_on_tool_calls"


def named_to_ask_reasoning_back(name: str) -> bool:
    """DeepSeek's thinking models by their name: deepseek-reasoner, deepseek-flash and the deepseek-v4
    models (pydantic-ai's DeepSeek profile has them think by default), at DeepSeek or a server that
    serves them by that name (`OpenAIProvider(base_url=...)`, a router's `deepseek/deepseek-v4-pro`).
    deepseek-chat is DeepSeek's non-thinking mode."""
    base = name.rsplit("/", 1)[-1].lower()
    return base == "deepseek-reasoner" or base.startswith(("deepseek-v4", "deepseek-flash"))


def _said(profile: object, key: str) -> object:
    return profile.get(key) if isinstance(profile, Mapping) else getattr(profile, key, None)


def _request_thinks(profile: object, settings: Mapping[str, object], params: object) -> bool:
    """Whether the request thinks, as pydantic-ai's OpenAI chat model judges it (`reasoning_active`): an
    explicit `openai_reasoning_effort`, else the `thinking` setting, else the model's default."""
    effort = settings.get("openai_reasoning_effort")
    if effort is not None:
        return effort != "none"
    thinking = getattr(params, "thinking", None)
    if thinking is None:
        thinking = settings.get("thinking")
    always = _said(profile, "thinking_always_enabled") is True
    if thinking is not None:
        return thinking is not False or always
    return always or _said(profile, "thinking_enabled_by_default") is True


def asks_reasoning_back(model: object, settings: Mapping[str, object] | None = None,
                        params: object = None) -> bool:
    """Whether the run's model refuses a request in which a response that made tool calls comes without
    its reasoning (`reasoning_asked_back`): its name is one of DeepSeek's thinking models (which a plain
    `OpenAIProvider(base_url=...)` gives no profile saying so), or its profile says so (pydantic-ai's
    DeepSeek provider's, or a profile given to the model) and the request thinks (the model's default,
    or the run's `thinking` / `openai_reasoning_effort` in `settings` and `params`, the request's
    `ModelRequestParameters`): DeepSeek's provider sets it for every name, deepseek-chat's too, whose
    requests do not think unless asked to. A `FallbackModel` asks for it where any of its models does
    (any may serve the request); it has no profile of its own (reading it raises), and a profile that
    cannot be read says nothing."""
    models = getattr(model, "models", None)
    if isinstance(models, list | tuple) and models:
        return any(asks_reasoning_back(m, settings, params) for m in models)
    try:
        profile = getattr(model, "profile", None)
    except Exception:  # FallbackModel's, or a wrapper's around one: NotImplementedError
        profile = None
    name = getattr(model, "model_name", None)
    wrapped = getattr(model, "wrapped", None)  # a WrapperModel (InstrumentedModel...) around a FallbackModel
    return ((isinstance(name, str) and named_to_ask_reasoning_back(name))
            or (_said(profile, REQUIRES_FIELD) is True and _request_thinks(profile, settings or {}, params))
            or (wrapped is not None and wrapped is not model and asks_reasoning_back(wrapped, settings, params)))


def without_thinking(view: list[ModelMessage], provider: str, upto: int | None = None, *,
                     calls_keep: bool = False) -> tuple[list[ModelMessage], int]:
    """`view` without the model's earlier thinking (step 4), and how many responses gave theirs up:
    every response's (before `upto` when given: the earlier turns' alone, at the turn's start), but at
    Anthropic the newest one's, which it needs back inside a tool loop, and with `calls_keep` (the
    provider asks for it back: `reasoning_asked_back`) that of every response that made tool calls. A
    response of thinking alone keeps it (it would be left empty). Otherwise the other providers give up
    that of the turn under way's tool calls too (pydantic-ai sends DeepSeek's `reasoning_content` empty
    in its stead for its DeepSeek profile); kept for every provider, it cost recall in the analyzer's
    replays (0.7501 -> 0.7494 at 32K)."""
    last = max((i for i, m in enumerate(view) if isinstance(m, ModelResponse)), default=-1)
    if provider != "anthropic":
        last = -1
    out, cut = list(view), 0
    for i, m in enumerate(out[:upto]):
        if calls_keep and isinstance(m, ModelResponse) and any(isinstance(p, ToolCallPart) for p in m.parts):
            continue
        if isinstance(m, ModelResponse) and i != last and any(isinstance(p, ThinkingPart) for p in m.parts):
            rest = [p for p in m.parts if not isinstance(p, ThinkingPart)]
            if rest:
                out[i] = dataclasses.replace(m, parts=rest)
                cut += 1
    return out, cut


def reasoning_emptied(view: list[ModelMessage]) -> tuple[list[ModelMessage], int]:
    """`view` with the reasoning of each response that made tool calls emptied, and how many were: one
    empty thinking part in its place, which goes out as an empty `reasoning_content` (pydantic-ai sends
    the part in the field it came in), as pydantic-ai's DeepSeek profile sends one where a response has
    none. For a provider that asks for that reasoning back (`reasoning_asked_back`), where nothing but
    folding the steps would make the request fit (fit.py): left out, the field goes with it, and a
    `--base-url` server in 'auto' mode is sent none, which DeepSeek refuses (400)."""
    out, cut = list(view), 0
    for i, m in enumerate(out):
        if not isinstance(m, ModelResponse) or not any(isinstance(p, ToolCallPart) for p in m.parts):
            continue
        thought = [p for p in m.parts if isinstance(p, ThinkingPart)]
        if not any(p.content for p in thought):
            continue
        empty = dataclasses.replace(thought[0], content="", signature=None)
        out[i] = dataclasses.replace(m, parts=[empty if p is thought[0] else p for p in m.parts
                                               if not isinstance(p, ThinkingPart) or p is thought[0]])
        cut += 1
    return out, cut


def thinking_over_limit(cm: ShrinkView, view: list[ModelMessage], tokens_now: int, hard: int
                        ) -> tuple[list[ModelMessage], int, int]:
    """`view` (of `tokens_now`, shaped by the view layers) over the `hard` limit, without the model's
    earlier thinking (`without_thinking`) when that alone brings the request under the threshold,
    judged as a request is judged to fit (`fit_size`) and as the schedule measures it: the view,
    its size and how many responses gave their thinking up (0: `view` as it was). Under the
    threshold no compaction is due for a while; above it one would come all the same, and the prefix
    the thinking left would be paid uncached for nothing. Once left out, the next requests leave it
    out before the layers shape them (`thinking_held_out`)."""
    if tokens_now <= hard:
        return view, tokens_now, 0
    bare, cut = without_thinking(view, cm.provider, calls_keep=cm.reasoning_asked_back)
    if not cut:
        return view, tokens_now, 0
    after = cm.measure(bare)
    if max(after, cm.fit_size(bare)) > cm.limits.threshold:
        return view, tokens_now, 0
    return bare, after, cut


def thinking_held_out(cm: ShrinkView, messages: list[ModelMessage]) -> tuple[list[ModelMessage], int, int]:
    """`messages` without the model's earlier thinking, left out of the requests since one was over the
    hard limit by it (`thinking_over_limit`), before the view layers shape them: they weigh the request
    as it will be sent (they folded rounds of an 8K session at 33,420 tokens, its requests 4,200). Returns
    the messages, how many responses gave their thinking up and its tokens (characters/4)."""
    bare, cut = without_thinking(messages, cm.provider, calls_keep=cm.reasoning_asked_back)
    return bare, cut, (tokens.thinking_tokens(messages) - tokens.thinking_tokens(bare)) if cut else 0


def thinking_still_out(cm: ShrinkView, tokens_now: int, thinking: int) -> bool:
    """Whether the thinking held out (`thinking_held_out`: `thinking` tokens of it) stays out of the next
    request: while the request, of `tokens_now` without it, would be over the threshold with it, so that
    the prompt's prefix does not change back and forth by a result cleared here and an answer there;
    after a compaction or a rewind it comes back."""
    return thinking > 0 and tokens_now + cm.calibration.tokens(thinking) > cm.limits.threshold
