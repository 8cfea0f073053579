"""OpenAI chat-format histories → pydantic-ai messages: plain chat, mini-swe-agent and SWE-agent.

All three are lists of ``{role, content, tool_calls?, tool_call_id?}`` messages; they differ in
where the extras live:

* **mini-swe-agent** (``{info, messages, trajectory_format}``, ``mini-swe-agent-1`` and ``-1.1``, and
  the first releases without the field): each assistant message keeps the raw provider response
  under ``extra.response`` (``usage`` with DeepSeek's ``prompt_cache_hit_tokens``, ``model``, ``id``,
  ``finish_reason``) and a Unix ``extra.timestamp``; that usage is litellm's (or OpenRouter's) for
  every provider, with Anthropic's cache reads and writes beside ``prompt_tokens`` (`_chat_usage`).
  The final ``{"role": "exit"}`` entry holds the submission, which the model never saw: not imported;
  the 1.x releases instead ended a submitted run with a user message holding the submission (the
  same text as ``info.submission``), left out too. From 2.0 a reply the agent could not parse is not
  kept, only its ``FormatError`` user message (from 2.3.1 with the billed response in
  ``extra.response``): such calls are counted in a note; a call with no reply (the submit call at the
  end) is dropped and reported. Its first format has no tool calls: the command is a bash block in
  the assistant's text and its output a user message, which (as any user message answering the
  model) is the environment's, not typed; a person's interruption, rejection or new task
  (``extra.interrupt_type`` ``User…``; in 1.x the same words with no marker) is typed, and so is a
  command the person ran in 1.x's human mode, recorded as a bare bash block in the assistant's role
  (no model call made it; its output is the harness's). Runs on the Responses API keep each reply as
  the response object itself (``object: "response"``, ``output`` items: reasoning, message,
  ``function_call``) and each command output as a ``function_call_output`` item. Its compaction, off by
  default, leaves the messages whole and records itself beside them (`_mini_compaction`).
* **SWE-agent** ``.traj``: `_swe_agent` picks out the history its agent saw (the attempt, that
  agent's entries, what its history processors did) and imports it here, with ``observations``: tool
  replies name their calls in a ``tool_call_ids`` *list*; older trajectories have no tool calls at
  all (the action is text inside the assistant message, the observation a user message, the
  environment's); a worked example laid out as messages (``is_demo``) becomes the first request's
  text, since its assistant turns are not calls the agent made. Anthropic ``thinking_blocks`` are
  kept with the message.
* **plain chat**: a list of messages or ``{"messages": [...]}``; ``usage``/``model`` on an assistant
  message are honoured when present (Anthropic's usage too). A list saved from the Anthropic Messages
  API keeps calls and results as content blocks: an assistant message holding ``tool_use`` blocks and
  a user message holding ``tool_result`` blocks are read block by block (`_anthropic_blocks`), so the
  calls are calls and the results answer them.

DeepSeek ``reasoning_content`` (OpenRouter's ``reasoning``) becomes a ``ThinkingPart`` (the reasoner
sends it back as prompt).
"""

from __future__ import annotations

import dataclasses
import re
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
from pydantic_ai.usage import RequestUsage

from ._anthropic_blocks import add_user_blocks, block_kinds, response_parts
from ._common import ConversationBuilder, checked, counted, text_of_blocks, wrong_kind
from ._mini_compaction import COMPACTED, recorded, with_compactions
from ._recorded import CountReader, parse_time, read_counts, usage_from_mapping

_FINISH_REASONS: dict[str, FinishReason] = {
    "stop": "stop",
    "tool_calls": "tool_call",
    "function_call": "tool_call",
    "length": "length",
    "content_filter": "content_filter",
}


