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
from typing import Annotated, Any

import platformdirs
from pydantic import BeforeValidator, Field, ValidationInfo, field_validator
from pydantic_core import PydanticCustomError
from pydantic_settings import BaseSettings, EnvSettingsSource, PydanticBaseSettingsSource, SettingsConfigDict

from .cli_numbers import parse_tokens
from .context.plumbing.settings import CompactionSettings, Limits
from .price_setting import ModelPrices, parse_prices
from .setting_values import base_type

__all__ = ["Limits", "Settings", "home_dir"]


_D = CompactionSettings()  # the pipeline's numbers have one home: the library's dataclass

# Ranges every value must be in, wherever it came from: a negative cap or a NaN timeout is a
# mistake (or a hostile project file), and taking it would break every request or every command
# in ways that are hard to trace back. A value out of range is a one-line error at start-up.
Count = Annotated[int, Field(ge=0)]  # characters, items: 0 allowed (turns the thing off)
# A number of tokens is written as the window is (cli_numbers.parse_tokens): 13000, "13,000", "13k".
Tokens = Annotated[int, BeforeValidator(lambda v: parse_tokens(v, least=0, most=None))]  # 0 allowed
PositiveTokens = Annotated[int, BeforeValidator(lambda v: parse_tokens(v, least=1, most=None))]
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
    # No minimum of its own: the session refuses a window too small for what every request carries,
    # with the minimum it needs and this setting's file (agent/run/window_check.py). Written as the
    # flag takes it: 32000, "32,000", "32k" or "128K" (cli_numbers.parse_tokens).
    context_window: Annotated[int | None, BeforeValidator(lambda v: v if v is None else parse_tokens(v))] = None
    # The model's prices (price_setting.py); None: the registry's (none for a model it does not know).
    prices: Annotated[ModelPrices | None, BeforeValidator(parse_prices)] = None

    # L5 auto-compact
    autocompact_buffer: Tokens = _D.autocompact_buffer
    summary_output_reserve: Tokens = _D.summary_output_reserve
    max_consecutive_failures: Positive = _D.max_consecutive_failures
    thrash_requests: Positive = _D.thrash_requests
    restore_max_files: Count = _D.restore_max_files
    restore_tokens_per_file: Tokens = _D.restore_tokens_per_file
    restore_total_tokens: Tokens = _D.restore_total_tokens
    user_messages_budget: Tokens = _D.user_messages_budget
    adaptive_output_reserve: bool = _D.adaptive_output_reserve
    priced_compaction: bool = _D.priced_compaction
    compaction_records: bool = _D.compaction_records
    stall_wait_usd: Annotated[float, Field(ge=0.0, allow_inf_nan=False)] = _D.stall_wait_usd
    # L1 tool-result budget
    tool_result_max_chars: Chars = _D.tool_result_max_chars
    tool_results_per_message_chars: Chars = _D.tool_results_per_message_chars
    tool_result_preview_chars: Count = _D.tool_result_preview_chars
    tool_result_room_share: Annotated[float, Field(gt=0.0, le=1.0, allow_inf_nan=False)] = _D.tool_result_room_share  # of the room: all of it at most
    # L3 microcompact
    microcompact_keep_recent: Count = _D.microcompact_keep_recent
    microcompact_trigger: Positive = _D.microcompact_trigger
    microcompact_min_free_tokens: Tokens = _D.microcompact_min_free_tokens
    # How long the provider keeps a prompt cached; None: the model's own (models.py: an hour for DeepSeek,
    # five minutes for Anthropic, an hour for a model it does not know).
    cache_ttl_minutes: Annotated[float | None, Field(gt=0.0, allow_inf_nan=False)] = None
    # Anthropic's server clears old tool results instead of microcompact (opt-in: what it cleared is not
    # reported back, so sizes stay those of the uncleared request; replayed, the local layer kept more).
    anthropic_server_clearing: bool = False
    # L4 collapse (fractions of the auto-compact threshold)
    collapse_enabled: bool = _D.collapse_enabled
    collapse_commit_fraction: Fraction = _D.collapse_commit_fraction
    collapse_blocking_fraction: Fraction = _D.collapse_blocking_fraction
    collapse_target_fraction: Fraction = _D.collapse_target_fraction  # one commit brings the view down to this share: batches, not drips
    collapse_min_gain_fraction: Fraction = _D.collapse_min_gain_fraction  # a commit freeing less is not worth the cache it rewrites
    collapse_keep_recent_rounds: Count = _D.collapse_keep_recent_rounds
    # session memory
    memory_min_tokens: Tokens = _D.memory_min_tokens
    memory_min_text_messages: Count = _D.memory_min_text_messages
    memory_max_tokens: Tokens = _D.memory_max_tokens
    memory_update_tokens: PositiveTokens = _D.memory_update_tokens  # measured on ../shared/data: 5K doubled the notes calls for no gain
    memory_update_tool_calls: Positive = _D.memory_update_tool_calls
    memory_enabled: bool = _D.memory_enabled
    memory_start_fraction: Fraction = _D.memory_start_fraction  # notes start once the context passes this share of the threshold
    memory_model: str | None = None  # a cheaper model for the notes; None = the main model, shared prefix
    # how long compaction waits for an extraction in flight (0: not at all)
    memory_wait_s: Annotated[float, Field(ge=0.0, le=600.0, allow_inf_nan=False)] = _D.memory_wait_s
    memory_retry_s: Seconds = _D.memory_retry_s  # back-off after a failed extraction (doubles, capped at 10 min)
    # agent
    max_requests_per_turn: Positive = 1_000
    # provider failures (see agent/run/retry.py for who retries what)
    request_timeout_s: Seconds = 600.0  # one HTTP attempt, streaming included
    max_retries: Retries = 2  # the SDK's own retries of 408/409/429/5xx/connection errors (backoff, retry-after)
    transient_retries: Retries = 2  # ours, for what the SDK cannot retry: a malformed (non-JSON) reply
    # tools
    bash_timeout_s: ShortSeconds = 120.0
    bash_output_max_chars: Chars = 30_000
    read_max_bytes: Positive = 2_000_000
    read_default_lines: Positive = 2_000
    # images: whether the model takes them (None: as the model registry says; unknown models: no),
    # and the largest image sent (Anthropic's API refuses images over 5 MB)
    images: bool | None = None
    image_max_bytes: Positive = 5 * 1024 * 1024
    # the agent's own requests
    summary_model: str | None = None  # None = the main model, sharing its cached prefix (cheapest)
    # permissions (config file [permissions]); deny rules win over allow rules
    allow_bash: list[str] = []
    deny_bash: list[str] = []
    extra_dirs: list[str] = []  # readable and writable besides the working directory
    deny_paths: list[str] = []  # glob patterns of paths the file tools never read nor write
    # extensions (config file [hooks] / [mcp_servers]; shapes checked in agent/integrations/hooks.py, agent/integrations/mcp_servers.py)
    hooks: dict[str, Any] = {}
    hook_timeout_s: ShortSeconds = 10.0
    mcp_servers: dict[str, Any] = {}
    compactable_tools: list[str] = []  # more tools whose old results microcompact may clear

    @field_validator("*", mode="before")
    @classmethod
    def _true_is_no_number(cls, value: Any, info: ValidationInfo) -> Any:
        """`true` where a number goes is a bad value: pydantic takes it as 1, and `read_max_bytes =
        true` read one byte of every file, `bash_timeout_s = true` gave commands a second."""
        if isinstance(value, bool) and info.field_name in cls.model_fields:
            kind = base_type(cls.model_fields[info.field_name].annotation)
            if kind in (int, float):
                raise PydanticCustomError("int_type" if kind is int else "float_type", "expected a number, not true or false")
        return value

    def compaction(self) -> CompactionSettings:
        """The library's settings, taken from these (same names, same defaults)."""
        return CompactionSettings.from_object(self)

    @classmethod
    def settings_customise_sources(cls, settings_cls: type[BaseSettings], init_settings: PydanticBaseSettingsSource,
                                   env_settings: PydanticBaseSettingsSource,
                                   dotenv_settings: PydanticBaseSettingsSource,
                                   file_secret_settings: PydanticBaseSettingsSource
                                   ) -> tuple[PydanticBaseSettingsSource, ...]:
        return init_settings, EnvSource(settings_cls), dotenv_settings, file_secret_settings


