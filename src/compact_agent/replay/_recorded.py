"""What a transcript recorded besides its messages: when (timestamps) and the provider's token usage.

Formats spell usage differently (input/prompt tokens, cache reads and writes under several names);
each importer hands its mapping to `usage_from_mapping`, and a response without one is marked as
unmeasured so the analyzer does not take zero for a measurement. Counts no provider reports for one
request, and values that are no count (text, NaN, a negative number: a damaged or hand-made file),
are not believed either (`set_aside_absurd_usage`).
"""

from __future__ import annotations

import codecs
import json
import math
from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from datetime import UTC, datetime
from typing import Any, Protocol, TypeVar

from pydantic_ai.messages import (
    ModelMessage,
    ModelResponse,
)
from pydantic_ai.usage import RequestUsage

from ._words import plural

MAX_BELIEVED_TOKENS = 10**9
"""More tokens than any provider reports for one request (the largest windows hold a few million).
A count above it is a damaged or hand-made file: believed, an input of 10**300 tokens priced a request
at a 60-digit cost that broke the tables, and one of 10**400 stopped the analysis (no float holds it)."""


#: What a whole number of more digits than Python reads (`sys.get_int_max_str_digits`, 4,300) is read as:
#: a count no provider reports, so its request's usage is set aside as a 20-digit one is.
TOO_MANY_DIGITS = 10**100


def loads(text: str | bytes) -> Any:
    """`json.loads`, except that a whole number too long for Python to read (4,300 digits and more)
    is read as ±`TOO_MANY_DIGITS` instead of failing the line with a ValueError that no caller
    expects of JSON: one such count in a transcript skipped the whole file ('a field has a type or
    value the importer cannot use'). Read again only for a line that failed so, at no cost to the others."""
    try:
        return json.loads(text)
    except json.JSONDecodeError:
        raise
    except ValueError:  # json raises nothing else a ValueError: int() refused a number's digits
        return json.loads(text, parse_int=_whole)


def _whole(digits: str) -> int:
    try:
        return int(digits)
    except ValueError:
        return -TOO_MANY_DIGITS if digits.startswith("-") else TOO_MANY_DIGITS


def decoded(data: bytes) -> tuple[str, int]:
    """``data`` read as UTF-8 text, as ``errors="replace"`` reads it (each invalid sequence one U+FFFD), and
    how many of its bytes were invalid (a damaged file, or one written partly in another encoding), for
    the warning that says so (`invalid_bytes_note`): they are counted by decoding again without them, a
    megabyte at a time, only when the text holds a replacement character."""
    text = data.decode("utf-8", errors="replace")
    if "\ufffd" not in text:
        return text, 0
    decoder, view, step, kept = codecs.getincrementaldecoder("utf-8")("ignore"), memoryview(data), 1 << 20, 0
    for at in range(0, len(data), step):
        kept += len(decoder.decode(view[at:at + step], final=at + step >= len(data)).encode())
    return text, len(data) - kept


def invalid_bytes_note(n: int) -> str:
    """The warning on the invalid UTF-8 bytes `decoded` replaced in a file."""
    return (f"{n:,} invalid UTF-8 {'byte' if n == 1 else 'bytes'} replaced by the replacement character (U+FFFD): the "
            "file is not all UTF-8 text (damaged, or written partly in another encoding)")


def parse_time(value: Any) -> datetime | None:
    """Parse an ISO-8601 string (``Z`` suffix allowed) or a Unix timestamp into an aware UTC datetime."""
    if isinstance(value, bool) or value is None:
        return None
    if isinstance(value, int | float):
        try:
            return datetime.fromtimestamp(float(value), tz=UTC)
        except (OverflowError, OSError, ValueError):
            return None
    if isinstance(value, str) and value:
        try:
            parsed = datetime.fromisoformat(value.replace("Z", "+00:00"))
        except ValueError:
            return None
        return parsed if parsed.tzinfo else parsed.replace(tzinfo=UTC)
    return None


class _Unreadable(ValueError):
    """A usage field holding what no provider writes for a count of tokens (`_count`)."""

    def __init__(self, key: str, what: str) -> None:
        super().__init__(key)
        self.key, self.what = key, what


