"""How a request the library makes for itself (a summary, session notes) asks for text: the main
request's parameters and settings, so the prefix is shared, the model unable to act (`unable_to_act`),
and whether the agent's output tool is offered on it all the same (`offers_output_tool`)."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from pydantic_ai.models import Model, ModelRequestParameters

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
