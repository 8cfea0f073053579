"""OpenAI chat-format histories → pydantic-ai messages: plain chat, mini-swe-agent and SWE-agent.

All three are lists of ``{role, content, tool_calls?, tool_call_id?}`` messages; they differ in
where the extras live:

* **mini-swe-agent** (``{info, messages, trajectory_format: "mini-swe-agent-1.1"}``): each assistant
  message keeps the raw provider response under ``extra.response`` (``usage`` with DeepSeek's
  ``prompt_cache_hit_tokens``, ``model``, ``id``, ``finish_reason``) and a Unix ``extra.timestamp``.
  The final ``{"role": "exit"}`` entry holds the submission, which the model never saw: not imported.
  A tool call the agent could not parse has no ``tool`` reply, only a ``FormatError`` user message
  (and the submit call at the end has no reply at all): such calls are dropped and reported. Its
  first format has no tool calls: the command is a bash block in the assistant's text and its output
  a user message, which (as any user message answering the model) is the environment's, not typed.
* **SWE-agent** ``.traj`` (``{history, trajectory, info}``): ``history`` is the model's view; tool
  replies name their calls in a ``tool_call_ids`` *list*; older trajectories have no tool calls at
  all (the action is text inside the assistant message, the observation a user message). Demonstration
  messages (``is_demo``) are part of the prompt and are kept.
* **plain chat**: a list of messages or ``{"messages": [...]}``; ``usage``/``model`` on an assistant
  message are honoured when present.

DeepSeek ``reasoning_content`` becomes a ``ThinkingPart`` (the reasoner sends it back as prompt).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from pydantic_ai.messages import (
    FinishReason,
    ModelResponse,
    ModelResponsePart,
    SystemPromptPart,
    TextPart,
    ThinkingPart,
    ToolCallPart,
)

from ._common import ConversationBuilder, text_of_blocks
from ._recorded import parse_time, usage_from_mapping

_FINISH_REASONS: dict[str, FinishReason] = {
    "stop": "stop",
    "tool_calls": "tool_call",
    "function_call": "tool_call",
    "length": "length",
    "content_filter": "content_filter",
}


def import_chat(messages: list[Any], builder: ConversationBuilder, *, provider: str | None = None,
                observations: bool = False) -> None:
    """Feed OpenAI-style chat messages into ``builder``; with `observations` (SWE-agent), a user
    message answering an assistant message is the environment's output, not the person's words."""
    exits = 0
    for message in messages:
        if not isinstance(message, Mapping):
            builder.skipped += 1
            continue
        try:
            role = message.get("role")
            if role == "exit":
                exits += 1
            elif not _handle(builder, message, role, provider, observations):
                builder.skipped += 1
        except (KeyError, TypeError, ValueError, AttributeError) as exc:
            builder.skip_malformed(exc)
    if exits:
        builder.warnings.append(f"ignored {exits:,} 'exit' {'entry' if exits == 1 else 'entries'} (agent submission, never sent to the model)")


def _mapping(value: object) -> Mapping[str, Any]:
    """`value` when it is a mapping, else an empty one: the optional objects of these formats."""
    return value if isinstance(value, Mapping) else {}


def _handle(
    builder: ConversationBuilder, message: Mapping[str, Any], role: Any, provider: str | None,
    observations: bool = False,
) -> bool:
    extra = _mapping(message.get("extra"))
    timestamp = parse_time(extra.get("timestamp") or message.get("timestamp"))
    text = text_of_blocks(message.get("content"))
    if role in {"system", "developer"}:
        if text.strip():
            builder.add_request_part(
                SystemPromptPart(text, timestamp=timestamp or builder.fallback_time), timestamp
            )
        return True
    if role == "user":
        # SWE-agent's demonstration and observations, mini-swe-agent's format-error notices.
        harness = bool(message.get("is_demo") or extra.get("interrupt_type")) or (
            observations and bool(builder.messages) and isinstance(builder.messages[-1], ModelResponse))
        builder.add_user_text(text, timestamp, harness=harness)
        return True
    if role == "tool":
        ids = message.get("tool_call_ids") or [message.get("tool_call_id")]
        for call_id in ids:
            if isinstance(call_id, str):
                builder.add_tool_return(call_id, text, timestamp)
        return True
    if role == "assistant":
        _assistant(builder, message, extra, text, timestamp, provider)
        return True
    return False


def _assistant(
    builder: ConversationBuilder,
    message: Mapping[str, Any],
    extra: Mapping[str, Any],
    text: str,
    timestamp: Any,
    provider: str | None,
) -> None:
    raw = _mapping(extra.get("response"))
    choices = raw.get("choices") or [{}]
    choice = _mapping(choices[0])
    raw_message = _mapping(choice.get("message"))
    parts: list[ModelResponsePart] = []
    reasoning = message.get("reasoning_content") or raw_message.get("reasoning_content")
    if isinstance(reasoning, str):
        parts.append(ThinkingPart(reasoning))
    parts.append(TextPart(text))
    for call in message.get("tool_calls") or []:
        function = call.get("function") or {}
        parts.append(ToolCallPart(function["name"], function.get("arguments"), tool_call_id=call["id"]))
    model = raw.get("model") or message.get("model")
    created = parse_time(raw.get("created"))
    builder.add_response(
        parts,
        usage=usage_from_mapping(raw.get("usage") or message.get("usage")),
        model_name=model,
        provider_name=provider if model else None,
        provider_response_id=raw.get("id"),
        finish_reason=_FINISH_REASONS.get(str(choice.get("finish_reason"))),
        timestamp=timestamp or created,
    )