def import_mini_swe_agent(document: Mapping[str, Any], builder: ConversationBuilder, *,
                          provider: str | None = None) -> None:
    """A mini-swe-agent trajectory ``{info, messages}``, any release (see the module docstring)."""
    messages = list(document["messages"])
    info = as_mapping(document.get("info"))
    submission = info.get("submission")
    last = messages[-1] if messages else None
    if (isinstance(submission, str) and submission.strip() and isinstance(last, Mapping)
            and last.get("role") == "user" and last.get("content") == submission):
        # 1.x: the run's submission, added as a user message after the last call; the model never saw it.
        messages.pop()
        builder.warnings.append("left out the last user message: the run's submission, recorded after the last model call")
    # 2.x keeps no reply it could not parse, only the format error (with the response since 2.3.1).
    discarded = sum(1 for m in messages if isinstance(m, Mapping)
                    and as_mapping(m.get("extra")).get("interrupt_type") == "FormatError")
    messages = with_compactions(messages, document, builder)  # off by default; when on, a marker per compaction
    # Its first format sends each command's output as a user message: observations, as SWE-agent's.
    import_chat(_person_1x(messages, builder), builder, provider=provider, observations=True)
    if discarded:
        builder.warnings.append(
            f"{counted(discarded, 'reply', 'replies')} the agent could not parse and did not keep (format errors) "
            f"{'is' if discarded == 1 else 'are'} not replayed, though billed: the model never saw "
            f"{'it' if discarded == 1 else 'them'} again")


#: Keys this module adds to a message it has judged: a person's words, or the harness's text.
_PERSON, _HARNESS = "_person_typed", "_harness_wrote"
#: What the 1.x interactive agent wrote around a person's words (2.x marks them ``extra.interrupt_type``).
_PERSON_PREFIXES = ("Interrupted by user:", "The user added a new task:",
                    "Command not executed. The user rejected your command with the following message:")
#: A command the person ran in the 1.x interactive agent's human mode, recorded as an assistant message.
_HUMAN_COMMAND = re.compile(r"\n```bash\n.*\n```", re.DOTALL)


def _person_1x(messages: list[Any], builder: ConversationBuilder) -> list[Any]:
    """1.x interactive runs: a person's command (human mode), recorded in the assistant's role though
    no model wrote it, is the person's words and its output the harness's; an interruption, rejection
    or new task is the person's."""
    out: list[Any] = []
    commands = 0
    for message in messages:
        if not isinstance(message, Mapping) or "extra" in message:
            out.append(message)
            continue
        content = message.get("content")
        if message.get("role") == "assistant" and isinstance(content, str) and _HUMAN_COMMAND.fullmatch(content):
            message = {**message, "role": "user", _PERSON: True}
            commands += 1
        elif message.get("role") == "user" and isinstance(content, str) and content.startswith(_PERSON_PREFIXES):
            message = {**message, _PERSON: True}
        elif message.get("role") == "user" and out and isinstance(out[-1], Mapping) and out[-1].get(_PERSON) \
                and out[-1].get("role") == "user" and _HUMAN_COMMAND.fullmatch(str(out[-1].get("content"))):
            message = {**message, _HARNESS: True}
        out.append(message)
    if commands:
        builder.warnings.append(f"{counted(commands, 'command')} a person ran in human mode, recorded as the"
                                " assistant's, replayed as their words: no model call made them")
    return out


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
            elif role == COMPACTED:  # where mini-swe-agent compacted (`_mini_compaction`)
                recorded(builder, message)
            elif not _handle(builder, message, role, provider, observations):
                builder.skip_kind(role if role is not None else message.get("type"))
        except (KeyError, TypeError, ValueError, AttributeError) as exc:
            builder.skip_malformed(exc)
    if exits:
        builder.warnings.append(f"ignored {exits:,} 'exit' {'entry' if exits == 1 else 'entries'} (agent submission, never sent to the model)")


def as_mapping(value: object) -> Mapping[str, Any]:
    """`value` when it is a mapping, else an empty one: the optional objects of these formats."""
    return value if isinstance(value, Mapping) else {}