def _count(value: Any) -> int | None:
    """A count of tokens as recorded: a whole number, or a float holding one (25798.0, as a pandas or
    JavaScript round trip writes it); None for a field that is not there (missing or null).
    Anything else raises `_Unreadable` with what it is: taken as 0, a cache read written as text or as
    -25798 shrank its request by that much, and the fit of the other requests with it."""
    if value is None:
        return None
    if isinstance(value, bool):
        raise _Unreadable("", "true or false")
    if isinstance(value, float) and value.is_integer():  # not for NaN nor infinity
        value = int(value)
    if isinstance(value, int):
        if value < 0:
            raise _Unreadable("", "a negative number")
        return value
    if isinstance(value, float):
        raise _Unreadable("", "not a number (NaN)" if math.isnan(value) else "infinite" if math.isinf(value)
                          else "a fraction")
    raise _Unreadable("", "text" if isinstance(value, str) else "a list" if isinstance(value, list)
                      else "an object" if isinstance(value, Mapping) else "another kind of value")


def _int(mapping: Mapping[str, Any], *keys: str) -> int:
    """First count found under ``keys`` (dotted paths allowed), else 0: usage blocks vary by provider.
    A value there that is no count (`_count`) raises `_Unreadable` naming its key."""
    found: int | None = None
    for key in keys:
        value: Any = mapping
        for step in key.split("."):
            value = value.get(step) if isinstance(value, Mapping) else None
        try:
            count = _count(value)
        except _Unreadable as exc:
            raise _Unreadable(key, exc.what) from None
        if found is None:
            found = count
    return found or 0


UNREADABLE = "unreadable usage: "
"""How `usage_from_mapping` marks, in an unmeasured usage's ``details``, the field that was no count
(``unreadable usage: cache_read_input_tokens: text``); `set_aside_absurd_usage` says them and clears
the mark."""


class CountReader(Protocol):
    """How `read_counts` hands its reader the counts: the first under ``keys`` (dotted paths allowed), else 0."""

    def __call__(self, mapping: Mapping[str, Any], *keys: str) -> int: ...


T = TypeVar("T")


def read_counts(read: Callable[[CountReader], T]) -> T | RequestUsage:
    """What `read` makes of the counts it takes with the reader it is given (`_int`), or, when any of
    them is no count (`_count`: text, NaN, a negative number, a fraction, a bool), the request's usage
    unknown and marked for `set_aside_absurd_usage` to say, each field that was: no partial count.
    Every importer's counts are read so, whatever its usage's shape (`usage_from_mapping` for the
    common ones). The first field alone was marked: a response whose two counts were both text was
    said as one of the first's."""
    bad: dict[str, str] = {}

    def reader(mapping: Mapping[str, Any], *keys: str) -> int:
        try:
            return _int(mapping, *keys)
        except _Unreadable as exc:  # read on, for the other fields' marks
            bad.setdefault(exc.key, exc.what)
            return 0
    try:
        value = read(reader)
    except _Unreadable as exc:  # a count read without the reader
        bad.setdefault(exc.key, exc.what)
    else:
        if not bad:
            return value
    # No partial count: the request is as one without recorded usage.
    return RequestUsage(unmeasured_requests=1, details={f"{UNREADABLE}{k}: {what}": 1 for k, what in bad.items()})


def usage_from_mapping(raw: Any) -> RequestUsage | None:
    """Normalise a recorded usage block to ``RequestUsage`` whose ``input_tokens`` include cached tokens.

    Three conventions occur in the data:

    * Anthropic (Claude Code): ``input_tokens`` *excludes* ``cache_read_input_tokens`` and
      ``cache_creation_input_tokens``, so the total prompt is their sum.
    * OpenAI chat / DeepSeek: ``prompt_tokens`` is the total; cached tokens are
      ``prompt_cache_hit_tokens`` (DeepSeek) or ``prompt_tokens_details.cached_tokens``.
    * OpenAI Responses / Codex: ``input_tokens`` is the total, ``cached_input_tokens`` the cached part.
    """
    if not isinstance(raw, Mapping):
        return None
    return read_counts(lambda count: _read_usage(raw, count))


