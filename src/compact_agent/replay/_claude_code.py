"""Claude Code session JSONL (``~/.claude/projects/<project>/<session>.jsonl``) → pydantic-ai messages.

What the format does that a naive reader gets wrong (all observed in the fixture data):

* **One API response spans several ``assistant`` lines.** Claude Code writes each content block
  (thinking, text, tool_use) as its own line, all sharing ``message.id``; tool results for early
  blocks are often written *between* later blocks of the same response. Lines are merged back into one
  ``ModelResponse`` per ``message.id``, and the interleaved results land in the request after it.
  Every line repeats the usage block as a streaming snapshot: the largest ``output_tokens`` is final.
* **Messages typed while the agent works are only ``queue-operation`` lines.** ``enqueue`` carries
  the text; a later ``remove`` (naming it, or not) means Claude Code took it off the queue and
  attached it to the next tool results, so the model saw it there (e.g. "check again" in 258c7280,
  only otherwise visible in the compaction summary). It is imported as a user prompt at the ``remove`` line. Queued entries
  that are later delivered as an ordinary user line (task notifications wait for the end of the
  turn) are matched by text and not duplicated; ``remove`` prefers user-typed entries over
  ``<task-notification>`` ones for the same reason. Entries never delivered are reported, not imported.
  Newer versions record such a message where it entered the turn as a ``queued_command``
  ``attachment`` line: imported there (once, if a ``remove`` imported it already).
* **The other ``attachment`` lines** (versions since 2.1) are context the harness added to the prompt:
  hook output, reminders, files, listings. What the model read of them is imported where it entered,
  as the harness's text (never as typed); those it never read, and kinds not known here, are counted
  in a note (see `_claude_code_attachments`).
* **Compaction** is a ``system``/``compact_boundary`` line (trigger, preTokens) followed by a user line
  with ``isCompactSummary``: the summary is imported as the user prompt Claude Code sent, and the
  boundary goes to ``recorded_compactions`` with the index of the message holding the summary. A
  ``microcompact_boundary`` clears old results in place, the file keeping them whole: from it, sizes are not fitted.
* **Subagents' conversations** were written into the session file by versions up to 2.0, their
  lines marked ``isSidechain``: the main model saw only each one's final answer, so they are left
  out and counted (a subagent's own file, every line so marked, is that conversation).
* **A rewind** writes nothing of its own: the next message names an earlier line as its parent and
  the lines after that one stay in the file. They are left out and counted (a message the person
  typed whose parent is not the latest line drops the conversation's lines between the two). A rewind
  to before the first message starts a new root: the next message's parent is null, and everything
  of the conversation before it is left out.
* ``isMeta`` user lines (skill bodies, hook ``<system-reminder>`` context, local-command caveats) *are*
  sent to the model, so they are kept; so are ``local_command`` system lines, which Claude Code turns
  into user text for the API. ``progress``, ``file-history-snapshot``, the session's metadata lines
  (``last-prompt``, titles, modes) and other ``system`` subtypes (hook summaries, turn durations) are
  UI bookkeeping and are ignored.
* **Usage is a streaming snapshot on most lines.** Input and cache counts are exact on every line,
  but ``output_tokens`` only reaches its final value on the line written after ``message_delta``
  (recognisable by ``server_tool_use``/``iterations``). Many responses, and every subagent and
  compaction call in the fixtures, never got that line: their ``output_tokens`` is what had streamed
  by the last block (e.g. 6 for a 14 KB compaction summary). Such responses get
  ``metadata={"output_tokens_is_lower_bound": True}`` and are counted in the warnings.
* Redacted thinking signatures (``[REDACTED_SIGNATURE]``) are dropped so a replay never sends a
  signature the API would reject; real ones are kept with ``provider_name="anthropic"``.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from pydantic_ai.messages import ModelResponse, ToolCallPart

from ._anthropic_blocks import add_user_blocks, response_parts
from ._claude_code_attachments import renders, shown_text, skipped_notes
from ._claude_code_kinds import IGNORED_TYPES, RECORD_TYPES
from ._common import BadField, ConversationBuilder, counted, text_of_blocks, wrong_kind
from ._openai_chat import as_mapping
from ._recorded import parse_time, usage_from_mapping
from ._validity import is_blank_part

_TASK_NOTIFICATION = "<task-notification>"
_CONVERSATION_LINES = frozenset({"user", "assistant", "attachment", "system"})  # the lines a rewind can go past
OUTPUT_LOWER_BOUND = "output_tokens_is_lower_bound"
"""``ModelResponse.metadata`` key set when only a streaming usage snapshot was recorded."""


def looks_like_record(record: Mapping[str, Any]) -> bool:
    """A Claude Code line: known ``type`` plus one of the fields every such line carries."""
    kind = record.get("type")
    return kind in RECORD_TYPES and (
        "uuid" in record or "sessionId" in record or kind in {"queue-operation", "file-history-snapshot"}
        or (kind == "summary" and "leafUuid" in record)  # a resumed session's file may open with many
    )


def is_compaction_request(records: list[Mapping[str, Any]]) -> bool:
    """The file is Claude Code's compaction request (``subagents/agent-acompact-*.jsonl``: its lines
    carry ``agentId`` ``acompact-…``): the summary prompt and the model's summary, replayed as one
    request, beside the session it summarised."""
    return any(str(r.get("agentId", "")).startswith("acompact") for r in records[:50])


@dataclass
class _State:
    builder: ConversationBuilder
    message_id: str | None = None
    response: ModelResponse | None = None
    best_output: int = -1
    final_usage: bool = False
    started: datetime | None = None
    queue: list[str] = field(default_factory=list)
    from_queue: list[str] = field(default_factory=list)  # imported at a queue removal, maybe recorded again
    compaction: dict[str, Any] | None = None
    api_errors: int = 0
    injected: int = 0
    file_renders: bool = False  # its attachments carry what the model read of them
    unseen: int = 0  # attachment lines the model read nothing of
    unknown: dict[str, int] = field(default_factory=dict)  # attachment lines of kinds not known here, by kind
    microcompacts: list[tuple[int, int | None]] = field(default_factory=list)  # (request, results cleared) each


def import_claude_code(records: list[Mapping[str, Any]], builder: ConversationBuilder) -> None:
    """Feed Claude Code records into ``builder`` (see the module docstring for the rules)."""
    records = _shaped(records, builder)
    state = _State(builder, file_renders=renders(records))
    for record in _live_branch(_main_conversation(records, builder), builder):
        try:
            _handle(state, record)
        except (KeyError, TypeError, ValueError, AttributeError) as exc:
            builder.skip_malformed(exc)
    if state.compaction is not None:
        builder.record_compaction(state.compaction)
    if state.queue:
        builder.warnings.append(f"{counted(len(state.queue), 'message')} typed while the agent was working "
                                f"{'was' if len(state.queue) == 1 else 'were'} never sent to the model: left out")
    if state.injected:
        builder.warnings.append(f"imported {counted(state.injected, 'message')} typed while the agent was working, "
                                "which Claude Code recorded only in its queue of pending input")
    lower_bound = sum(
        1
        for m in builder.messages
        if isinstance(m, ModelResponse) and (m.metadata or {}).get(OUTPUT_LOWER_BOUND)
    )
    if lower_bound:
        # The replay prices every strategy with the recorded output counts: what was left out is left out of each cost.
        builder.warnings.append(
            f"{counted(lower_bound, 'response')} {'has' if lower_bound == 1 else 'have'} only part of "
            f"{'its' if lower_bound == 1 else 'their'} output counted (Claude Code wrote the usage down before "
            "the reply had finished streaming): output tokens and costs are a lower bound"
        )
    if state.api_errors:
        builder.warnings.append(f"skipped {counted(state.api_errors, 'synthetic API-error assistant line')}")
    builder.warnings.extend(skipped_notes(state.unseen, state.unknown))
    if state.microcompacts:
        counts = [n for _, n in state.microcompacts]  # a count the line does not give: "old tool results", no number
        cleared = "old tool results" if None in counts else counted(sum(n or 0 for n in counts), "old tool result")
        builder.warnings.append(f"Claude Code cleared {cleared} "
                                f"(its microcompact) from request {state.microcompacts[0][0]:,} on: the sizes it recorded "
                                "from there are not used to fit ours, and every strategy replays them whole")


def _shaped(records: list[Mapping[str, Any]], builder: ConversationBuilder) -> list[Mapping[str, Any]]:
    """The lines, but a user's or the model's whose message is not an object holding text or a list
    of blocks: each such line is an entry of an unexpected shape, named in the warning
    (`skip_malformed`). The search for rewinds reads every user line's message before any line is
    imported, and one that was a number, or whose content was one, failed the whole file without
    naming it."""
    kept: list[Mapping[str, Any]] = []
    for record in records:
        if (why := _misshapen(record)) is not None:
            builder.skip_malformed(why)
        else:
            kept.append(record)
    return kept


def _misshapen(record: Mapping[str, Any]) -> BadField | None:
    message = record.get("message")
    if message is None or record.get("type") not in {"user", "assistant"}:
        return None
    if not isinstance(message, Mapping):
        return wrong_kind("a line's message", message, "an object")
    content = message.get("content")
    if content is not None and not isinstance(content, (str, list)):
        return wrong_kind("a message's content", content, "text or a list")
    return None


def _main_conversation(records: list[Mapping[str, Any]], builder: ConversationBuilder) -> list[Mapping[str, Any]]:
    """The lines of the file's own conversation. Versions up to 2.0 wrote a subagent's conversation
    (the Task tool's) into the session file, its lines marked ``isSidechain``; the main model saw only
    its final answer, as the tool's result, so those lines are left out and counted. A file of
    nothing else is a subagent's own (``subagents/agent-*.jsonl``, where every line is so marked):
    it is that conversation."""
    sidechain = [r for r in records if r.get("isSidechain")]
    builder.subagent = bool(sidechain) and all(r.get("isSidechain") for r in records
                                               if r.get("type") in {"user", "assistant"})
    if not sidechain or builder.subagent:
        return records
    builder.warnings.append(f"left out {counted(len(sidechain), 'line')} of subagents' own conversations held in the "
                            "session file: the main model saw only each subagent's final answer, as its tool result")
    return [r for r in records if not r.get("isSidechain")]


def _typed_prompt(record: Mapping[str, Any]) -> bool:
    """A line holding a new message of the person's: user text, no tool result, not the harness's."""
    if record.get("type") != "user" or record.get("isMeta") or record.get("isCompactSummary"):
        return False
    content = (record.get("message") or {}).get("content")
    if isinstance(content, str):
        return True
    blocks = [b for b in content or [] if isinstance(b, Mapping)]
    return any(b.get("type") == "text" for b in blocks) and not any(b.get("type") == "tool_result" for b in blocks)


def _live_branch(records: list[Mapping[str, Any]], builder: ConversationBuilder) -> list[Mapping[str, Any]]:
    """The lines of the conversation as it went on. A rewind writes nothing of its own: the next
    message names an earlier line as its parent (``parentUuid``) and what followed that line stays in
    the file, never seen again by the model. So a message the person typed whose parent is not the
    conversation's latest line drops the conversation's lines between the two (messages, the harness's
    attachments, system lines). A rewind to before the first message makes the next one a new root
    (``parentUuid`` null): every such line before it is dropped, once there was a conversation before."""
    where = {r["uuid"]: i for i, r in enumerate(records) if isinstance(r.get("uuid"), str)}
    dropped: set[int] = set()
    talked = False  # a message of the person's or the model's came before
    for i, record in enumerate(records):
        if _typed_prompt(record):
            parent = -1 if "parentUuid" in record and record["parentUuid"] is None and talked else where.get(
                str(record.get("parentUuid")))
            if parent is not None and parent < i:
                dropped |= {j for j in range(parent + 1, i) if records[j].get("type") in _CONVERSATION_LINES}
        talked = talked or record.get("type") in {"user", "assistant"}
    if not dropped:
        return records
    builder.warnings.append(f"left out {counted(len(dropped), 'line')} the conversation was rewound past: the "
                            "person went on from an earlier message, and the model never saw them again")
    return [r for i, r in enumerate(records) if i not in dropped]


def _handle(state: _State, record: Mapping[str, Any]) -> None:
    kind = record.get("type")
    timestamp = parse_time(record.get("timestamp"))
    if kind == "assistant":
        _assistant(state, record, timestamp)
    elif kind == "user":
        _user(state, record, timestamp)
    elif kind == "queue-operation":
        _queue(state, record, timestamp)
    elif kind == "attachment":
        _attachment(state, record, timestamp)
    elif kind == "system":
        _system(state, record, timestamp)
    elif kind not in IGNORED_TYPES:
        state.builder.skip_kind(kind)


def _assistant(state: _State, record: Mapping[str, Any], timestamp: datetime | None) -> None:
    if record.get("isApiErrorMessage"):
        state.api_errors += 1
        return
    message = record["message"]
    message_id = message.get("id") or record.get("uuid")
    parts = response_parts(message.get("content"))
    for part in parts:
        if isinstance(part, ToolCallPart):
            state.builder.tool_names[part.tool_call_id] = part.tool_name
    if message_id != state.message_id:
        state.message_id, state.response, state.best_output = message_id, None, -1
        state.final_usage = False
        state.started = timestamp  # the first line, even if it is a blank block that gets dropped
    if state.response is None:
        model = message.get("model")
        synthetic = model == "<synthetic>"
        state.response = state.builder.add_response(
            parts,
            model_name=None if synthetic else model,
            provider_name=None if synthetic else "anthropic",
            provider_response_id=None if synthetic else message_id,
            timestamp=state.started or timestamp,
        )
    else:
        state.response.parts = [*state.response.parts, *(p for p in parts if not is_blank_part(p))]
    raw_usage = message.get("usage")
    if state.response is None or not isinstance(raw_usage, Mapping):
        return
    # The snapshot with the most output is the reply's (streamed snapshots count it so far). Its counts
    # are read as every importer reads them (usage_from_mapping): 25.0 is 25, and text, NaN or a
    # negative count marks the request's usage unknown, said once (it was dropped in silence).
    usage = usage_from_mapping(raw_usage)
    if usage is not None and (usage.unmeasured_requests or usage.output_tokens >= state.best_output):
        if not usage.unmeasured_requests:
            state.best_output = usage.output_tokens
        state.response.usage = usage
    # The final usage (message_delta) has `server_tool_use`/`iterations`; streaming snapshots do not
    # and count only the output tokens streamed so far.
    state.final_usage = state.final_usage or bool(
        {"server_tool_use", "iterations"} & raw_usage.keys() or message.get("stop_reason")
    )
    state.response.metadata = None if state.final_usage else {OUTPUT_LOWER_BOUND: True}


def _user(state: _State, record: Mapping[str, Any], timestamp: datetime | None) -> None:
    builder = state.builder
    content = record["message"].get("content")
    if record.get("isCompactSummary"):
        text = text_of_blocks(content)
        part = builder.add_user_text(text, timestamp)
        if state.compaction is not None:
            state.compaction["summary_chars"] = len(text)
            builder.record_compaction(state.compaction, part)
            state.compaction = None
        return

    def typed_or_meta(words: str) -> None:
        _delivered(state, words)
        builder.add_user_text(words, timestamp, harness=bool(record.get("isMeta")))

    add_user_blocks(builder, content, timestamp, typed_or_meta)


def _delivered(state: _State, text: str) -> None:
    """A queued message that arrives as an ordinary user line leaves the queue without being injected."""
    for index, queued in enumerate(state.queue):
        if queued.strip() == text.strip():
            del state.queue[index]
            return


def _queue(state: _State, record: Mapping[str, Any], timestamp: datetime | None) -> None:
    operation = record.get("operation")
    content = record.get("content")
    if operation == "enqueue":
        if isinstance(content, str) and content.strip():
            state.queue.append(content)
    elif operation == "remove" and state.queue:
        named = [i for i, q in enumerate(state.queue) if isinstance(content, str) and q.strip() == content.strip()]
        index = named[0] if named else next(
            (i for i, q in enumerate(state.queue) if not q.lstrip().startswith(_TASK_NOTIFICATION)), 0
        )
        text = state.queue.pop(index)
        if state.builder.add_user_text(text, timestamp) is not None:
            state.injected += 1
            state.from_queue.append(text.strip())
    elif operation == "dequeue" and state.queue:
        state.queue.pop(0)  # delivered as a normal user turn, which has its own line
    elif operation == "popAll":
        state.queue.clear()  # pulled back into the input box, never sent as queued


def _attachment(state: _State, record: Mapping[str, Any], timestamp: datetime | None) -> None:
    """Context the harness added to the prompt is imported as the harness's text, where it entered the
    conversation; an attachment the model never read is counted (see `_claude_code_attachments`).
    A message that entered a running turn is a ``queued_command``: see `_queued_command`."""
    attachment = record["attachment"]
    kind = attachment.get("type")
    if kind == "queued_command":
        _queued_command(state, attachment, timestamp)
        return
    text = shown_text(record, file_renders=state.file_renders)
    if text is None:
        name = str(kind)[:60] if isinstance(kind, str) and kind.strip() else "without a kind"
        state.unknown[name] = state.unknown.get(name, 0) + 1
        state.builder.skipped += 1
    elif state.builder.add_user_text(text, timestamp, harness=True) is None:
        state.unseen += 1
        state.builder.skipped += 1


def _queued_command(state: _State, attachment: Mapping[str, Any], timestamp: datetime | None) -> None:
    """Newer versions record a message that entered a running turn as a ``queued_command``
    attachment. Once imported at its queue removal it is not imported again; else it is imported here
    and leaves the queue. Only a person's prompt (``commandMode`` prompt, ``origin`` human) counts as
    typed."""
    prompt = attachment.get("prompt")
    text = prompt if isinstance(prompt, str) else text_of_blocks(prompt)
    if not text.strip():
        return
    if text.strip() in state.from_queue:
        state.from_queue.remove(text.strip())
        return
    _delivered(state, text)
    origin = attachment.get("origin")
    kind = origin.get("kind") if isinstance(origin, Mapping) else None
    harness = attachment.get("commandMode") not in {None, "prompt"} or kind not in {None, "human"} or bool(
        attachment.get("isMeta"))
    if state.builder.add_user_text(text, timestamp, harness=harness) is not None:
        state.injected += 1


def _system(state: _State, record: Mapping[str, Any], timestamp: datetime | None) -> None:
    subtype = record.get("subtype")
    if subtype == "compact_boundary":
        if state.compaction is not None:  # a boundary without a summary line: anchor at what follows
            state.builder.record_compaction(state.compaction)
        metadata = record.get("compactMetadata") or {}
        state.compaction = {
            "source": "claude-code",
            "kind": "compact_boundary",
            "trigger": metadata.get("trigger"),
            "pre_tokens": metadata.get("preTokens"),
            "timestamp": record.get("timestamp"),
            "message_index": None,
            "summary_chars": None,
        }
        state.message_id, state.response = None, None
    elif subtype == "microcompact_boundary":  # results cleared in place: later sizes are not of this history
        cleared = as_mapping(record.get("microcompactMetadata")).get("compactedToolIds")
        requests = 1 + sum(isinstance(m, ModelResponse) for m in state.builder.messages)
        state.microcompacts.append((requests, len(cleared) if isinstance(cleared, list) else None))
        state.builder.record_compaction({"source": "claude-code", "kind": "microcompact", "timestamp": record.get(
            "timestamp"), "message_index": None})
    elif subtype == "local_command":
        state.builder.add_user_text(str(record.get("content") or ""), timestamp, harness=True)
