"""The compaction Cline's SDK keeps beside a session (``<id>.compaction.json``): whether it belongs to
the session's messages, and where in them it ends.

Since July 2026 the SDK keeps the whole conversation in ``<id>.messages.json`` and the compacted view
of its first messages beside it (sdk/packages/core/src/session/models/session-compaction.ts):
``{version, updated_at, conversation_id, source_message_count, source_prefix_hash,
source_last_message_key, messages, system_prompt}``. The SDK uses that view only while the history's
first ``source_message_count`` messages are still the ones it was made from: their fingerprint must be
``source_prefix_hash`` (``projectSessionCompactionState``), else the requests send the whole history.
The fingerprint is a SHA-256 over a seed line, the count and one JSON line per message (its role,
content — a user text as it is displayed, without the SDK's wrappers and mode notices —, agent, session
id, metadata, model and metrics; the releases of July 2026 also its id and time, under seed v1):
`fingerprint`, written here after that description. A file beside that does not match the messages
(another session's, or one from before the history was taken back and written again) was not what
the requests sent, and is not used, with a note. A file without a fingerprint is checked as the SDK
checks it, by the key of the last message it stands for.
"""

from __future__ import annotations

import hashlib
import json
import math
import re
from collections.abc import Mapping
from decimal import Decimal
from pathlib import Path
from typing import Any

from pydantic_ai.usage import RequestUsage

from ..regular_file import NotRegular, TooLarge, read_capped
from ._cline import side_file_refused
from ._common import ConversationBuilder, counted
from ._openai_chat import as_mapping
from ._recorded import decoded, invalid_bytes_note, loads

MESSAGES_SUFFIX = ".messages.json"
SIDECAR_SUFFIX = ".compaction.json"
MAX_SIDECAR_BYTES = 64 << 20
#: A recorded prompt below this share of the one before it: the history it sent was compacted.
FALL = 0.9
#: The fields of a message the fingerprint covers, in its order, by seed (v1 until 2026-07-30).
_FIELDS = {
    "v2": ("role", "content", "agent", "sessionId", "metadata", "modelInfo", "metrics"),
    "v1": ("role", "content", "id", "agent", "sessionId", "metadata", "modelInfo", "metrics", "ts"),
}
#: What JavaScript's String.prototype.trim takes off: its white space and line terminators.
_JS_SPACE = "\t\n\v\f\r \u00a0\u1680\u2000\u2001\u2002\u2003\u2004\u2005\u2006\u2007\u2008\u2009\u200a" \
            "\u2028\u2029\u202f\u205f\u3000\ufeff"
_COMMAND = re.compile(r"^<user_command\b([^>]*)>(.*?)</user_command>\Z", re.DOTALL | re.IGNORECASE | re.ASCII)
_SLASH = re.compile(r'slash="([^"]+)"', re.IGNORECASE)
_TEAM = "spawn a team of agents for the following task:"
_ARRAY_INDEX = re.compile(r"0|[1-9][0-9]*", re.ASCII)
_LONE_SURROGATE = re.compile("[\ud800-\udfff]")


def sidecar(path: Path) -> Path | None:
    """Where the SDK keeps the compacted view of the session at `path` (``<id>.compaction.json``)."""
    return path.with_name(path.name.removesuffix(MESSAGES_SUFFIX) + SIDECAR_SUFFIX) \
        if path.name.endswith(MESSAGES_SUFFIX) else None


