"""The names settings go by: in a file (with its aliases and the keys only a file may hold), and as
`COMPACT_AGENT_*` variables, beside the product's variables that are no settings. A name that is
none of them is a warning with the setting it most resembles, in a file (`modle = "x"`) and in the
environment alike (`COMPACT_AGENT_MODLE=x` was ignored without a word)."""

from __future__ import annotations

import difflib
from collections.abc import Mapping, Sequence
from pathlib import Path

from .config import Settings

ALIASES = {"mcpServers": "mcp_servers", "window": "context_window"}
FILE_ONLY = frozenset({"trusted_projects"})
ENV_PREFIX = "COMPACT_AGENT_"
#: `COMPACT_AGENT_*` variables the product reads or sets that are not settings: where its files live
#: (config.home_dir, settings_file.user_config_path), the crash points of the reliability tests
#: (context/plumbing/crashpoints.py), the demo's keep switch (demo.py), what a hook's command is
#: given (agent/integrations/hooks.py: a compact-agent run by a hook inherits them), and the line a
#: bash command's editor prints (agent/tools/shell.py: a compact-agent run by `bash` inherits it).
OTHER_VARIABLES = frozenset({"COMPACT_AGENT_HOME", "COMPACT_AGENT_CONFIG", "COMPACT_AGENT_CRASH_AT",
                             "COMPACT_AGENT_CRASH_TALLY", "COMPACT_AGENT_DEMO_KEEP", "COMPACT_AGENT_PROJECT_DIR",
                             "COMPACT_AGENT_SESSION_ID", "COMPACT_AGENT_NO_EDITOR"})
#: Variables that look like settings and are not read as such, and what to set instead. A key is
#: read from the provider's own variable (models.api_key_for), never one for all providers: it would
#: be sent to whichever endpoint the model names. (It is still kept out of files and of the commands
#: the agent runs: secrets.KEY_VARS.)
#: Settings of the library's CompactionSettings that the terminal agent does not take, and why: a
#: file, a variable or `analyze --set` naming one is told so, not that there is no such setting.
LIBRARY_ONLY = {"file_tools": "a setting of the library's CompactionSettings only, naming an application's own "
                              "tools that write files; the terminal agent's are its own write_file and edit_file, "
                              "and the analyzer knows the coding tools' names"}


def unknown_setting(key: str, shown: str | None = None, prefix: str = "") -> str:
    """`unknown setting modle (did you mean model?)`, or for a setting of the library only (LIBRARY_ONLY)
    `file_tools is a setting of the library's …`; `shown` is how the key is named (`compaction.file_tools`)."""
    named = shown or key
    if key in LIBRARY_ONLY:
        return f"{named} is {LIBRARY_ONLY[key]}"
    return f"unknown setting {named}{did_you_mean(key, prefix)}"


NOT_READ = {"COMPACT_AGENT_API_KEY": "a key is read from DEEPSEEK_API_KEY, OPENAI_API_KEY or ANTHROPIC_API_KEY "
                                     "(the model's provider's), or given with --api-key"}


def did_you_mean(key: str, prefix: str = "") -> str:
    """` (did you mean model?)` for a key like a setting's name; with `prefix`, said as the variable
    (` (did you mean COMPACT_AGENT_MODEL?)`), and never a key only a file may hold."""
    close = difflib.get_close_matches(key, [*Settings.model_fields, *FILE_ONLY, *ALIASES], n=1, cutoff=0.7)
    guess = ALIASES.get(close[0], close[0]) if close else None
    if guess is None or (prefix and guess in FILE_ONLY):
        return ""
    return f" (did you mean {(prefix + guess).upper() if prefix else guess}?)"


def meant(key: str, known: Sequence[str]) -> str:
    """` (did you mean timeout?)` for a key like one of `known` (an MCP server's or a hook's keys,
    the settings' names), else ""."""
    close = closest(key, known)
    return f" (did you mean {close}?)" if close else ""


def closest(key: str, known: Sequence[str]) -> str | None:
    """The one of `known` that `key` is most like, if it is like one (a typo of it)."""
    close = difflib.get_close_matches(key, known, n=1, cutoff=0.7)
    return close[0] if close else None


def unknown_variables(environ: Mapping[str, str], user_file: Path) -> list[str]:
    """A warning for each `COMPACT_AGENT_*` variable that is no setting. Settings are read from the
    environment whatever the case of their names; the product's other variables (OTHER_VARIABLES)
    only as written."""
    warnings = []
    for name in sorted(environ):
        if not name.upper().startswith(ENV_PREFIX) or name in OTHER_VARIABLES:
            continue
        if name in NOT_READ:
            warnings.append(f"{name} is not read: {NOT_READ[name]}; ignored")
            continue
        key = name[len(ENV_PREFIX):].lower()
        if key in Settings.model_fields:
            continue
        if key in FILE_ONLY:
            warnings.append(f"{name}: {key} is read only from the user file ({user_file}); ignored")
        elif key in LIBRARY_ONLY:
            warnings.append(f"{name}: {key} is {LIBRARY_ONLY[key]}; ignored")
        else:
            warnings.append(f"unknown setting variable {name}{did_you_mean(key, ENV_PREFIX)}; ignored")
    return warnings
