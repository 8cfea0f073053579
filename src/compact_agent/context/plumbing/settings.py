"""Every number the compaction pipeline uses, as one plain dataclass, and the limits for one window.

Defaults follow the reference pipeline: a 13K auto-compact buffer, a 20K summary output reserve, 5
restored files of 5K tokens within 50K, a circuit breaker of 3, session-memory compaction keeping
10K-40K tokens and at least 5 text messages. Large-window defaults would eat a small local model's
whole window, so `Limits.for_window` scales each of them down for windows from 8K up, keeping the
proportions sane (reserve <= W/4, buffer <= W/10, ...).

A library reads no environment and no config file: `CompactionSettings` is built by its caller
(the CLI builds it from its own settings, which do read both).

The settings are frozen: every value is checked where the object is made, and a field set later
would skip that check (a string or a contradictory fraction reached the layers as it was). Another
value is `dataclasses.replace(settings, field=value)`, which makes a new object and checks it again.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable
from dataclasses import dataclass, fields
from typing import Any


def said(value: object) -> str:
    """A value as an error message says it: a number as written, text in quotes, anything else by
    its type's name (a list's or a Decimal's repr is Python, not words the caller wrote)."""
    if value is None or isinstance(value, bool | int | float):
        return str(value)
    if isinstance(value, str):
        return repr(value)
    return kind(value)


def kind(value: object) -> str:
    """What `value` is, by its type's name; a class given where an instance belongs (the
    parentheses forgotten) as "the class X", not by its own type's name ("type", "ABCMeta")."""
    return f"the class {value.__name__}" if isinstance(value, type) else type(value).__name__


def said_with_type(value: object) -> str:
    """`said`, after the type's name where the value says it (`str '64000'`, `float 1.5`)."""
    if value is None or isinstance(value, bool | int | float | str):
        return f"{type(value).__name__} {said(value)}"
    return said(value)


@dataclass(frozen=True)
class CompactionSettings:
    """User-tunable thresholds of every layer; token figures are large-window defaults before scaling.

    Frozen: change a value with `dataclasses.replace(settings, name=value)`, which checks it again.
    """

    # L5 auto-compact
    autocompact_buffer: int = 13_000
    summary_output_reserve: int = 20_000
    max_consecutive_failures: int = 3
    thrash_requests: int = 3
    restore_max_files: int = 5
    restore_tokens_per_file: int = 5_000
    restore_total_tokens: int = 50_000
    user_messages_budget: int = 20_000
    adaptive_output_reserve: bool = True  # the reserve follows the longest answer seen (pipeline.py)
    # Compaction priced (economics.py): earlier than the threshold when that is cheaper, and later
    # (up to the hard limit) when compacting at the threshold could not pay. Off: thresholds only.
    priced_compaction: bool = True
    # A compaction keeps a record of the steps written without a model (context/compaction/summary.py
    # `record_of`) where that is priced cheaper than a summary request; off: always a summary.
    compaction_records: bool = True
    # What one look-again costs the user beyond its tokens: the round trip they wait for (a tool
    # call, its result and the request again: ~5 s) at ~$15/h. Dropping context the model is still
    # using causes look-agains (reuse.py); every priced decision weighs them. 0: tokens only.
    stall_wait_usd: float = 0.02
    # L1 tool-result budget
    tool_result_max_chars: int = 50_000
    tool_results_per_message_chars: int = 200_000
    tool_result_preview_chars: int = 2_000
    tool_result_room_share: float = 0.25  # one result may take this share of the room the window leaves
    # L3 microcompact
    microcompact_keep_recent: int = 5
    microcompact_trigger: int = 12
    microcompact_min_free_tokens: int = 20_000
    # Beyond the coding tools' own names. Any iterable of names is taken; it is kept as a tuple (a
    # set's names sorted, each name once), so it cannot change after the check and the settings hash.
    compactable_tools: Iterable[str] = ()  # any iterable of names, kept as a tuple
    # L5: tools beyond the coding tools' own that write the file their path argument names
    # (`path`, `file_path`, `filename`); the compaction's ledger of changed files lists it. Kept
    # as a tuple too. A settings object of another class may lack it (OPTIONAL_FIELDS).
    file_tools: Iterable[str] = ()
    # L4 collapse (fractions of the auto-compact threshold)
    collapse_enabled: bool = True
    collapse_commit_fraction: float = 0.90
    collapse_blocking_fraction: float = 0.95
    collapse_target_fraction: float = 0.50  # one commit brings the view down to this share: batches, not drips
    collapse_min_gain_fraction: float = 0.25  # a commit freeing less is not worth the cache it rewrites
    collapse_keep_recent_rounds: int = 3
    # session memory (background notes)
    memory_enabled: bool = False  # measured: notes cost more than the summaries they replace (docs/pipeline.md)
    memory_min_tokens: int = 10_000
    memory_min_text_messages: int = 5
    memory_max_tokens: int = 40_000
    memory_update_tokens: int = 10_000  # measured on real sessions: 5K doubled the notes calls for no gain
    memory_update_tool_calls: int = 3
    memory_start_fraction: float = 0.75  # notes start once the context passes this share of the threshold
    memory_wait_s: float = 2.0  # how long compaction waits for an extraction in flight
    memory_retry_s: float = 30.0  # back-off after a failed extraction (doubles, capped at 10 min)

    def __post_init__(self) -> None:
        """Refuse a value of the wrong type or out of range where the settings are made, in one line
        that names the field (a string where a number belongs used to fail deep in a layer, at the
        first request, as a bare comparison error)."""
        for f in fields(self):
            value = getattr(self, f.name)
            if f.name in ("compactable_tools", "file_tools"):
                object.__setattr__(self, f.name, _tool_names(value, f.name))
                continue
            if f.type in (bool, "bool"):
                if not isinstance(value, bool):
                    raise TypeError(f"CompactionSettings.{f.name} must be True or False, not {said(value)}")
                continue
            low, high, what = _RANGES.get(f.name, (0, None, "0 or more"))
            whole = f.type in (int, "int")
            if isinstance(value, bool) or not isinstance(value, int if whole else (int, float)):
                raise TypeError(f"CompactionSettings.{f.name} must be a {'whole ' if whole else ''}number, "
                                f"{what}, not {said(value)}")
            if not math.isfinite(value) or value < low or (high is not None and value > high) or (
                    f.name in _ABOVE_ZERO and value == 0):
                raise ValueError(f"CompactionSettings.{f.name} must be {what}, not {value!r}")
        for below, above, applies in ORDERINGS:
            if applies(self) and getattr(self, below) > getattr(self, above):
                raise ValueError(f"CompactionSettings.{below} ({getattr(self, below)!r}) must be at most "
                                 f"{above} ({getattr(self, above)!r}): lower the first or raise the second")

    @classmethod
    def from_object(cls, source: Any) -> CompactionSettings:
        """The fields of `source` (any object with attributes of these names, e.g. the CLI's settings)."""
        return cls(**{f.name: getattr(source, f.name) for f in fields(cls) if hasattr(source, f.name)})