def _handle(
    builder: ConversationBuilder, message: Mapping[str, Any], role: Any, provider: str | None,
    observations: bool = False,
) -> bool:
    extra = as_mapping(message.get("extra"))
    timestamp = parse_time(extra.get("timestamp") or message.get("timestamp"))
    if role is None:  # the Responses API's items: a reply, a command's output
        if message.get("object") == "response":
            _response_object(builder, message, extra, provider)
            return True
        if message.get("type") == "function_call_output":
            builder.add_tool_return(str(message["call_id"]), text_of_blocks(message.get("output")), timestamp)
            return True
        return False
    content = message.get("content")  # an object or a number was read as no text, or as its digits
    if content is not None and not isinstance(content, (str, list)):
        raise wrong_kind("a message's content", content, "text or a list")
    text = text_of_blocks(content)
    if role in {"system", "developer"}:
        if text.strip():
            builder.add_request_part(
                SystemPromptPart(text, timestamp=timestamp or builder.fallback_time), timestamp
            )
        return True
    if message.get("is_demo") and role in {"assistant", "tool"}:
        # A worked example laid out as messages: prompt text, not a call the agent made.
        calls = [f"{as_mapping(c.get('function')).get('name')} {as_mapping(c.get('function')).get('arguments')}"
                 for c in message.get("tool_calls") or [] if isinstance(c, Mapping)]
        builder.add_user_text("\n".join([text, *calls]), timestamp, harness=True)
        return True
    if role == "user":
        # What a person typed: an interruption, a rejection, a new task (mini-swe-agent's interactive agent).
        interrupt = str(extra.get("interrupt_type") or "")
        harness = not (interrupt.startswith("User") or message.get(_PERSON)) and (
            # SWE-agent's demonstration; mini-swe-agent's format-error notices and command outputs.
            bool(message.get("is_demo") or message.get(_HARNESS) or interrupt or "returncode" in extra
                 or "raw_output" in extra)
            or (observations and bool(builder.messages) and isinstance(builder.messages[-1], ModelResponse)))
        if "tool_result" in block_kinds(message.get("content")):  # Anthropic's: results lead the request
            add_user_blocks(builder, message["content"], timestamp,
                            lambda words: builder.add_user_text(words, timestamp, harness=harness))
        else:
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


def _thinking(message: Mapping[str, Any]) -> str:
    """Anthropic thinking an assistant message carries outside its text: ``thinking_blocks`` (litellm,
    SWE-agent) or thinking blocks in its content list (mini-swe-agent)."""
    blocks = [*(message.get("thinking_blocks") or []),
              *(message["content"] if isinstance(message.get("content"), list) else [])]
    return "\n".join(b["thinking"] for b in blocks if isinstance(b, Mapping) and b.get("type") == "thinking"
                     and isinstance(b.get("thinking"), str))


def _assistant(
    builder: ConversationBuilder,
    message: Mapping[str, Any],
    extra: Mapping[str, Any],
    text: str,
    timestamp: Any,
    provider: str | None,
) -> None:
    raw = as_mapping(extra.get("response"))
    choices = raw.get("choices") or [{}]
    choice = as_mapping(choices[0])
    raw_message = as_mapping(choice.get("message"))
    parts: list[ModelResponsePart] = []
    # litellm's reasoning_content, OpenRouter's reasoning: the message goes back as the agent keeps it.
    said = (message.get("reasoning_content"), raw_message.get("reasoning_content"), message.get("reasoning"))
    reasoning = next((r for r in said if isinstance(r, str) and r.strip()), None)
    if "tool_use" in block_kinds(message.get("content")):  # Anthropic's blocks, calls among them, in order
        parts += [ThinkingPart(reasoning or ""), *response_parts(message["content"])]
    else:
        parts += [ThinkingPart(reasoning or _thinking(message)), TextPart(text)]
    for call in message.get("tool_calls") or []:
        function = call.get("function") or {}
        # checked: a bad field (arguments that are a number) costs this message, not the file's replay
        parts.append(checked(ToolCallPart(function["name"], function.get("arguments"), tool_call_id=call["id"])))
    model = raw.get("model") or message.get("model")
    created = parse_time(raw.get("created"))
    builder.add_response(
        parts,
        usage=_chat_usage(raw.get("usage") or message.get("usage")),
        model_name=model,
        provider_name=provider if model else None,
        provider_response_id=raw.get("id"),
        finish_reason=_FINISH_REASONS.get(str(choice.get("finish_reason"))),
        timestamp=timestamp or created,
    )


