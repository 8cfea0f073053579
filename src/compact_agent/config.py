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


class Settings(BaseSettings):
    """User-tunable settings; thresholds are the large-window defaults before scaling."""

    model_config = SettingsConfigDict(env_prefix="COMPACT_AGENT_", extra="ignore")

    model: str = "deepseek-chat"
    base_url: str | None = None
    context_window: int | None = None

    # L5 auto-compact
    autocompact_buffer: int = 13_000
    summary_output_reserve: int = 20_000
    max_consecutive_failures: int = 3
    thrash_requests: int = 3
    restore_max_files: int = 5
    restore_tokens_per_file: int = 5_000
    restore_total_tokens: int = 50_000
    user_messages_budget: int = 20_000
    # L1 tool-result budget
    tool_result_max_chars: int = 50_000
    tool_results_per_message_chars: int = 200_000
    tool_result_preview_chars: int = 2_000
    # L3 microcompact
    microcompact_keep_recent: int = 5
    microcompact_trigger: int = 12
    microcompact_min_free_tokens: int = 20_000
    cache_ttl_minutes: float = 60.0
    anthropic_server_clearing: bool = True
    # L4 collapse (fractions of the auto-compact threshold)
    collapse_enabled: bool = True
    collapse_commit_fraction: float = 0.90
    collapse_blocking_fraction: float = 0.95
    collapse_target_fraction: float = 0.50  # one commit brings the view down to this share: batches, not drips
    collapse_min_gain_fraction: float = 0.25  # a commit freeing less is not worth the cache it rewrites
    collapse_keep_recent_rounds: int = 3
    # session memory
    memory_min_tokens: int = 10_000
    memory_min_text_messages: int = 5
    memory_max_tokens: int = 40_000
    memory_update_tokens: int = 10_000  # measured on ../shared/data: 5K doubled the notes calls for no gain
    memory_update_tool_calls: int = 3
    memory_enabled: bool = True
    memory_start_fraction: float = 0.75  # notes start once the context passes this share of the threshold
    memory_model: str | None = None  # a cheaper model for the notes; None = the main model, shared prefix
    memory_wait_s: float = 2.0  # how long compaction waits for an extraction in flight
    memory_retry_s: float = 30.0  # back-off after a failed extraction (doubles, capped at 10 min)
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
