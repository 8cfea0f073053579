"""How a request the library makes for itself (a summary, session notes) asks for text: the main
request's parameters and settings, so the prefix is shared, the model unable to act (`unable_to_act`),
whether the agent's output tool is offered on it all the same (`offers_output_tool`), and its
messages prepared as the model prepares an agent's (`sendable`)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from typing import Any

from pydantic_ai import models
from pydantic_ai.messages import ModelMessage, ModelRequest
from pydantic_ai.models import Model, ModelRequestParameters

from .cuts import join

#: Providers whose prompt cache a `tool_choice` other than the main request's misses for the
#: messages (Anthropic's prompt-caching docs: a changed `tool_choice` leaves the tools and the system
#: prompt cached, not the message blocks): `tool_choice: none` made each summary write the whole
#: conversation to the cache where it would have read it.
SAME_TOOL_CHOICE = frozenset({"anthropic"})


def unable_to_act(params: ModelRequestParameters | None, settings: dict[str, Any] | None,
                  model: Model | None = None) -> tuple[ModelRequestParameters, dict[str, Any]]:
    """The main request's parameters and settings for a request the library makes for itself (a
    summary, notes) to `model`: the same tools, so the prefix is shared, and text wanted, no tool call.

    `tool_choice: none`, except to a provider of `SAME_TOOL_CHOICE`, which keeps the main request's
    where it lets the model answer in text (none set, or "auto"): the prompt says not to call a tool,
    and a call is refused and asked again, its request reading the cache too. And except for an agent
    with a structured output type, which answers through its output tool and allows no text:
    pydantic-ai turned "none" into "call the output tool", so every such request was two forced calls
    refused, then the separate request, uncached. Text is allowed there, with the tools offered as
    they were and left to the model ("auto": restricting them to the output tool is an `allowed_tools`
    choice many OpenAI-compatible servers refuse); a call it still makes goes to the request with no
    tools, not asked again (`offers_output_tool`; asked again, it called the tool again: three requests
    a summary, and notes never written).
    On Anthropic that changes the main request's `any` to `auto` and misses the cache of the
    messages, which keeping `any` would not: the model could answer with tool calls only, never a
    summary's text. An agent with `NativeOutput` or `PromptedOutput` has the schema left out of these
    requests: the provider would hold the reply to it (`PromptedOutput` also turns on a provider's
    JSON mode and an instruction, placed among the instructions, to answer in JSON of that schema: the
    request shares the cached prefix only up to there, the price of a summary in text).
    """
    params = params or ModelRequestParameters()
    if params.output_tools and params.output_mode in ("auto", "tool"):
        return replace(params, output_mode="tool", allow_text_output=True), {**(settings or {}), "tool_choice": "auto"}
    if params.output_mode in ("native", "prompted"):
        # `NativeOutput`: the provider is held to the output type's JSON schema, so the summary
        # came back as an answer of that type (`{"pages": 0}`) and replaced the conversation.
        # `PromptedOutput`: the same through JSON mode and an "answer in JSON" instruction.
        params = replace(params, output_mode="text", output_object=None, prompted_output_template=None,
                         allow_text_output=True)
    if model is not None and model.system in SAME_TOOL_CHOICE and (settings or {}).get("tool_choice") in (None, "auto"):
        return params, dict(settings or {})
    return params, {**(settings or {}), "tool_choice": "none"}


def offers_output_tool(params: ModelRequestParameters) -> bool:
    """Whether `unable_to_act`'s `params` offer the agent's output tool: a reply that called it calls
    it again if asked again, so the summary and the notes go to their request with no tools at once."""
    return bool(params.output_tools) and params.output_mode == "tool"


#: Parts of a request that pydantic-ai (2.68) keeps for the run and that no provider's API carries as
#: they are: a change to the tools offered (an MCP server's list changed, a tool search or a tool made
#: one available), a capability loaded from code, the instructions' changes, a realtime session's
#: speech. An agent's request goes through `Model.prepare_messages`, which states them as the model
#: takes them (the tools that are now available, or their definitions where the provider takes them
#: in the conversation) or leaves them out; a model handed one unprepared refuses the request
#: ("cannot be rendered by this model"). By `part_kind`, so that a version without them reads none.
UNPREPARED = frozenset({"tool-availability-delta", "capability-load-delta", "instruction-delta",
                        "instruction-baseline", "speech"})
#: A retry's parts: `pydantic_ai.direct.model_request` prepares a history holding one itself, whole.
_RETRIES = frozenset({"retry-feedback", "retry-prompt"})


def sendable(model: Model, messages: Sequence[ModelMessage], params: ModelRequestParameters,
             settings: dict[str, Any] | None = None) -> list[ModelMessage]:
    """`messages` as `model` is to be sent them by `pydantic_ai.direct.model_request`, with `params`
    and `settings`: prepared as the model prepares an agent's request (`Model.prepare_messages`, so a
    summary or notes request says of a changed tool set what the main request said, and shares its
    cached prefix) where they hold a part only that preparation renders (`UNPREPARED`), adjacent
    requests it leaves joined; else as they are (`model_request` prepares a history holding a retry
    itself, and prepared twice, its frames would be noted as look-alikes of frames)."""
    kinds = {getattr(p, "part_kind", None) for m in messages if isinstance(m, ModelRequest) for p in m.parts}
    if not kinds.isdisjoint(_RETRIES):
        return list(messages)
    return prepared(model, messages, params, settings)


def prepared(model: Model, messages: Sequence[ModelMessage], params: ModelRequestParameters,
             settings: dict[str, Any] | None = None) -> list[ModelMessage]:
    """`messages` for `model.request` itself, which prepares nothing: prepared as the agent prepares
    its request where they hold a part only that preparation renders (`UNPREPARED`), else as they are.
    The request a server cut, sent again within the window learned (pipeline.py), goes so."""
    kinds = {getattr(p, "part_kind", None) for m in messages if isinstance(m, ModelRequest) for p in m.parts}
    prepare = getattr(model, "prepare_messages", None)
    if kinds.isdisjoint(UNPREPARED) or prepare is None:
        return list(messages)
    framed = getattr(models, "_with_framing_announcement", None)  # the request's own setting, as the agent's
    if framed is not None:
        params = framed(params, settings)
    prepared = prepare(list(messages), params)
    return join(prepared)
