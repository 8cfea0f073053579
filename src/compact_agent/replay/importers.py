"""Import real agent transcripts as pydantic-ai message histories, for replaying compaction on them.

``load_transcript(path)`` detects the format from the file's *content* (extensions lie: SWE-agent
writes ``.traj``, mini-swe-agent ``.traj.json``, both plain JSON) and returns a :class:`Transcript`
whose ``messages`` form a provider-valid conversation: every ``ToolCallPart`` is answered by one
``ToolReturnPart`` in the very next request, tool results lead their request, requests never sit next
to each other and no message is empty, so ``pydantic_ai.messages.repair_messages`` leaves it unchanged.

Supported formats (see each module's docstring for the traps it handles):

========================  ==========================================================================
``"claude-code"``         Claude Code session JSONL, including ``subagents/agent-*.jsonl``
``"codex"``               Codex CLI rollout JSONL
``"mini-swe-agent"``      mini-swe-agent ``.traj.json`` (``{info, messages}``)
``"openai-chat"``         a JSON list of chat messages, ``{"messages": [...]}``, or JSONL of messages
                          (OpenAI's, or Anthropic's content blocks)
``"cline"``               Cline's (and Roo Code's) task history, ``api_conversation_history.json``
                          (Anthropic blocks), with the usage its ``ui_messages.json`` beside it recorded;
                          and the sessions of Cline's SDK, ``<id>.messages.json`` (`_cline_sdk`)
``"gemini-cli"``          Gemini CLI's saved chats, ``chats/session-*.json`` (one document) or ``.jsonl``
``"swe-agent"``           SWE-agent ``.traj`` (``{history, trajectory, info}``, or a retrying run's ``{attempts}``)
``"compact-agent"``       our own session JSONL, rebuilt uncompacted from its archive chain
========================  ==========================================================================

Recorded usage is attached to each ``ModelResponse`` as ``RequestUsage`` whose ``input_tokens`` is the
whole prompt including cache reads and writes; a response whose source recorded no usage gets
``RequestUsage(unmeasured_requests=1)`` so "unknown" is never confused with zero, and so does one whose
counts no provider reports for one request (more than a billion tokens), with a warning. Lossy choices, made
on purpose and reported in ``Transcript.warnings``: images become ``"[image]"``; redacted Codex text
becomes filler of the recorded length; calls without results and results without calls are dropped.
Damaged input never raises: undecodable or truncated lines and unrecognised entries are counted in
``Transcript.skipped``, and lines that are not JSON are named in the warnings (a last line cut short,
as a session still being written or a partial copy leaves it, apart). Only an unreadable file or one in no known format raises :class:`TranscriptError`.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from pydantic_ai.messages import ModelMessage

from . import _claude_code, _cline, _cline_sdk, _codex, _codex_early, _compact_agent, _gemini_cli, _own_events
from ._common import BadField, ConversationBuilder, counted, wrong_kind
from ._openai_chat import import_chat, import_mini_swe_agent
from ._recorded import decoded, invalid_bytes_note, loads, set_aside_absurd_usage
from ._swe_agent import import_swe_agent

__all__ = ["FORMATS", "Transcript", "TranscriptError", "detect_format", "load_transcript"]

FORMATS = ("claude-code", "codex", "mini-swe-agent", "openai-chat", "cline", "gemini-cli", "swe-agent",
           "compact-agent")
_SNIFF_RECORDS = 50
#: Memory stays bounded whatever the file: a JSON document (read whole to parse) may be this big;
#: a JSONL file is read line by line, and a line longer than MAX_LINE_BYTES is skipped (counted with
#: the damaged lines) without being held — a 2 GB file of NULs or one 100 MB line costs nothing.
MAX_DOCUMENT_BYTES = 64 << 20
MAX_LINE_BYTES = 32 << 20


class TranscriptError(ValueError):
    """A transcript file cannot be read or is in no supported format (the message is one line)."""


@dataclass
class Transcript:
    """One imported transcript.

    Attributes:
        source: the file it was read from.
        format: one of :data:`FORMATS`.
        messages: a provider-valid conversation (see the module docstring).
        skipped: lines or entries that could not be used (bad JSON, truncated, unknown kinds).
        unknown_kinds: of those, the entries of kinds the importer does not know, by kind (named in a warning).
        recorded_compactions: compactions the agent itself performed, in order; each a dict with at
            least ``source``, ``kind``, ``timestamp`` and ``message_index`` (index into ``messages`` of
            the message holding the summary, Claude Code, or the first one after the compaction, Codex).
        warnings: human-readable notes on everything that was repaired, dropped or approximated.
        harness_texts: user-role texts (stripped) the format marks as written by the agent's harness,
            not typed by a person: Claude Code ``isMeta`` lines and local-command output, SWE-agent
            demonstrations and observations, mini-swe-agent observations and format-error notices,
            Cline's user text outside the tags it wraps the person's words in, Codex's context in the
            user's role (its AGENTS.md instructions and environment).
        opening_context: of the harness texts, those in the first request that the agent sends again
            at the head of every compacted history (Codex's initial context): with the system prompt,
            the fixed prompt every replayed request carries (sizing.py).
        compaction_request: the file is the request Claude Code made to summarise a session (its
            ``subagents/agent-acompact-*.jsonl``), not a session of its own: counted apart in the totals.
        subagent: the file is the conversation of a subagent another session started (Claude Code's
            ``subagents/agent-*.jsonl``, a Cline subagent or teammate, a Gemini CLI subagent's chat, a Codex
            rollout whose source is a subagent): replayed as any session, its requests being real ones,
            and said in its caption and the totals' heading.
    """

    source: Path
    format: str
    messages: list[ModelMessage]
    skipped: int = 0
    unknown_kinds: dict[str, int] = field(default_factory=dict)
    recorded_compactions: list[dict[str, Any]] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)
    harness_texts: frozenset[str] = frozenset()
    opening_context: frozenset[str] = frozenset()
    filler_chars: int = 0  # characters of deterministic filler standing for redacted text
    compaction_request: bool = False  # Claude Code's own compaction request (`agent-acompact-*`), not a session
    subagent: bool = False  # a subagent's conversation, in a file of its own
    view_events: list[_compact_agent.ViewEvent] | None = None  # our own sessions' view layers' decisions (_compact_agent.py)


@dataclass
class _Sniffed:
    format: str
    document: Any = None
    records: list[Mapping[str, Any]] = field(default_factory=list)
    bad_lines: int = 0
    cut_short: bool = False  # the last line is one of the bad ones: the file ends in the middle of it
    misshapen: int = 0  # JSON lines left out for a `type` that is no text (`_typed`), and why the first was
    misshapen_why: BadField | None = None
    invalid_bytes: int = 0  # bytes that are not UTF-8, read as U+FFFD (`decoded`)

    def line_warnings(self) -> list[str]:
        """What the lines that are not JSON cost the replay (they are counted in `skipped` too)."""
        notes = ["the file ends in the middle of its last line (a session still being written, or a partial "
                 "copy): replayed without it"] if self.cut_short else []
        if others := self.bad_lines - self.cut_short:
            notes.append(f"skipped {counted(others, 'line')} that {'is' if others == 1 else 'are'} not a JSON object")
        return notes + ([invalid_bytes_note(self.invalid_bytes)] if self.invalid_bytes else [])


def detect_format(path: Path) -> str:
    """Return the format name of the transcript at ``path``, judged from its content."""
    path = Path(path)
    return _sniff(path).format


def load_transcript(path: Path) -> Transcript:
    """Read, detect and convert the transcript at ``path`` (see the module docstring)."""
    path = Path(path)
    sniffed = _sniff(path)
    if sniffed.format == "compact-agent":
        try:  # opened again to be read whole: a pipe or a device swapped in since the sniff is refused, not waited on
            messages, compactions, warnings, undone = _compact_agent.load(path)
        except OSError as exc:
            raise _cannot_read(path, exc) from None
        warnings += [said] if (said := set_aside_absurd_usage(messages)) else []
        return Transcript(path, "compact-agent", messages, sniffed.bad_lines, recorded_compactions=compactions,
                          warnings=warnings, view_events=_own_events.view_events(path, messages, undone))
    builder = ConversationBuilder(fallback_time=_mtime(path))
    builder.skipped = sniffed.bad_lines
    builder.warnings.extend(sniffed.line_warnings())
    if (why := sniffed.misshapen_why) is not None:  # lines of a type that is no text (`_typed`): entries of
        for _ in range(sniffed.misshapen):  # an unexpected shape, named in one warning, as an importer's
            builder.skip_malformed(why)
    if sniffed.format == "claude-code":
        _claude_code.import_claude_code(sniffed.records, builder)
    elif sniffed.format == "codex":
        _codex.import_codex(sniffed.records, builder, path)
    elif sniffed.format == "mini-swe-agent":
        import_mini_swe_agent(sniffed.document, builder, provider=_mini_provider(sniffed.document))
    elif sniffed.format == "swe-agent":
        import_swe_agent(sniffed.document, builder)
    elif sniffed.format == "gemini-cli":
        _gemini_cli.import_gemini_cli([sniffed.document] if sniffed.document is not None else sniffed.records, builder)
    elif sniffed.format == "cline" and isinstance(sniffed.document, Mapping):
        _cline_sdk.import_session(sniffed.document, builder, path)
    elif sniffed.format == "cline":
        _cline.import_cline(sniffed.document, builder, path.parent / _cline.UI_MESSAGES)
    else:
        document = sniffed.document
        chat = document["messages"] if isinstance(document, Mapping) else document or list(sniffed.records)
        import_chat(chat, builder)
    messages = builder.finish()
    if not messages:
        builder.warnings.append("no model-visible messages found")
    if said := set_aside_absurd_usage(messages):
        builder.warnings.append(said)
    compaction_request = sniffed.format == "claude-code" and _claude_code.is_compaction_request(sniffed.records)
    return Transcript(
        source=path,
        format=sniffed.format,
        messages=messages,
        skipped=builder.skipped,
        unknown_kinds=dict(builder.unknown_kinds),
        recorded_compactions=builder.compactions,
        warnings=builder.warnings,
        harness_texts=frozenset(builder.harness),
        opening_context=frozenset(builder.opening),
        filler_chars=builder.filler_chars,
        compaction_request=compaction_request,
        subagent=builder.subagent and not compaction_request,
    )


def _cannot_read(path: Path, exc: OSError) -> TranscriptError:
    return TranscriptError(f"cannot read transcript {path}: {exc.strerror or exc}")


#: The UTF-8 byte order mark some Windows tools write first (PowerShell 5's `-Encoding UTF8`,
#: Notepad before 2019): no JSON parser here takes it, so it is read past, as `utf-8-sig` does.
BOM = b"\xef\xbb\xbf"
UTF16_BOMS = (b"\xff\xfe", b"\xfe\xff")
#: How a zstd frame starts. Codex compresses the rollouts it archives (`archived_sessions/rollout-….jsonl.zst`,
#: codex-rs/rollout/src/compression.rs); the analyzer reads no compressed file, and says so.
ZSTD_MAGIC = b"\x28\xb5\x2f\xfd"
ZSTD_NOTE = ("zstd-compressed (as Codex keeps its archived rollouts), which the analyzer does not read: decompress it "
             "first (zstd -d FILE)")


def _first_byte(path: Path) -> bytes:
    """The first byte that is not whitespace (b"" for an empty or all-blank file), read in chunks."""
    with path.open("rb") as f:
        first = True
        while chunk := f.read(65_536):
            if stripped := (chunk.removeprefix(BOM) if first else chunk).lstrip():
                return stripped[:1]
            first = False
    return b""


def _jsonl(path: Path) -> bool:
    """The first line is a JSON value of its own and more follows: JSON lines, not one document
    (which would be read whole to find out)."""
    with path.open("rb") as f:
        head = f.readline(MAX_LINE_BYTES + 1).removeprefix(BOM)
        if not head.endswith(b"\n") or not f.read(4_096).strip():
            return False
    try:
        loads(head)
    except (json.JSONDecodeError, RecursionError, UnicodeDecodeError):
        return False
    return True


def _lines(path: Path) -> Iterator[bytes | None]:
    """The file's lines; None for one longer than MAX_LINE_BYTES, which is skipped unread."""
    with path.open("rb") as f:
        if f.read(len(BOM)) != BOM:
            f.seek(0)
        while line := f.readline(MAX_LINE_BYTES + 1):
            if len(line) > MAX_LINE_BYTES and not line.endswith(b"\n"):
                while (more := f.readline(1 << 16)) and not more.endswith(b"\n"):
                    pass
                yield None
                continue
            yield line


def _mtime(path: Path) -> datetime:
    """Timestamp for parts whose source has none: the file's mtime keeps repeated loads identical."""
    try:
        return datetime.fromtimestamp(path.stat().st_mtime, tz=UTC)
    except OSError:
        return datetime.fromtimestamp(0, tz=UTC)


def _sniff(path: Path) -> _Sniffed:
    try:
        with path.open("rb") as f:
            start = f.read(len(ZSTD_MAGIC))
            if start[:2] in UTF16_BOMS:  # Windows PowerShell's `>` and Out-File write it
                raise TranscriptError(f"{path}: UTF-16 text (as Windows PowerShell's > writes), which the analyzer "
                                      "does not read: save it as UTF-8")
            if start == ZSTD_MAGIC:  # whatever its name
                raise TranscriptError(f"{path}: {ZSTD_NOTE}")
        first = _first_byte(path)
        if not first:
            raise TranscriptError(f"{path}: empty file, not a transcript")
        size = path.stat().st_size
        unclosed = False  # a JSON document that ends before it is closed: cut short
        if first in (b"{", b"[") and size <= MAX_DOCUMENT_BYTES and not _jsonl(path):
            text, invalid = decoded(path.read_bytes().removeprefix(BOM))
            try:
                document = loads(text)
            except (json.JSONDecodeError, RecursionError):
                document, unclosed = None, text.rstrip()[-1:] not in ("}", "]")
            del text
            if (kind := _document_format(document)) is not None:
                return _Sniffed(kind, document=document, invalid_bytes=invalid)
            del document
        records, bad, cut_short, invalid = _parse_lines(_lines(path))
    except OSError as exc:
        raise _cannot_read(path, exc) from None
    records, misshapen, why = _typed(records)
    lines: dict[str, Any] = {"records": records, "bad_lines": bad, "cut_short": cut_short, "misshapen": misshapen,
                             "misshapen_why": why, "invalid_bytes": invalid}
    for record in records[:_SNIFF_RECORDS]:
        if _gemini_cli.looks_like_record(record):
            return _Sniffed("gemini-cli", **lines)
        if _codex.looks_like_record(record):
            return _Sniffed("codex", **lines)
        if _claude_code.looks_like_record(record):
            return _Sniffed("claude-code", **lines)
        if _compact_agent.looks_like_record(record):
            return _Sniffed("compact-agent", **lines)
    if _codex_early.is_early_rollout(records, _SNIFF_RECORDS):
        return _Sniffed("codex", **{**lines, "records": _codex_early.enveloped(records)})
    if records and all(isinstance(r.get("role"), str) for r in records[:_SNIFF_RECORDS]):
        return _Sniffed("openai-chat", **lines)
    if unclosed and not records:
        raise TranscriptError(f"{path}: a JSON document that ends before it is closed (cut short: a copy of a file "
                              "still being written, or a download cut off): not read")
    if first in (b"{", b"[") and size > MAX_DOCUMENT_BYTES and not records:  # read whole, it could be one
        raise TranscriptError(f"{path}: a JSON document of {_mb(size)}, more than the {_mb(MAX_DOCUMENT_BYTES)} "
                              "the analyzer reads whole: not read")
    raise TranscriptError(
        f"{path}: unknown transcript format (expected Claude Code or Codex JSONL, mini-swe-agent,"
        " SWE-agent, OpenAI or Anthropic chat JSON, a Cline or Roo Code task, a Cline SDK session or a Gemini CLI chat)"
    )


def _mb(size: int) -> str:
    return f"{size / (1 << 20):,.{0 if size >= 10 << 20 else 1}f} MB"


def _document_format(document: Any) -> str | None:
    if isinstance(document, list):
        if not document or not all(isinstance(m, Mapping) and "role" in m for m in document):
            return None
        return "cline" if _cline.looks_like_cline(document) else "openai-chat"
    if not isinstance(document, Mapping):
        return None
    if _gemini_cli.is_session(document):
        return "gemini-cli"
    if _cline_sdk.is_session(document):
        return "cline"
    if isinstance(document.get("messages"), list):
        is_mini = (
            str(document.get("trajectory_format", "")).startswith("mini-swe-agent") or "info" in document
        )
        return "mini-swe-agent" if is_mini else "openai-chat"
    if isinstance(document.get("history"), list) or any(  # a retrying run's attempts, none chosen yet
            isinstance(a, Mapping) and isinstance(a.get("history"), list) for a in _list(document.get("attempts"))):
        return "swe-agent"
    return None


def _list(value: Any) -> list[Any]:
    return value if isinstance(value, list) else []


def _parse_lines(lines: Iterable[bytes | None]) -> tuple[list[Mapping[str, Any]], int, bool, int]:
    """Parse JSONL, counting (not raising on) lines that are not JSON objects: truncation, garbage,
    and lines too long to read (None); whether the last line is such a line without its newline,
    cut short (`head -c`, a copy of a session still being written); and the invalid UTF-8 bytes
    replaced in the lines read (`decoded`)."""
    records: list[Mapping[str, Any]] = []
    bad = invalid = 0
    cut_short = False
    for raw in lines:
        if raw is None:
            bad += 1
            continue
        line, replaced = decoded(raw)
        if not line.strip():
            continue
        try:
            record = loads(line)
        except (json.JSONDecodeError, RecursionError):
            bad += 1
            cut_short = not raw.endswith(b"\n")  # only the file's last line can lack it
            continue
        if isinstance(record, Mapping):
            records.append(record)
            invalid += replaced
        else:
            bad += 1
    return records, bad, cut_short, invalid


def _typed(records: list[Mapping[str, Any]]) -> tuple[list[Mapping[str, Any]], int, BadField | None]:
    """The JSON lines whose `type`, where they have one, is text, as every format's lines have it;
    how many others there were, and why the first was left out. The format's detection and the
    passes an importer makes over the whole file (Claude Code's search for rewinds, Codex's for
    rollbacks) compare each line's type, and one that was a list or an object failed the whole file
    without naming it; such a line costs itself, an entry of an unexpected shape."""
    kept = [r for r in records if isinstance(r.get("type", ""), str)]
    if len(kept) == len(records):
        return records, 0, None
    first = next(r for r in records if not isinstance(r.get("type", ""), str))
    return kept, len(records) - len(kept), wrong_kind("a line's type", first.get("type"), "text")


def _mini_provider(document: Mapping[str, Any]) -> str | None:
    """``deepseek/deepseek-chat`` in the agent config names the provider (litellm convention)."""
    try:
        name = document["info"]["config"]["model"]["model_name"]
    except (KeyError, TypeError):
        return None
    return name.split("/", 1)[0] if isinstance(name, str) and "/" in name else None
