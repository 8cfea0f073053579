"""Cline's sessions as its SDK keeps them (``~/.cline/data/sessions/<id>/<id>.messages.json``) → pydantic-ai messages.

Cline's CLI and its VS Code extension run on its SDK (`cline/cline`, sdk/), which keeps each session
as one JSON document rewritten whole after every turn (its "messages contract v1",
sdk/packages/core/docs/messages-contract-v1.md): ``{version, updated_at, agent, sessionId, messages,
system_prompt}``. The tasks of earlier releases (``tasks/<id>/api_conversation_history.json``) are
`_cline`'s. What is read here:

* The ``messages`` are ``{id, role, content, ts, modelInfo, metrics, metadata}`` with Anthropic content
  blocks (`_anthropic_blocks`); a ``file`` block (a file the person attached or named with ``@``) is
  sent as its text in a ``<file_content path=…>`` element (sdk/packages/shared/src/llms/ai-sdk-format.ts)
  and replayed so, as the harness's text.
* ``system_prompt`` is the system prompt every request carried: the replay's fixed prompt.
* Whose words: the SDK wraps what the person sent in ``<user_input mode=…>``
  (sdk/packages/shared/src/prompt/format.ts): the words inside are the person's, the tags around them
  the harness's (the text is cut there, nothing of it lost), as are the rest of a user message, a
  ``<mode_notice>`` beside it, the text that comes with tool results and the messages the SDK inserts
  itself (their ``metadata.kind`` names them: reminders, recovery notices). Text without the wrapper
  in a plain message is the person's (releases before it). Inside the wrapper Cline puts text of its
  own where the person typed a command or named a file (`_CLINES`), which is the harness's too: a
  built-in command's instructions (``/deep-planning`` in ``<explicit_instructions type=…>``;
  apps/vscode/src/sdk/builtin-slash-commands.ts), a command the CLI expanded in
  ``<user_command slash=…>`` (the command's instructions, formatUserCommandBlock; of ``/team``, the
  words after its fixed request are the person's), a ``<mode_notice>`` put before the words, and
  what an ``@`` mention brought in (apps/vscode/src/core/mentions: ``<file_content>``,
  ``<folder_content>``, ``<url_content>``, ``<workspace_diagnostics>``, ``<terminal_output>``,
  ``<git_working_state>``, ``<git_commit>``). A workflow's text the SDK puts in place of its
  ``/name`` bare, with no mark of its own (resolveRuntimeSlashCommand, expandSlashCommands), cannot be
  told from the person's and counts as typed.
* Usage: each response's ``metrics`` (`_recorded_usage`).
* Compaction: releases before July 2026 rewrote the file compacted, the earlier conversation gone and a
  summary (``metadata.kind`` ``compaction_summary``) or, compacting without a model, the first kept
  prompt (``compaction``) in its place at its head; that is what was sent from then on, so it is
  replayed as it stands, the summary as the harness's text, and its recorded sizes are fitted. Since
  then the file keeps the whole conversation and the compacted view of its first messages is kept
  beside it (``<id>.compaction.json``, ``source_message_count``; sdk/packages/core/src/session/models/
  session-compaction.ts): the history is replayed whole and the compaction recorded where it ended, or
  where the recorded sizes fall before it (an earlier compaction, which the file beside no longer records);
  a file beside that was not made from these messages is not used (`_cline_sidecar`).
* A subagent's or a teammate's conversation (``agent``) is a file of its own in the session's folder,
  replayed as a session of its own (the session that started it saw only its answer): said in a note.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from pydantic_ai.messages import SystemPromptPart
from pydantic_ai.usage import RequestUsage

from ._anthropic_blocks import add_user_blocks, response_parts
from ._cline import typed_spans
from ._cline_sidecar import compacted_until
from ._common import ConversationBuilder, counted
from ._openai_chat import as_mapping
from ._recorded import CountReader, parse_time, read_counts

#: What the SDK wraps the person's words in (formatUserInputBlock): the words between the tags (group
#: ``words``) are the person's, the tags the SDK's.
_TYPED = re.compile(r"<(user_input)\b[^>]*>(?P<words>.*?)</\1>", re.DOTALL)
#: What ``/team`` asks for before the person's words (apps/cli/src/utils/team-command.ts, rewriteTeamPrompt).
TEAM_REQUEST = "spawn a team of agents for the following task: "
#: Cline's own text among the person's words (see the module docstring): each block whole, but for
#: the words of a ``/team`` command (group ``task``), which are the person's.
_CLINES = re.compile(
    r"<(?P<tag>explicit_instructions|mode_notice|file_content|folder_content|url_content|workspace_diagnostics"
    r"|terminal_output|git_working_state|git_commit)\b[^>]*>.*?</(?P=tag)>"
    r'|<user_command\b[^>]*\bslash="team"[^>]*>' + re.escape(TEAM_REQUEST) + r"(?P<task>.*?)</user_command>"
    r"|<user_command\b[^>]*>.*?</user_command>", re.DOTALL)
_COUNTS = ("inputTokens", "outputTokens", "cacheReadTokens", "cacheWriteTokens")


def is_session(document: Any) -> bool:
    """The SDK's session document: a version, the session's id and its messages."""
    return (isinstance(document, Mapping) and isinstance(document.get("version"), int)
            and isinstance(document.get("sessionId"), str) and isinstance(document.get("messages"), list))


def import_session(document: Mapping[str, Any], builder: ConversationBuilder, path: Path) -> None:
    """Feed the session `document` read from `path` into `builder` (see the module docstring)."""
    entries: list[Any] = document["messages"]
    agent = document.get("agent")
    if agent in ("subagent", "teammate"):
        builder.subagent = True
        builder.warnings.append(f"the conversation of a Cline {agent} (agent: {agent}), whose session saw only its "
                                "answer: replayed as a session of its own")
    system = document.get("system_prompt")
    if isinstance(system, str) and system.strip():
        builder.add_request_part(SystemPromptPart(system, timestamp=builder.fallback_time))
    usage = _recorded_usage(entries, builder)
    cut = compacted_until(path, entries, usage, builder)
    for index, entry in enumerate([*entries, None]):
        if index == cut:  # before the message it ends at (the next added), as Codex's compactions are recorded
            builder.record_compaction({"source": "cline", "kind": "compaction", "timestamp": None,
                                       "message_index": None})
        if index == len(entries):
            break
        if not isinstance(entry, Mapping):
            builder.skipped += 1
            continue
        try:
            _entry(builder, entry, index, usage.get(index))
        except (KeyError, TypeError, ValueError, AttributeError) as exc:
            builder.skip_malformed(exc)


def _entry(builder: ConversationBuilder, entry: Mapping[str, Any], index: int, usage: RequestUsage | None) -> None:
    stamp = entry.get("ts")
    timestamp = parse_time(stamp / 1000 if isinstance(stamp, int | float) and not isinstance(stamp, bool) else None)
    role = entry.get("role")
    metadata = as_mapping(entry.get("metadata"))
    kind = metadata.get("kind")
    if role == "user" and kind in ("compaction_summary", "compaction") and _compaction(builder, entry, index, metadata):
        return
    if role == "user":
        files: set[str] = set()
        content = _as_sent(entry["content"], files)
        plain = not kind and not _has_results(content)

        def text(words: str) -> None:
            for piece, typed in _pieces(words, plain and words not in files):
                builder.add_user_text(piece, timestamp, harness=not typed)

        add_user_blocks(builder, content, timestamp, text)
    elif role == "assistant":
        model = as_mapping(entry.get("modelInfo"))
        model_id, provider = model.get("id"), model.get("provider")
        builder.add_response(
            response_parts(entry["content"]),
            usage=usage,
            model_name=model_id if isinstance(model_id, str) else None,
            provider_name=provider if isinstance(provider, str) and isinstance(model_id, str) else None,
            timestamp=timestamp,
        )
    else:
        builder.skip_kind(role)


def _has_results(content: Any) -> bool:
    """A user message's content holds tool results: it goes on a run, not a new prompt."""
    return isinstance(content, list) and any(isinstance(b, Mapping) and b.get("type") == "tool_result"
                                             for b in content)