class GivenOnly(Settings):
    """The settings from the values given alone, validated as `Settings` validates them: no
    `COMPACT_AGENT_*` variable, no `.env` file is read (`GivenOnly()` is the product's defaults)."""

    @classmethod
    def settings_customise_sources(cls, settings_cls: type[BaseSettings], init_settings: PydanticBaseSettingsSource,
                                   env_settings: PydanticBaseSettingsSource,
                                   dotenv_settings: PydanticBaseSettingsSource,
                                   file_secret_settings: PydanticBaseSettingsSource
                                   ) -> tuple[PydanticBaseSettingsSource, ...]:
        return (init_settings,)


#: The list settings: each takes one string as a list of one, from a file or the environment.
LISTS = ("allow_bash", "deny_bash", "extra_dirs", "deny_paths", "compactable_tools")


class EnvSource(EnvSettingsSource):
    """`COMPACT_AGENT_*` values, where a list setting also takes one plain string
    (`COMPACT_AGENT_DENY_BASH="rm *"`), as in a file; other lists and tables are JSON."""

    def decode_complex_value(self, field_name: str, field: Any, value: Any) -> Any:
        try:
            return super().decode_complex_value(field_name, field, value)
        except ValueError:
            # One plain string is one rule; text that starts like JSON and is not JSON is a mistake
            # to report, never a rule (a broken `["rm *",` must not stand in for the deny rule).
            if field_name in LISTS and isinstance(value, str) and value.strip() \
                    and not value.lstrip().startswith(("[", "{", '"')):
                return [value]
            if field_name == "prices" and isinstance(value, str):  # 0.27,0.07,1.10: parse_prices reads it
                return value
            raise