#: Fields a settings object of another class (an application's own, with these names) may lack:
#: read with their default then. The terminal agent's settings name no tools of their own.
OPTIONAL_FIELDS = frozenset({"file_tools"})

def _tool_names(value: object, name: str) -> tuple[str, ...]:
    """`compactable_tools` (or `file_tools`) as the tuple it is kept as: a list stored as given could
    be appended to after the check (a number among the names reached microcompact) and made the
    settings unhashable."""
    if isinstance(value, str | bytes):
        raise TypeError(f"CompactionSettings.{name} must be a list of tool names, not {said(value)}")
    if not isinstance(value, Iterable):
        raise TypeError(f"CompactionSettings.{name} must be a list of tool names, "
                        f"not {kind(value)}")
    names = list(value)
    for i, tool in enumerate(names):
        if not isinstance(tool, str):
            raise TypeError(f"CompactionSettings.{name} must be a list of tool names, but "
                            f"item {i + 1} is {kind(tool)}, not a name")
    # A set has no order of its own: sorted, so equal settings are equal whatever the set's order.
    return tuple(sorted(names) if isinstance(value, set | frozenset) else dict.fromkeys(names))


#: Allowed ranges where a field's is not "0 or more": (lowest, highest or None, in words).
_RANGES: dict[str, tuple[float, float | None, str]] = {
    **{name: (1, None, "1 or more") for name in (
        "max_consecutive_failures", "thrash_requests", "microcompact_trigger", "memory_update_tokens",
        "memory_update_tool_calls")},
    # below ~100 characters nothing useful of a tool's output fits
    **{name: (100, None, "100 or more") for name in ("tool_result_max_chars", "tool_results_per_message_chars")},
    **{name: (0.0, 1.0, "from 0 to 1") for name in (
        "collapse_commit_fraction", "collapse_blocking_fraction", "collapse_target_fraction",
        "collapse_min_gain_fraction", "memory_start_fraction")},
    "tool_result_room_share": (0.0, 1.0, "more than 0, at most 1 (all of the room)"),
    "memory_wait_s": (0.0, 600.0, "from 0 to 600 seconds"),
    "memory_retry_s": (0.0, 86_400.0, "more than 0 seconds, at most a day"),
}
_ABOVE_ZERO = frozenset({"tool_result_room_share", "memory_retry_s"})


def _collapses(s: CompactionSettings) -> bool:
    """Collapse commits at all (a commit fraction of 0 turns commits off)."""
    return s.collapse_commit_fraction > 0


#: Orderings that must hold between two fields, (lower, higher, when it applies): contradictory
#: values each in range were accepted and made a layer dead or inverted (a collapse that commits
#: above the point where it stops holding off compaction, a commit "down" to a target above where
#: it starts, session notes that must keep more than they may).
ORDERINGS: tuple[tuple[str, str, Callable[[CompactionSettings], bool]], ...] = (
    # a blocking fraction of 0: collapse never holds off compaction, so any commit point goes
    ("collapse_commit_fraction", "collapse_blocking_fraction", lambda s: _collapses(s) and s.collapse_blocking_fraction > 0),
    ("collapse_target_fraction", "collapse_commit_fraction", _collapses),
    ("memory_min_tokens", "memory_max_tokens", lambda s: True),
)