def _pieces(text: str, plain: bool) -> list[tuple[str, bool]]:
    """`text` cut into pieces, each with whether it is the person's: the spans the SDK wrapped as
    theirs; without one, the whole text of a plain message (`plain`), unless it is Cline's note on
    resuming a task."""
    if not _TYPED.search(text):
        pieces = [(text, plain and not text.lstrip().startswith("[TASK RESUMPTION]"))]
    else:
        pieces = typed_spans(text, _TYPED)
    return [cut for piece, typed in pieces for cut in (_without_clines(piece) if typed else [(piece, False)])]


def _without_clines(words: str) -> list[tuple[str, bool]]:
    """The person's `words` cut where Cline's own text stands among them (`_CLINES`), that text the
    harness's; the pieces joined are `words`."""
    pieces: list[tuple[str, bool]] = []
    at = 0
    for match in _CLINES.finditer(words):
        pieces.append((words[at:match.start()], True))
        if match.group("task") is not None:
            pieces += [(words[match.start():match.start("task")], False), (match.group("task"), True),
                       (words[match.end("task"):match.end()], False)]
        else:
            pieces.append((match.group(), False))
        at = match.end()
    return [*pieces, (words[at:], True)]


def _as_sent(content: Any, files: set[str]) -> list[Any]:
    """A user message's blocks as the SDK sends them: each ``file`` block, in the message or in a
    tool's result, as its ``<file_content>`` text (formatFileContentBlock), which goes in `files`."""
    blocks = [{"type": "text", "text": content}] if isinstance(content, str) else list(content)

    def sent(block: Any) -> Any:
        if not isinstance(block, Mapping):
            return block
        if block.get("type") == "file":
            text = f'<file_content path="{block.get("path")}">\n{block.get("content") or ""}\n</file_content>'
            files.add(text)
            return {"type": "text", "text": text}
        if block.get("type") == "tool_result" and isinstance(block.get("content"), list):
            return {**block, "content": [sent(b) for b in block["content"]]}
        return block

    return [sent(b) for b in blocks]


