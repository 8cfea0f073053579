"""Every number the agent and the compaction pipeline use, in one place.

Defaults follow the reference pipeline (seed 001): a 13K auto-compact buffer, a 20K summary
output reserve, 5 restored files of 5K tokens within 50K, a circuit breaker of 3, session-memory
compaction keeping 10K-40K tokens and at least 5 text messages. Large-window defaults would eat a
small local model's whole window, so `Limits.for_window` scales each of them down for windows
from 8K up, keeping the proportions sane (reserve <= W/4, buffer <= W/10, ...).

Config files (user and project TOML, see settings_file.py) override the defaults, environment
variables prefixed `COMPACT_AGENT_` override the files (e.g. `COMPACT_AGENT_AUTOCOMPACT_BUFFER=20000`),
and command-line flags override everything.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path
from typing import Annotated, Any

import platformdirs
from pydantic import Field
from pydantic_settings import BaseSettings, SettingsConfigDict

# Ranges every value must be in, wherever it came from: a negative cap or a NaN timeout is a
# mistake (or a hostile project file), and taking it would break every request or every command
# in ways that are hard to trace back. A value out of range is a one-line error at start-up.
Count = Annotated[int, Field(ge=0)]  # tokens, characters, items: 0 allowed (turns the thing off)
Positive = Annotated[int, Field(ge=1)]
Fraction = Annotated[float, Field(ge=0.0, le=1.0, allow_inf_nan=False)]
Seconds = Annotated[float, Field(gt=0.0, le=86_400.0, allow_inf_nan=False)]
Retries = Annotated[int, Field(ge=0, le=10)]
Chars = Annotated[int, Field(ge=100)]  # a cap on what a tool shows: below ~100 nothing useful fits
ShortSeconds = Annotated[float, Field(gt=0.0, le=600.0, allow_inf_nan=False)]  # commands, hooks (max 10 min)


class Settings(BaseSettings):
    """User-tunable settings; thresholds are the large-window defaults before scaling."""

    model_config = SettingsConfigDict(env_prefix="COMPACT_AGENT_", extra="ignore")

    model: str = "deepseek-chat"
    base_url: str | None = None
    context_window: Annotated[int, Field(ge=1_024)] | None = None

    # L5 auto-compact
    autocompact_buffer: Count = 13_000
    summary_output_reserve: Count = 20_000
    max_consecutive_failures: Positive = 3
    thrash_requests: Positive = 3
    restore_max_files: Count = 5
    restore_tokens_per_file: Count = 5_000
    restore_total_tokens: Count = 50_000
    user_messages_budget: Count = 20_000
    # L1 tool-result budget
    tool_result_max_chars: Chars = 50_000
    tool_results_per_message_chars: Chars = 200_000
    tool_result_preview_chars: Count = 2_000
    # L3 microcompact
    microcompact_keep_recent: Count = 5
    microcompact_trigger: Positive = 12
    microcompact_min_free_tokens: Count = 20_000
    cache_ttl_minutes: Annotated[float, Field(ge=0.0, allow_inf_nan=False)] = 60.0
    anthropic_server_clearing: bool = True
    # L4 collapse (fractions of the auto-compact threshold)
    collapse_enabled: bool = True
    collapse_commit_fraction: Fraction = 0.90
    collapse_blocking_fraction: Fraction = 0.95
    collapse_target_fraction: Fraction = 0.50  # one commit brings the view down to this share: batches, not drips
    collapse_min_gain_fraction: Fraction = 0.25  # a commit freeing less is not worth the cache it rewrites
    collapse_keep_recent_rounds: Count = 3
    # session memory
    memory_min_tokens: Count = 10_000
    memory_min_text_messages: Count = 5
    memory_max_tokens: Count = 40_000
    memory_update_tokens: Positive = 10_000  # measured on ../shared/data: 5K doubled the notes calls for no gain
    memory_update_tool_calls: Positive = 3
    memory_enabled: bool = True
    memory_start_fraction: Fraction = 0.75  # notes start once the context passes this share of the threshold
    memory_model: str | None = None  # a cheaper model for the notes; None = the main model, shared prefix
    # how long compaction waits for an extraction in flight (0: not at all)
    memory_wait_s: Annotated[float, Field(ge=0.0, le=600.0, allow_inf_nan=False)] = 2.0
    memory_retry_s: Seconds = 30.0  # back-off after a failed extraction (doubles, capped at 10 min)
    # agent
    max_requests_per_turn: Positive = 1_000
    # provider failures (see agent/retry.py for who retries what)
    request_timeout_s: Seconds = 600.0  # one HTTP attempt, streaming included
    max_retries: Retries = 2  # the SDK's own retries of 408/409/429/5xx/connection errors (backoff, retry-after)
    transient_retries: Retries = 2  # ours, for what the SDK cannot retry: a malformed (non-JSON) reply
    # tools
    bash_timeout_s: ShortSeconds = 120.0
    bash_output_max_chars: Chars = 30_000
    read_max_bytes: Positive = 2_000_000
    read_default_lines: Positive = 2_000
    # the agent's own requests
    summary_model: str | None = None  # None = the main model, sharing its cached prefix (cheapest)
    # permissions (config file [permissions]); deny rules win over allow rules
    allow_bash: list[str] = []
    deny_bash: list[str] = []
    extra_dirs: list[str] = []  # readable and writable besides the working directory
    deny_paths: list[str] = []  # glob patterns of paths the file tools never read nor write
    # extensions (config file [hooks] / [mcp_servers]; shapes checked in agent/hooks.py, agent/mcp.py)
    hooks: dict[str, Any] = {}
    hook_timeout_s: ShortSeconds = 10.0
    mcp_servers: dict[str, Any] = {}
    compactable_tools: list[str] = []  # more tools whose old results microcompact may clear


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
    def for_window(cls, window: int, max_output: int, s: Settings | None = None) -> Limits:
        s = s or Settings()
        window = max(window, 2_048)
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


def home_dir() -> Path:
    """Where sessions live: $COMPACT_AGENT_HOME, else the platform's user data dir."""
    env = os.environ.get("COMPACT_AGENT_HOME")
    return Path(env).expanduser() if env else Path(platformdirs.user_data_dir("compact-agent"))