def home_dir() -> Path:
    """Where sessions live: $COMPACT_AGENT_HOME, else the platform's user data dir."""
    env = os.environ.get("COMPACT_AGENT_HOME")
    return Path(env).expanduser() if env else Path(platformdirs.user_data_dir("compact-agent"))


def _could_be_made(path: Path) -> None:
    """Raise the OSError that making the folder `path` would raise, leaving nothing behind: its first
    missing part is made and removed (nothing to do when it exists)."""
    first = None
    at = path.absolute()
    while not at.exists():
        first, at = at, at.parent
        if at == first:
            break
    if first is None:
        return
    if not at.is_dir():
        raise NotADirectoryError(0, "Not a directory", str(at))
    first.mkdir()
    first.rmdir()


def home_problem(*, make: bool = True) -> str | None:
    """What is wrong with the folder sessions are kept in, in one line naming it and what to do;
    None when it is usable. `$COMPACT_AGENT_HOME`: the line names the variable (point it elsewhere:
    the path may be anyone's file, `/etc/passwd`). Unset, the platform's default (home_dir()): the
    line names that folder and says to set the variable to one compact-agent can write in (a
    read-only HOME said `Operation not permitted: /sys/.local` and ran on without its prompt saved).
    `make`: create it (and its `projects` folder) as a session would, so a path that cannot be made
    is said at start-up, before anything else happens. Without `make` (a listing, which creates
    nothing), a missing folder is still tried: its first missing part is made and removed at once,
    so a path no session could be kept in (`/proc/nope`) is refused as a run refuses it, not listed
    as a home without sessions."""
    env = os.environ.get("COMPACT_AGENT_HOME")
    default = platformdirs.user_data_dir("compact-agent")
    path = Path(env).expanduser() if env else Path(default)
    if env:
        fix = f"point COMPACT_AGENT_HOME at a folder for compact-agent's sessions, or unset it for the default ({default})"
        is_file, cannot = f"COMPACT_AGENT_HOME={env} is a file, not a folder", f"COMPACT_AGENT_HOME={env}: cannot keep sessions there"
    else:
        fix = "set COMPACT_AGENT_HOME to a folder compact-agent can write its sessions in"
        is_file = f"the default folder for sessions, {default}, is a file, not a folder"
        cannot = f"cannot keep sessions in the default folder, {default}"
    try:
        if path.exists() and not path.is_dir():
            return f"{is_file}; {fix}"
        if make:
            (path / "projects").mkdir(parents=True, exist_ok=True)
        else:
            _could_be_made(path)
        return None
    except OSError as e:  # no [Errno N], no class name: the reason and the folder that could not be made
        reason = ("part of that path is a file, not a folder" if isinstance(e, FileExistsError | NotADirectoryError)
                  else f"{e.strerror or 'cannot be made'}: {e.filename or path}")
        return f"{cannot} ({reason}); {fix}"