def _read_usage(raw: Mapping[str, Any], count: CountReader) -> RequestUsage | None:
    if "prompt_tokens" in raw or "completion_tokens" in raw:
        return RequestUsage(
            input_tokens=count(raw, "prompt_tokens"),
            cache_read_tokens=count(raw, "prompt_cache_hit_tokens", "prompt_tokens_details.cached_tokens"),
            output_tokens=count(raw, "completion_tokens"),
            output_reasoning_tokens=count(raw, "completion_tokens_details.reasoning_tokens"),
        )
    if "cache_read_input_tokens" in raw or "cache_creation_input_tokens" in raw:
        cache_read = count(raw, "cache_read_input_tokens")
        cache_write = count(raw, "cache_creation_input_tokens")
        return RequestUsage(
            input_tokens=count(raw, "input_tokens") + cache_read + cache_write,
            cache_read_tokens=cache_read,
            cache_write_tokens=cache_write,
            cache_write_1h_tokens=count(raw, "cache_creation.ephemeral_1h_input_tokens"),
            output_tokens=count(raw, "output_tokens"),
        )
    if "input_tokens" in raw or "output_tokens" in raw:
        return RequestUsage(
            input_tokens=count(raw, "input_tokens"),
            cache_read_tokens=count(raw, "cached_input_tokens", "input_tokens_details.cached_tokens"),
            output_tokens=count(raw, "output_tokens"),
            output_reasoning_tokens=count(
                raw, "reasoning_output_tokens", "output_tokens_details.reasoning_tokens"
            ),
        )
    return None


def unmeasured_usage() -> RequestUsage:
    """Usage for a response whose source recorded none: ``unmeasured_requests=1`` says so explicitly."""
    return RequestUsage(unmeasured_requests=1)


def has_recorded_usage(response: ModelResponse) -> bool:
    """Whether a response carries usage taken from its source (not the unmeasured placeholder)."""
    return response.usage.unmeasured_requests == 0 and (
        response.usage.input_tokens > 0 or response.usage.output_tokens > 0
    )


def set_aside_absurd_usage(messages: Sequence[ModelMessage]) -> str | None:
    """Treat as unrecorded the usage of each response that counts more than MAX_BELIEVED_TOKENS in one
    of its figures, or holds a value that is no count (marked by `usage_from_mapping`): its size is then
    fitted, its output estimated, as for a response without usage. The warning saying so (one line), or
    None when every count is believable."""
    absurd, unreadable = 0, 0
    fields: Counter[str] = Counter()
    first: list[str] = []  # the first such response's marks: each field that was no count, and what it was
    for m in messages:
        if not isinstance(m, ModelResponse):
            continue
        if marks := [k.removeprefix(UNREADABLE) for k in m.usage.details if k.startswith(UNREADABLE)]:
            m.usage = unmeasured_usage()
            unreadable += 1
            fields.update({mark.partition(": ")[0] for mark in marks})
            first = first or marks
        elif max(m.usage.input_tokens, m.usage.output_tokens, m.usage.cache_read_tokens,
                 m.usage.cache_write_tokens) > MAX_BELIEVED_TOKENS:
            m.usage = unmeasured_usage()
            absurd += 1
    notes = []
    if unreadable:
        each = [f"{key} is {what}" for key, _, what in (mark.partition(": ") for mark in first)]
        said = ", ".join(each) if unreadable == 1 else (
            ", ".join(f"{key} in {count:,}" for key, count in fields.most_common()) + f"; the first: {each[0]}")
        notes.append(f"the recorded usage of {plural(unreadable, 'response')} holds a value that is no count of tokens "
                     f"({said}): not believed, {_replayed(unreadable)}")
    if absurd:
        notes.append(f"the recorded usage of {plural(absurd, 'response')} counts more than {MAX_BELIEVED_TOKENS:,} "
                     f"tokens, more than any provider reports for one request: not believed, {_replayed(absurd)}")
    return "; ".join(notes) or None


def _replayed(n: int) -> str:
    return (f"{'that request is' if n == 1 else 'those are'} replayed as without recorded usage (size fitted, "
            "output estimated)")
