"""Codex CLI rollout JSONL (``~/.codex/sessions/**/rollout-*.jsonl``) → pydantic-ai messages.

Lines are ``{timestamp, type, payload}``. Only ``response_item`` payloads are what the model saw
(``event_msg`` user/agent messages duplicate them for the UI), plus ``session_meta.base_instructions``,
which Codex sends as the instructions of every call and is imported as the system prompt. The first
releases wrote a line of session metadata, then the response items bare, with ``record_type`` lines
between: `_codex_early` lays such a file out as today's before it comes here.

Rules, and the traps they answer (most observed in the fixture data, the rest read in Codex's source):

* Consecutive model items (``reasoning``, assistant ``message``, ``function_call``,
  ``custom_tool_call``) form one ``ModelResponse``. A ``token_count`` event with new cumulative
  totals marks the end of an API call: its ``last_token_usage`` becomes that response's usage and the
  next model item starts a new response. Codex repeats the same snapshot after every tool output (and
  emits an all-zero one around compaction); those repeats are recognised by unchanged
  ``total_token_usage`` and ignored.
* Codex records ``developer`` messages (approval notices) *between* a call and its output, and a
  resumed session re-sends its whole context while a call is still open. The builder keeps every
  output in the request right after its call and moves the interleaved messages after the outputs.
  A call whose output was never recorded (a killed process, an interrupted turn) Codex answers
  "aborted" itself in every later prompt, and so does the importer; one the file ends on, which no
  later request carried, is dropped and reported.
* Free text is redacted upstream as ``[REDACTED_<KIND> len=N sha=H]``; it is replaced by N characters
  of deterministic filler so sizes and token counts stay realistic (redacted arguments become a valid
  JSON object of length N, redacted tool names ``redacted_tool_<sha>``, redacted images ``[image]``).
  Encrypted reasoning is not sent as text, so only the reasoning summary is imported.
* ``local_shell_call`` items (the Responses API's built-in shell, which Codex used before its own
  function tools) are calls of a ``local_shell`` tool whose arguments are the command's words, and
  where and how long it ran; their output comes as ``function_call_output`` (or
  ``local_shell_call_output``) under the call's id. ``tool_search_call`` / ``tool_search_output``
  pairs are a call of ``tool_search`` and the tool definitions it found.
* ``web_search_call`` items are server-side searches with no recorded result: left out and counted
  (``web_search_note``).
* What Codex records but never sends is left out: ``system``-role messages (counted) and ghost
  snapshots (the work tree's undo checkpoints). Of newer releases' items it does send, other agents'
  messages (``agent_message`` items, ``inter_agent_communication`` lines, the latter sent as their JSON)
  are the harness's text; encrypted compaction summaries and message parts are counted.
* ``compacted`` (with its ``replacement_history``) goes to ``recorded_compactions``, indexed at the first
  message after it.
* A ``thread_rolled_back`` event (none in the fixture data) drops the turns it names from what the
  model saw afterwards: their items are left out and counted (see `_codex_rollback`).
* A tool output longer than the turn's ``truncation_policy`` is cut as Codex cut it for the model,
  and counted (see `_codex_truncation`).
* Newer releases' ``token_usage_record`` lines give each reply its usage in place of ``token_count``'s,
  a ``rollout_reference`` line stands for another rollout's items, and bookkeeping lines are left out
  (see `_codex_records`).
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Any

from pydantic_ai.messages import ModelResponsePart, SystemPromptPart, TextPart, ThinkingPart, ToolCallPart

from ._codex_records import BOOKKEEPING, UsageRecords, own_thread, unmatched_usage_note, with_references
from ._codex_rollback import without_rolled_back
from ._codex_truncation import Budget, cut_note, output_as_read, output_budget
from ._codex_typed import key, typed_keys
from ._common import ConversationBuilder, checked, counted, text_of_blocks
from ._recorded import has_recorded_usage, parse_time, usage_from_mapping
from ._redaction import REDACTION_RE, RedactionStats, redaction_note

RECORD_TYPES = frozenset({
    "session_meta", "response_item", "event_msg", "turn_context", "compacted", "inter_agent_communication",
})
NEVER_SENT = frozenset({"ghost_snapshot"})  # the work tree's undo checkpoints: Codex keeps them out of every prompt
OUTPUT_TYPES = frozenset({"function_call_output", "custom_tool_call_output", "local_shell_call_output",
                          "tool_search_output"})
SEALED = frozenset({"compaction", "compaction_summary", "context_compaction"})  # encrypted by OpenAI
_TEXT_KEYS = ("text", "input_text", "output_text")


def looks_like_record(record: Mapping[str, Any]) -> bool:
    return record.get("type") in RECORD_TYPES and "payload" in record


@dataclass
class _State:
    builder: ConversationBuilder
    redactions: RedactionStats = field(default_factory=RedactionStats)
    model: str | None = None
    parts: list[ModelResponsePart] = field(default_factory=list)
    started: datetime | None = None
    last_total: str | None = None
    system_prompt_seen: bool = False
    repeated_usage: int = 0
    unattached_usage: int = 0
    native_calls: int = 0
    system_messages: int = 0
    sealed: int = 0
    budget: Budget | None = None  # what the turn's truncation policy lets each tool output keep
    cut_outputs: int = 0
    cut_by: Budget | None = None  # the policy that last cut one
    answered: frozenset[str] = frozenset()  # the calls whose output the file records
    unanswered: dict[str, str] = field(default_factory=dict)  # call id -> what Codex sent in its stead
    typed: frozenset[str] | None = None  # keys of what the person typed (`_codex_typed`), None: not recorded
    opening: bool = True  # neither a typed message nor a reply yet: user-role context is the initial one
    records: UsageRecords = field(default_factory=UsageRecords)  # newer releases' per-response usage lines


def import_codex(records: list[Mapping[str, Any]], builder: ConversationBuilder, source: Path | None = None) -> None:
    """Feed Codex rollout records into ``builder`` (see the module docstring for the rules)."""
    state = _State(builder)
    state.records.thread = own_thread(records)
    records = without_rolled_back(with_references(records, source, builder), builder)
    state.answered = frozenset(_answered(records))
    state.typed = typed_keys(records)
    for record in records:
        try:
            _handle(state, record)
        except (KeyError, TypeError, ValueError, AttributeError) as exc:
            builder.skip_malformed(exc)
    _close(state)
    if note := redaction_note(state.redactions):
        builder.warnings.append(note)
    builder.filler_chars = state.redactions.chars
    if state.native_calls:
        builder.warnings.append(web_search_note(state.native_calls))
    if state.unattached_usage:
        builder.warnings.append(unmatched_usage_note(state.unattached_usage))
    if state.cut_by:
        builder.warnings.append(cut_note(state.cut_outputs, state.cut_by))
    if note := state.records.note():
        builder.warnings.append(note)
    if state.system_messages:
        builder.warnings.append(f"left out {counted(state.system_messages, 'system message')} Codex recorded but "
                                "never sends to the model")
    if state.sealed:
        them = "it" if state.sealed == 1 else "them"
        builder.warnings.append(f"left out {counted(state.sealed, 'item')} the model read that OpenAI encrypted "
                                f"(compaction summaries, other agents' messages): the file holds no text of {them}, "
                                f"so every strategy is replayed without {them}")


def _answered(records: list[Mapping[str, Any]]) -> set[str]:
    ids = set()
    for record in records:
        item = record.get("payload")
        if (record.get("type") == "response_item" and isinstance(item, Mapping) and str(item.get("type")) in OUTPUT_TYPES
                and (item.get("call_id") or item.get("id"))):
            ids.add(_call_id(item))
    return ids


def web_search_note(n: int) -> str:
    """The searches OpenAI ran for Codex on its own servers, in a user's words: what was left out,
    and that it is left out of every strategy alike (it said "skipped 1 server-side web_search_call
    item (no recorded result)", the rollout's item type)."""
    one = n == 1
    return (f"left out {counted(n, 'web search', 'web searches')} OpenAI ran for Codex on its own servers: the "
            f"file records that {'it' if one else 'they'} ran but not what {'it' if one else 'they'} found, so every "
            f"strategy is replayed without {'it' if one else 'them'}")


def _handle(state: _State, record: Mapping[str, Any]) -> None:
    kind = record.get("type")
    payload = record["payload"]
    timestamp = parse_time(record.get("timestamp"))
    if kind == "response_item":
        _item(state, payload, timestamp)
    elif kind == "event_msg":
        if payload.get("type") == "token_count" and state.records.counts_events():
            _token_count(state, payload.get("info"))
    elif kind == "token_usage_record":  # newer releases: one response's usage (`_codex_records`)
        usage, first = state.records.read(payload)
        if usage is not None:
            _attach(state, usage, replace=first)
    elif kind == "turn_context":
        state.model = payload.get("model") or state.model
        state.budget = output_budget(payload.get("truncation_policy"))
    elif kind == "session_meta":
        _session_meta(state, payload, timestamp)
    elif kind == "inter_agent_communication":  # another agent's message, sent as its JSON in the assistant's role
        _request(state, timestamp)
        text = json.dumps(payload, ensure_ascii=False, separators=(",", ":"))
        state.builder.add_user_text(state.redactions.expand(text), timestamp, harness=True)
    elif kind == "compacted":
        _close(state)
        history = payload.get("replacement_history") or []
        measure = RedactionStats().expand  # sizes only: this text is not part of `messages`
        state.builder.record_compaction(
            {
                "source": "codex",
                "kind": "compacted",
                "timestamp": record.get("timestamp"),
                "message_index": None,
                "summary_chars": len(measure(str(payload.get("message") or ""))),
                "replacement_items": len(history),
                "replacement_chars": sum(
                    len(measure(text_of_blocks(item.get("content"), text_keys=_TEXT_KEYS)))
                    for item in history
                    if isinstance(item, Mapping)
                ),
                "replacement_history": history,
            }
        )
    elif kind not in BOOKKEEPING:
        state.builder.skip_kind(kind)


def _session_meta(state: _State, payload: Mapping[str, Any], timestamp: datetime | None) -> None:
    source = payload.get("source")  # a subagent's rollout (a thread another spawned, a review): {"subagent": …}
    state.builder.subagent |= isinstance(source, Mapping) and "subagent" in source
    if state.system_prompt_seen:
        return  # a resumed session repeats its meta line; the instructions were already imported
    instructions = payload.get("base_instructions")
    text = instructions.get("text") if isinstance(instructions, Mapping) else instructions
    if isinstance(text, str) and text.strip():
        state.system_prompt_seen = True
        state.builder.add_request_part(
            SystemPromptPart(
                state.redactions.expand(text), timestamp=timestamp or state.builder.fallback_time
            ),
            timestamp,
        )


def _item(state: _State, item: Mapping[str, Any], timestamp: datetime | None) -> None:
    kind = item.get("type")
    expand = state.redactions.expand
    if kind == "message":
        content = item.get("content")
        if isinstance(content, list):
            state.redactions.images += sum(
                1 for b in content if isinstance(b, Mapping) and "image" in str(b.get("type"))
            )
        text = expand(text_of_blocks(content, text_keys=_TEXT_KEYS))
        role = item.get("role")
        if role == "assistant":
            _model_part(state, TextPart(text), timestamp)
            return
        _request(state, timestamp)
        if role == "system":  # recorded, never sent: Codex leaves system-role messages out of every prompt
            state.system_messages += 1
        elif role == "developer":
            if text.strip():
                state.builder.add_request_part(
                    SystemPromptPart(text, timestamp=timestamp or state.builder.fallback_time), timestamp
                )
        else:
            _user_message(state, content, text, timestamp)
    elif kind == "reasoning":
        summary = "\n".join(text_of_blocks(s) for s in item.get("summary") or [])
        content = text_of_blocks(item.get("content"))
        text = expand("\n".join(t for t in (summary, content) if t))
        if text.strip():
            _model_part(state, ThinkingPart(text), timestamp)
    elif kind == "function_call":
        arguments = item.get("arguments")
        args = state.redactions.expand_json_args(arguments) if isinstance(arguments, str) else arguments
        _model_part(
            state, ToolCallPart(_tool_name(item["name"]), args, tool_call_id=item["call_id"]), timestamp
        )
    elif kind == "custom_tool_call":
        args = {"input": expand(str(item.get("input") or ""))}
        _model_part(
            state, ToolCallPart(_tool_name(item["name"]), args, tool_call_id=item["call_id"]), timestamp
        )
    elif kind == "local_shell_call":
        _model_part(state, ToolCallPart("local_shell", _shell_args(state, item["action"]), tool_call_id=_call_id(item)),
                    timestamp)
    elif kind == "tool_search_call" and item.get("call_id"):  # one the server ran has no id to pair by: skipped
        args = item.get("arguments")
        args = state.redactions.expand_json_args(args) if isinstance(args, str) else args or {}
        _model_part(state, ToolCallPart("tool_search", args, tool_call_id=_call_id(item)), timestamp)
    elif kind in {"function_call_output", "custom_tool_call_output", "local_shell_call_output"}:
        _request(state, timestamp)
        output = item.get("output")
        if isinstance(output, Mapping):
            output = output.get("content", output.get("output"))
        state.builder.add_tool_return(_call_id(item), _output_text(state, output), timestamp)
    elif kind == "tool_search_output" and item.get("call_id"):
        _request(state, timestamp)
        state.builder.add_tool_return(_call_id(item), expand(json.dumps(item.get("tools") or [])), timestamp)
    elif kind == "web_search_call":
        state.native_calls += 1
    elif kind == "agent_message":  # another agent's message in a multi-agent thread; its text may be encrypted
        _request(state, timestamp)
        content = item.get("content")
        blocks = content if isinstance(content, list) else []
        state.sealed += any(isinstance(b, Mapping) and "encrypted_content" in b for b in blocks)
        state.builder.add_user_text(expand(text_of_blocks(content, text_keys=_TEXT_KEYS)), timestamp, harness=True)
    elif kind in SEALED:
        state.sealed += 1
    elif kind not in NEVER_SENT:  # what Codex records but never sends is left out without a count
        state.builder.skip_kind(kind)


def _user_message(state: _State, content: Any, text: str, timestamp: datetime | None) -> None:
    """A user-role message: typed when its text or one of its blocks is a typed text (Codex adds its
    own blocks around an image), else the harness's context (`_codex_typed`); that context before the first
    typed message and the first reply is the initial context, part of the fixed prompt."""
    pieces = [content, *content] if isinstance(content, list) else [content]
    harness = state.typed is not None and not any(
        key(text_of_blocks(p, text_keys=_TEXT_KEYS)) in state.typed for p in pieces)
    part = state.builder.add_user_text(text, timestamp, harness=harness)
    if part is not None and harness and state.opening:
        state.builder.opening.add(text.strip())
    state.opening = state.opening and (harness or part is None)


def _output_text(state: _State, output: Any) -> str:
    """A tool output as the model read it (see `_codex_truncation`)."""
    text, cut = output_as_read(output, state.redactions.expand, state.budget, _TEXT_KEYS)
    if cut:
        state.cut_outputs += 1
        state.cut_by = state.budget
    return text


def _call_id(item: Mapping[str, Any]) -> str:
    """The id a call and its output share: ``call_id``, or for a local shell call recorded without
    one, the item's own ``id`` (which its output then names)."""
    return str(item.get("call_id") or item["id"])


def _shell_args(state: _State, action: Mapping[str, Any]) -> dict[str, Any]:
    """A local shell call's action as the arguments of Codex's own shell tool: the command's words,
    and where and how long it ran when recorded (its environment is not what the model wrote)."""
    args: dict[str, Any] = {"command": [state.redactions.expand(str(word)) for word in action.get("command") or []]}
    if action.get("working_directory"):
        args["workdir"] = state.redactions.expand(str(action["working_directory"]))
    if action.get("timeout_ms") is not None:
        args["timeout_ms"] = action["timeout_ms"]
    return args


def _tool_name(name: str) -> str:
    """Redacted tool names are not valid identifiers for any provider; make a stable one."""
    match = REDACTION_RE.fullmatch(name)
    return f"redacted_tool_{match.group(3)}" if match else name


def _model_part(state: _State, part: ModelResponsePart, timestamp: datetime | None) -> None:
    checked(part)  # in the record's own loop: a bad field costs that record, not the file
    state.opening = False
    if not state.parts:
        state.started = timestamp
    state.parts.append(part)
    if isinstance(part, ToolCallPart) and part.tool_call_id not in state.answered:
        state.unanswered[part.tool_call_id] = "[]" if part.tool_name == "tool_search" else "aborted"


def _request(state: _State, timestamp: datetime | None) -> None:
    """Close the model's reply before something Codex sends it; a call of it whose output the file
    never recorded is first answered as Codex answers it in every later prompt ("aborted"; a tool
    search, no tools)."""
    _close(state)
    for call_id, content in state.unanswered.items():
        state.builder.add_tool_return(call_id, content, timestamp)
    state.unanswered.clear()


def _close(state: _State, usage: Any = None) -> bool:
    """Turn buffered model items into a ``ModelResponse``; returns whether one was created."""
    if not state.parts:
        return False
    response = state.builder.add_response(
        state.parts,
        model_name=state.model,
        provider_name="openai",
        timestamp=state.started,
        usage=usage,
    )
    state.parts = []
    return response is not None


def _token_count(state: _State, info: Any) -> None:
    if not isinstance(info, Mapping):
        return
    total = json.dumps(info.get("total_token_usage"), sort_keys=True)
    if total == state.last_total:
        state.repeated_usage += 1
        return
    state.last_total = total
    usage = usage_from_mapping(info.get("last_token_usage"))
    # a usage with a value that is no count is attached too, unknown: set_aside_absurd_usage says it
    if usage is not None and (usage.input_tokens or usage.output_tokens or usage.unmeasured_requests):
        _attach(state, usage)


def _attach(state: _State, usage: Any, replace: bool = False) -> None:
    """``usage`` to the reply it ends; with ``replace`` (a file's first usage record, which may follow the
    token_count event of the same reply) over the usage a reply already has."""
    if _close(state, usage):
        return
    last = state.builder.last_response()
    if last is not None and (replace or not has_recorded_usage(last)):
        last.usage = usage
    else:
        state.unattached_usage += 1