def compacted_until(path: Path, entries: list[Any], usage: Mapping[int, RequestUsage], builder: ConversationBuilder
                    ) -> int | None:
    """The index of the first message after the part of the history Cline's first compaction stands for,
    when it kept one beside the file (`sidecar`) that belongs to `entries`; noted. The file beside holds
    only the latest: a re-compaction writes it again over the whole history so far (sdk/packages/core/src/
    extensions/context/compaction.ts, ``createCompactionStateAwarePrepareTurn``), so an earlier one is found
    where the recorded sizes fall (`_first_fall`): the requests between the two sent a compacted view, not
    the history."""
    beside = sidecar(path)
    if beside is None:
        return None
    try:  # a regular file only, without blocking, up to the cap, no link followed (regular_file.py, _cline.py)
        text, invalid = decoded(read_capped(beside, MAX_SIDECAR_BYTES, follow_links=False))
        state = as_mapping(loads(text))
    except (FileNotFoundError, TooLarge):
        return None
    except NotRegular as e:
        builder.warnings.append(f"{beside.name} beside it, Cline's compaction of the session, "
                                f"{side_file_refused(beside, e)}, not read: the sizes it recorded after that compaction "
                                "are fitted as if there was none")
        return None
    except (OSError, json.JSONDecodeError, RecursionError):
        builder.warnings.append(f"{beside.name} beside it, Cline's compaction of the session, cannot be read as "
                                "JSON: the sizes it recorded after that compaction are fitted as if there was none")
        return None
    if invalid:  # read as U+FFFD, as the other files are, and said as they are (`decoded`)
        builder.warnings.append(f"{beside.name} beside it, Cline's compaction of the session: {invalid_bytes_note(invalid)}")
    until = state.get("source_message_count")
    if not isinstance(until, int) or isinstance(until, bool) or not 0 < until <= len(entries):
        return None
    if not belongs(state, entries[:until]):
        builder.warnings.append(
            f"{beside.name} beside it, a compaction of Cline's, was not made from this session's first "
            f"{counted(until, 'message')} (they are not the ones it names): not used, as Cline would not use it")
        return None
    fall = _first_fall(usage, until)
    earlier = "" if fall is None else (
        f"; an earlier one, which Cline keeps no record of, shows where the sizes it recorded fall, between "
        f"messages {fall[0] + 1} and {fall[1] + 1}")
    builder.warnings.append(
        f"Cline compacted this session{'' if fall is None else ' more than once'} ({beside.name} beside it stands "
        f"for its first {counted(until, 'message')}, the latest compaction{earlier}): the history is replayed whole, "
        "and the sizes recorded from there on are not used to fit ours")
    return until if fall is None else fall[0] + 1


def _first_fall(usage: Mapping[int, RequestUsage], until: int) -> tuple[int, int] | None:
    """The indices of the first response, before `until`, whose recorded prompt is clearly smaller than
    the one before it (a history only grows: what it sent was compacted), and of that one before it;
    None when none falls."""
    before: tuple[int, int] | None = None  # the index and prompt of the last response with a recorded prompt
    for index in sorted(i for i in usage if i < until):
        prompt = usage[index].input_tokens
        if not prompt:
            continue
        if before is not None and prompt < before[1] * FALL:
            return before[0], index
        before = (index, prompt)
    return None


# --- whether it belongs to the messages ------------------------------------------------------------------


def belongs(state: Mapping[str, Any], source: list[Any]) -> bool:
    """Whether the compaction `state` was made from the messages `source` (its first
    ``source_message_count``), as the SDK tells: by the fingerprint when it has one (either seed's),
    else by the key of the last of them; a state with neither the SDK never uses."""
    try:
        wanted = state.get("source_prefix_hash")
        if isinstance(wanted, str) and wanted:
            return wanted in (fingerprint(source, "v1"), fingerprint(source, "v2"))
        key = state.get("source_last_message_key")
        return isinstance(key, str) and bool(key) and bool(source) and _boundary_key(source[-1]) == key
    except (TypeError, ValueError, AttributeError, RecursionError):
        return False  # a message the SDK could not have fingerprinted either


def fingerprint(source: list[Any], seed: str) -> str:
    digest = hashlib.sha256(f"cline-session-compaction-source-{seed}\n{len(source)}\n".encode())
    for message in source:
        shown = _shown(message)
        if ":" in shown["role"]:
            raise ValueError("a role with ':'")
        digest.update(js_json([[name, shown.get(name)] for name in _FIELDS[seed]]).encode("utf-8", "surrogatepass"))
        digest.update(b"\n")
    return f"sha256:{digest.hexdigest()}"


def _boundary_key(message: Any) -> str:
    shown = _shown(message)
    ident, stamp = shown.get("id"), shown.get("ts")
    if isinstance(ident, str) and ident.strip(_JS_SPACE):
        return f"id:{ident.strip(_JS_SPACE)}"
    if isinstance(stamp, int | float) and not isinstance(stamp, bool) and math.isfinite(stamp):
        return f"ts:{shown['role']}:{js_json(stamp)}"
    return f"content:{shown['role']}:{js_json(shown['content']) if 'content' in shown else 'undefined'}"


def _shown(message: Any) -> dict[str, Any]:
    """A message as the fingerprint reads it: a user message's texts as the SDK displays them."""
    if not isinstance(message, Mapping) or not isinstance(message.get("role"), str):
        raise TypeError("not a message")
    shown = dict(message)
    content = shown.get("content")
    if shown["role"] == "user":
        if isinstance(content, str):
            shown["content"] = _displayed(content)
        elif isinstance(content, list):
            shown["content"] = [{**part, "text": _displayed(part.get("text"))}
                                if isinstance(part, Mapping) and part.get("type") == "text" else part
                                for part in content]
    return shown