def _chat_usage(raw: Any) -> RequestUsage | None:
    """Chat-completions usage as litellm and OpenRouter report it for every provider, cache writes included.

    Anthropic through litellm keeps its cache counts beside ``prompt_tokens``: reads in
    ``cache_read_input_tokens`` (and ``prompt_tokens_details.cached_tokens``), writes in
    ``cache_creation_input_tokens`` (later also ``prompt_tokens_details.cache_creation_tokens``).
    Some litellm releases count the writes in ``prompt_tokens``, others only the reads: a
    ``prompt_tokens`` below reads + writes cannot hold the writes, which are then added. OpenRouter
    counts its ``prompt_tokens_details.cache_write_tokens`` in ``prompt_tokens``. These counts are read
    as the others are (`read_counts`): one that is no count makes the request's usage unknown, said.
    """
    usage = usage_from_mapping(raw)
    if usage is None or usage.unmeasured_requests or not isinstance(raw, Mapping) or "prompt_tokens" not in raw:
        return usage
    return read_counts(lambda count: _with_cache(usage, raw, count))


def _with_cache(usage: RequestUsage, raw: Mapping[str, Any], count: CountReader) -> RequestUsage:
    read = max(usage.cache_read_tokens, count(raw, "cache_read_input_tokens"))
    written = [count(raw, key) for key in ("cache_creation_input_tokens", "prompt_tokens_details.cache_creation_tokens",
                                           "prompt_tokens_details.cache_write_tokens")]  # each read, each checked
    if write := written[0] or written[1]:
        total = usage.input_tokens if usage.input_tokens >= read + write else usage.input_tokens + write
    else:
        write, total = written[2], usage.input_tokens
    return dataclasses.replace(usage, input_tokens=total, cache_read_tokens=read, cache_write_tokens=write)


def _response_object(
    builder: ConversationBuilder, response: Mapping[str, Any], extra: Mapping[str, Any], provider: str | None
) -> None:
    """A reply kept as the Responses API's response object: its ``output`` items in order."""
    parts: list[ModelResponsePart] = []
    for item in response.get("output") or []:
        if not isinstance(item, Mapping):
            continue
        kind = item.get("type")
        if kind == "reasoning":
            thought = text_of_blocks(item.get("summary")) or text_of_blocks(item.get("content"))
            parts.append(ThinkingPart(thought))
        elif kind == "message":
            parts.append(TextPart(text_of_blocks(item.get("content"), text_keys=("text", "refusal"))))
        elif kind == "function_call":
            parts.append(checked(ToolCallPart(str(item["name"]), item.get("arguments"),
                                              tool_call_id=str(item.get("call_id") or item["id"]))))
    details = as_mapping(response.get("incomplete_details"))
    finish: FinishReason | None = (
        "length" if details.get("reason") == "max_output_tokens"
        else "tool_call" if any(isinstance(p, ToolCallPart) for p in parts)
        else "stop" if response.get("status") == "completed" else None)
    model = response.get("model")
    builder.add_response(
        parts,
        usage=usage_from_mapping(response.get("usage")),
        model_name=model,
        provider_name=provider if model else None,
        provider_response_id=response.get("id"),
        finish_reason=finish,
        timestamp=parse_time(extra.get("timestamp")) or parse_time(response.get("created_at")),
    )