def _compaction(builder: ConversationBuilder, entry: Mapping[str, Any], index: int,
                metadata: Mapping[str, Any]) -> bool:
    """A compaction the file was rewritten with (releases before July 2026), recorded and said in a
    note; whether its message is imported here (else it is imported as any user message). At the
    file's head, where the SDK puts it, nothing of the conversation before it is left: the replay
    starts from it, and it is recorded without a message, so the sizes recorded after it, of requests
    that sent what the file holds, are fitted. Anywhere else the history before it is replayed whole
    and it is recorded at its message, as Claude Code's compactions are: a summary, the harness's
    text, is then left out of the replay."""
    summary = metadata.get("kind") == "compaction_summary"
    at = metadata.get("generatedAt")
    record: dict[str, Any] = {"source": "cline", "kind": "summary" if summary else "compaction",
                              "timestamp": parse_time(at / 1000) if isinstance(at, int | float)
                              and not isinstance(at, bool) else None, "message_index": None}
    if index == 0:
        builder.compactions.append(record)
        builder.warnings.append(f"Cline compacted this session before the file was last written: the conversation "
                                f"before it is gone, {'a summary' if summary else 'what Cline kept of it'} in its place, "
                                "and it is replayed from there")
        return False
    if not summary:
        builder.record_compaction(record)
        return False
    content = entry["content"]
    words = content if isinstance(content, str) else "\n".join(
        b.get("text") or "" for b in content if isinstance(b, Mapping) and b.get("type") == "text")
    part = builder.add_user_text(words, record["timestamp"], harness=True)
    builder.record_compaction({**record, "summary_chars": len(words) if part else None}, part)
    return True


# --- usage ---------------------------------------------------------------------------------------------------