SUMMARY_INSTRUCTION_TOKENS = 700
"""The summary instruction appended after the shared prefix (sent uncached): the output reserve
holds room for it beside the summary (`Schedule.output_limits`), and the pricing counts it."""


def estimate_margin(window: int) -> int:
    """What a request keeps free of the window for the token estimate's error (2%): the hard limit
    keeps it, and so does a summary request's output cap (a provider refuses input + cap over it)."""
    return window // 50


def asked_output(settings: object) -> int:
    """The `max_tokens` a request's model settings ask for (0 when they set none). An
    OpenAI-compatible server counts it against the window with the prompt, and refuses a request
    whose prompt leaves less: an agent with `max_tokens` above the room kept for the answer had such
    requests refused as too long, each a request sent over the window."""
    asked = settings.get("max_tokens") if isinstance(settings, dict) else None
    return asked if isinstance(asked, int) and not isinstance(asked, bool) and asked > 0 else 0


def sendable(window: int, answer_asked: int) -> int:
    """The largest request, as estimated, a provider takes: the window less the `max_tokens` the
    request asks (an OpenAI-compatible server counts it against the window with the prompt) and the
    estimate's margin. Both, never the larger of them alone: the answer's room does not absorb the
    estimate's error (a 4,096-token window asking 500 sent requests a server counted 1-7 tokens over)."""
    return window - estimate_margin(window) - answer_asked


def side_room(window: int, output: int) -> tuple[int, int]:
    """(output, input room) of a request to a side model of its own (a summary or notes model) with
    a smaller `window`: the `output` asked for, at most a quarter of that window (as `for_window`
    keeps the reserve), and the tokens its input may take, what the window leaves after that
    output and the estimate's margin. The summary request (`Keeper.summary_room`) and the notes
    request (`notes.separate_instruction`) are both sized by it."""
    output = min(output, window // 4)
    return output, window - output - estimate_margin(window)


@dataclass(frozen=True)
class Limits:
    """Thresholds resolved for one context window: what the pipeline actually compares against."""

    window: int
    output_reserve: int
    buffer: int
    threshold: int
    restore_max_files: int
    restore_tokens_per_file: int
    restore_total_tokens: int
    user_messages_budget: int
    memory_min_tokens: int
    memory_max_tokens: int
    memory_min_text_messages: int
    max_consecutive_failures: int
    collapse_commit: int
    collapse_blocking: int
    memory_update_tokens: int = 10_000

    @classmethod
    def for_window(cls, window: int, max_output: int, s: Any = None) -> Limits:
        """`s`: a `CompactionSettings` (or any object with its field names); None for the defaults."""
        s = s if s is not None else CompactionSettings()
        if isinstance(window, bool) or not isinstance(window, int):
            raise TypeError(f"a context window must be a whole number of tokens, not {said_with_type(window)}")
        if window < 1:
            raise ValueError(f"a context window must be a positive whole number of tokens, not {window!r}")
        if isinstance(max_output, bool) or not isinstance(max_output, int):  # else a bare comparison error below
            raise TypeError(f"max_output must be a whole number of tokens, not {said_with_type(max_output)}")
        if max_output < 1:  # a reserve of 0 or less kept no room for an answer, a threshold past the window
            raise ValueError(f"max_output must be a whole number of tokens, at least 1, not {max_output}")
        # The window is what the model accepts: never raised here. A window too small for the
        # request's fixed part is refused at the request (pipeline.py), not silently enlarged.
        reserve = min(max_output, s.summary_output_reserve, window // 4)
        buffer = min(s.autocompact_buffer, window // 10)
        threshold = window - reserve - buffer
        # What a compaction may put back must leave room to work: at most ~a quarter of the window.
        restore_total = min(s.restore_total_tokens, window // 4)
        per_file = min(s.restore_tokens_per_file, max(256, restore_total // 2))
        users = min(s.user_messages_budget, window // 8)
        mem_max = min(s.memory_max_tokens, threshold // 3)
        mem_min = min(s.memory_min_tokens, mem_max // 2)
        return cls(
            window=window,
            output_reserve=reserve,
            buffer=buffer,
            threshold=threshold,
            restore_max_files=s.restore_max_files,
            restore_tokens_per_file=per_file,
            restore_total_tokens=restore_total,
            user_messages_budget=users,
            memory_min_tokens=mem_min,
            memory_max_tokens=mem_max,
            memory_min_text_messages=s.memory_min_text_messages,
            max_consecutive_failures=s.max_consecutive_failures,
            collapse_commit=int(threshold * s.collapse_commit_fraction),
            collapse_blocking=int(threshold * s.collapse_blocking_fraction),
            # Notes refresh at least a few times before the window fills, however small it is.
            memory_update_tokens=max(256, min(s.memory_update_tokens, threshold // 5)),
        )