def _displayed(text: Any) -> str:
    """What the SDK displays of a user's text (formatDisplayUserInput): its ``<user_input>`` and
    ``<user_command>`` tags taken off, its ``<mode_notice>`` elements out, a command as ``/name``."""
    if text is None:
        return ""
    if not isinstance(text, str):
        raise TypeError("a text that is not text")
    shown = _without_mode_notices(_unwrapped(text)).strip(_JS_SPACE)
    command = _COMMAND.match(text.strip(_JS_SPACE))
    slash = _SLASH.search(command.group(1)) if command else None
    name = slash.group(1).strip(_JS_SPACE) if slash else ""
    if not name:
        return shown
    if name.lower() == "team":
        rest = shown[len(_TEAM):].strip(_JS_SPACE) if shown.lower().startswith(_TEAM) else shown
        return f"/team {rest}" if rest else "/team"
    return f"/{name} {shown}" if shown else f"/{name}"


def _unwrapped(text: str) -> str:
    """The text without the SDK's ``<user_input>`` and ``<user_command>`` tags (normalizeUserInput)."""
    out = text.strip(_JS_SPACE)
    for tag in ("user_input", "user_command"):
        if not out:
            break
        taken = re.sub(rf"<{tag}\b[^>]*>(.*?)</{tag}>", r"\1", out, flags=re.DOTALL | re.ASCII)
        out = (taken if taken != out else re.sub(rf"<{tag}[^>]*>", "", out)).strip(_JS_SPACE)
    return out


def _without_mode_notices(text: str) -> str:
    opening, closing = "<mode_notice>", "</mode_notice>"
    start = text.find(opening)
    while start != -1:
        end = text.find(closing, start + len(opening))
        if end == -1:
            break
        text = text[:start] + text[end + len(closing):]
        start = text.find(opening, start)
    return text


def js_json(value: Any) -> str:
    """`value` written as JavaScript's JSON.stringify writes it (no spaces, numbers as JavaScript
    prints them, other characters than ASCII as they are)."""
    if value is None or isinstance(value, bool):
        return {None: "null", True: "true", False: "false"}[value]
    if isinstance(value, int | float):
        return _js_number(value)
    if isinstance(value, str):
        return _js_string(value)
    if isinstance(value, Mapping):
        # JavaScript keeps an object's keys in the order written, but for those that are array
        # indices, which come first, smallest first.
        keys = sorted((k for k in value if _ARRAY_INDEX.fullmatch(k) and int(k) < 2 ** 32 - 1), key=int)
        keys += [k for k in value if k not in keys]
        return "{" + ",".join(f"{_js_string(k)}:{js_json(value[k])}" for k in keys) + "}"
    if isinstance(value, list | tuple):
        return "[" + ",".join(js_json(v) for v in value) + "]"
    raise TypeError("not JSON")


def _js_string(text: str) -> str:
    """A string as JSON.stringify writes it: as `json.dumps` does, but for a half of a surrogate pair
    alone, which it escapes."""
    return _LONE_SURROGATE.sub(lambda m: f"\\u{ord(m.group()):04x}", json.dumps(text, ensure_ascii=False))


def _js_number(number: float) -> str:
    """A number as JavaScript prints it (Number.prototype.toString): the shortest digits that read back
    as it, in positional notation from 1e-6 up to 1e21, else as d.ddde±n."""
    if isinstance(number, int) and abs(number) < 2 ** 53:
        return str(number)
    number = float(number)
    if not math.isfinite(number):
        return "null"
    if number == 0:
        return "0"
    written = Decimal(repr(abs(number))).as_tuple()
    digits = "".join(map(str, written.digits)).rstrip("0")
    point = int(written.exponent) + len(written.digits)  # the value is 0.digits × 10^point
    k, minus = len(digits), "-" if number < 0 else ""
    if k <= point <= 21:
        return minus + digits + "0" * (point - k)
    if 0 < point <= 21:
        return minus + digits[:point] + "." + digits[point:]
    if -6 < point <= 0:
        return minus + "0." + "0" * -point + digits
    e = point - 1
    mantissa = digits if k == 1 else digits[0] + "." + digits[1:]
    return f"{minus}{mantissa}e{'+' if e >= 0 else '-'}{abs(e)}"