def _counts(entry: Mapping[str, Any]) -> tuple[int, int, int, int] | None | RequestUsage:
    """A response's ``metrics`` as (input, output, cache reads, cache writes), when it holds any, read as
    every importer reads counts (`read_counts`): 25.0 is 25, and one that is no count (text, NaN, a
    negative number) makes the request's usage unknown (that usage, marked to be said)."""
    return read_counts(lambda count: _metrics(entry, count))


def _metrics(entry: Mapping[str, Any], count: CountReader) -> tuple[int, int, int, int] | None:
    counts = tuple(count(entry, f"metrics.{key}") for key in _COUNTS)
    return (counts[0], counts[1], counts[2], counts[3]) if any(counts) else None


def _usage(counts: tuple[int, int, int, int]) -> RequestUsage:
    """A request's size from its metrics. The SDK's ``inputTokens`` is the whole prompt, its cache reads
    and writes included: the gateway takes the AI SDK's total (sdk/packages/llms/src/providers/ai-sdk.ts,
    ``normalizeUsage``: ``inputTokens.total``, and its cost takes the cached parts out of it), and Cline's
    own extension says so where it splits the three apart for its old views
    (apps/vscode/src/sdk/message-translator.ts, ``normalizeUsageEvent``). Not summed, then, as the task
    history's counts are (`_cline._usage`). A handler that reports them apart (the pre-SDK providers,
    which the SDK still runs through its ApiStream adapter) gives an input smaller than its cached part:
    that one is summed."""
    total, output, read, write = counts
    return RequestUsage(input_tokens=total if total >= read + write else total + read + write,
                        cache_read_tokens=read, cache_write_tokens=write, output_tokens=output)


def _recorded_usage(entries: list[Any], builder: ConversationBuilder) -> dict[int, RequestUsage]:
    """The usage of each response, by its index: its ``metrics``, the counts of its own request since the
    SDK stamps each response with them (sdk/packages/agents/src/agent-runtime.ts, ``usageDelta``).
    Releases before that (2026-04-22) put the total of a run, a prompt and every request made for it, on
    the run's last response; until 2026-05-12 they also did on a last response without counts of its own
    beside the others' own; and Cline still does (at its SDK v0.0.78, 2026-08-22) on the last response of a
    run none of whose responses has counts of its own (sdk/packages/core/src/services/session-data.ts,
    ``withLatestAssistantTurnMetadata``, "fall back to result.usage (total run usage)"): such a total —
    the only counts of a run of several requests, or the sum of the others' — is no request's size, and
    is left out with a note. A response whose metrics hold a value that is no count keeps its usage unknown,
    said as such (`read_counts`): no total is told in a run that holds one."""
    usage: dict[int, RequestUsage] = {}
    totals = 0
    run: list[tuple[int, tuple[int, int, int, int] | None | RequestUsage]] = []  # the responses since the last prompt

    def close() -> None:
        nonlocal totals
        if len(run) < 2 or not isinstance(run[-1][1], tuple):
            return
        others = [c for _, c in run[:-1] if c is not None]
        if not all(isinstance(c, tuple) for c in others):  # counts unread: whether the last sums them is unknown
            return
        if not others or tuple(map(sum, zip(*others, strict=True))) == run[-1][1]:
            usage.pop(run[-1][0], None)
            totals += 1

    for index, entry in enumerate(entries):
        if not isinstance(entry, Mapping):
            continue
        if entry.get("role") == "user" and not _has_results(entry.get("content")):
            close()
            run = []
        elif entry.get("role") == "assistant":
            counts = _counts(entry)
            run.append((index, counts))
            if counts is not None:
                usage[index] = counts if isinstance(counts, RequestUsage) else _usage(counts)
    close()
    if totals:
        builder.warnings.append(
            f"{counted(totals, 'response')} ending a run of several requests {'carries' if totals == 1 else 'carry'} "
            "the only usage recorded in the run, or the sum of the others': the run's total, which Cline records "
            "there when the run's requests have no counts of their own, not one request's size: not used")
    return usage
