"""The agent's settings: every number of the CLI and of the compaction pipeline, in one place.

The pipeline's own numbers and their defaults are `compact_agent.context.CompactionSettings`, a
plain dataclass (the library reads no environment); this class repeats them so config files and
`COMPACT_AGENT_*` variables can set them, and `compaction()` hands them to the library.

Config files (user and project TOML, see settings_file.py) override the defaults, environment
variables prefixed `COMPACT_AGENT_` override the files (e.g. `COMPACT_AGENT_AUTOCOMPACT_BUFFER=20000`),
and command-line flags override everything.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import platformdirs
from pydantic_settings import BaseSettings, SettingsConfigDict

from .context.settings import CompactionSettings, Limits

__all__ = ["Limits", "Settings", "home_dir"]


_D = CompactionSettings()  # the pipeline's numbers have one home: the library's dataclass


class Settings(BaseSettings):
    """User-tunable settings; thresholds are the large-window defaults before scaling."""

    model_config = SettingsConfigDict(env_prefix="COMPACT_AGENT_", extra="ignore")

    model: str = "deepseek-chat"
    base_url: str | None = None
    context_window: int | None = None

    # L5 auto-compact
    autocompact_buffer: int = _D.autocompact_buffer
    summary_output_reserve: int = _D.summary_output_reserve
    max_consecutive_failures: int = _D.max_consecutive_failures
    thrash_requests: int = _D.thrash_requests
    restore_max_files: int = _D.restore_max_files
    restore_tokens_per_file: int = _D.restore_tokens_per_file
    restore_total_tokens: int = _D.restore_total_tokens
    user_messages_budget: int = _D.user_messages_budget
    adaptive_output_reserve: bool = _D.adaptive_output_reserve
    priced_compaction: bool = _D.priced_compaction
    # L1 tool-result budget
    tool_result_max_chars: int = _D.tool_result_max_chars
    tool_results_per_message_chars: int = _D.tool_results_per_message_chars
    tool_result_preview_chars: int = _D.tool_result_preview_chars
    tool_result_room_share: float = _D.tool_result_room_share
    # L3 microcompact
    microcompact_keep_recent: int = _D.microcompact_keep_recent
    microcompact_trigger: int = _D.microcompact_trigger
    microcompact_min_free_tokens: int = _D.microcompact_min_free_tokens
    cache_ttl_minutes: float = 60.0
    anthropic_server_clearing: bool = True
    # L4 collapse (fractions of the auto-compact threshold)
    collapse_enabled: bool = _D.collapse_enabled
    collapse_commit_fraction: float = _D.collapse_commit_fraction
    collapse_blocking_fraction: float = _D.collapse_blocking_fraction
    collapse_target_fraction: float = _D.collapse_target_fraction  # one commit brings the view down to this share: batches, not drips
    collapse_min_gain_fraction: float = _D.collapse_min_gain_fraction  # a commit freeing less is not worth the cache it rewrites
    collapse_keep_recent_rounds: int = _D.collapse_keep_recent_rounds
    # session memory
    memory_min_tokens: int = _D.memory_min_tokens
    memory_min_text_messages: int = _D.memory_min_text_messages
    memory_max_tokens: int = _D.memory_max_tokens
    memory_update_tokens: int = _D.memory_update_tokens  # measured on ../shared/data: 5K doubled the notes calls for no gain
    memory_update_tool_calls: int = _D.memory_update_tool_calls
    memory_enabled: bool = _D.memory_enabled
    memory_start_fraction: float = _D.memory_start_fraction  # notes start once the context passes this share of the threshold
    memory_model: str | None = None  # a cheaper model for the notes; None = the main model, shared prefix
    memory_wait_s: float = _D.memory_wait_s  # how long compaction waits for an extraction in flight
    memory_retry_s: float = _D.memory_retry_s  # back-off after a failed extraction (doubles, capped at 10 min)
    # agent
    max_requests_per_turn: int = 1_000
    # provider failures (see agent/retry.py for who retries what)
    request_timeout_s: float = 600.0  # one HTTP attempt, streaming included
    max_retries: int = 2  # the SDK's own retries of 408/409/429/5xx/connection errors (backoff, retry-after)
    transient_retries: int = 2  # ours, for what the SDK cannot retry: a malformed (non-JSON) reply
    # tools
    bash_timeout_s: float = 120.0
    bash_output_max_chars: int = 30_000
    read_max_bytes: int = 2_000_000
    read_default_lines: int = 2_000
    # the agent's own requests
    summary_model: str | None = None  # None = the main model, sharing its cached prefix (cheapest)
    # permissions (config file [permissions]); deny rules win over allow rules
    allow_bash: list[str] = []
    deny_bash: list[str] = []
    extra_dirs: list[str] = []  # writable besides the working directory
    deny_paths: list[str] = []  # glob patterns of paths that may never be written
    # extensions (config file [hooks] / [mcp_servers]; shapes checked in agent/hooks.py, agent/mcp.py)
    hooks: dict[str, Any] = {}
    hook_timeout_s: float = 10.0
    mcp_servers: dict[str, Any] = {}
    compactable_tools: list[str] = []  # more tools whose old results microcompact may clear

    def compaction(self) -> CompactionSettings:
        """The library's settings, taken from these (same names, same defaults)."""
        return CompactionSettings.from_object(self)


def home_dir() -> Path:
    """Where sessions live: $COMPACT_AGENT_HOME, else the platform's user data dir."""
    env = os.environ.get("COMPACT_AGENT_HOME")
    return Path(env).expanduser() if env else Path(platformdirs.user_data_dir("compact-agent"))
