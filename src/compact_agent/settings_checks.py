"""The checks a setting goes through beyond its own range (config.Settings), each failure one line
naming where the value came from (a file by its path, a variable, a flag): values that contradict
each other, `extra_dirs` that are files, hooks and MCP servers that could never run — a file's
own tables before they are merged with the other file's. The loading itself: settings_file.py.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from .config import Settings
from .setting_values import Bad, shown

MERGED = ("hooks", "mcp_servers")  # tables both files contribute to (settings_file.py)


class SettingsError(ValueError):
    """A config file or value the user must fix; the message is one line."""


def check_together(settings: Settings, sources: dict[str, str], files: dict[str, str]) -> list[str]:
    """Values each in range that contradict each other (a collapse that commits above the point where
    it holds off compaction, session notes that must keep more than they may), each pair in one
    line naming both settings as a file writes them and where each came from; every pair, not the
    first alone. The pairs are the pipeline's own (`context.plumbing.settings`), so a pair it adds is
    checked here too; whatever else it refuses is said without its class name."""
    from .context.plumbing.settings import ORDERINGS

    problems = []
    for below, above, applies in ORDERINGS:
        low, high = getattr(settings, below), getattr(settings, above)
        if low > high and applies(settings):  # type: ignore[arg-type]  # reads the fields both share
            first, second = (origin(sources[key], files) for key in (below, above))
            if first == second:
                both = "both defaults" if first == "default" else f"both from {first}"
                said = f"{below} = {low!r} must be at most {above} = {high!r} ({both})"
            else:
                said = f"{below} = {low!r} ({_from(first)}) must be at most {above} = {high!r} ({_from(second)})"
            problems.append(f"{said}: lower the first or raise the second")
    if problems:  # the pipeline would refuse the first of them again
        return problems
    try:
        settings.compaction()
    except (TypeError, ValueError) as e:
        from .error_text import first_line

        return [f"bad setting: {first_line(e).replace('CompactionSettings.', '')}"]
    return []


def buffer_note(buffer: int, used: int, window: int, threshold: int, where: str) -> str | None:
    """`autocompact_buffer` larger than the window allows (a tenth of it: context.Limits): the
    pipeline uses the tenth, so a `20k` buffer in an 8K window started fine and /status showed a
    threshold the setting did not explain. One line naming where it came from and what is used;
    None when the setting is used as it is."""
    if buffer <= used:
        return None
    return (f"autocompact_buffer = {buffer:,} (from {where}) does not fit the {window:,}-token window (at most a "
            f"tenth of it); using {used:,} instead: auto-compaction at {threshold:,} tokens")


def no_path(entry: str) -> str | None:
    """Why `entry` of a list of paths can name no folder at all, or None: a NUL character (no file
    name holds one), or a `~user` whose home folder is unknown. Both failed later in Python's words
    ('embedded null byte'), which named neither the setting nor the file."""
    if "\0" in entry:
        return f"{shown(entry)} holds a NUL character, which no path can"
    try:
        Path(entry).expanduser()
    except RuntimeError:
        return f"{shown(entry)} starts with a home folder that is not known ({entry.split('/', 1)[0]})"
    return None


def check_dirs(dirs: list[str], cwd: Path, where: str, warnings: list[str]) -> list[str]:
    """`extra_dirs` are folders (relative ones in the working directory): files there are a mistake
    to stop at, as `--add-dir FILE` is, all named in one line; a folder not there (yet) is a
    warning, since a user file's list is read in every project."""
    if bad := next((why for entry in dirs if (why := no_path(entry))), None):
        return [f"bad value for extra_dirs (from {where}): {bad}"]
    files = []
    for entry in dirs:
        path = Path(entry).expanduser()
        path = path if path.is_absolute() else cwd / path
        if path.is_dir():
            continue
        if path.exists():
            files.append(entry)
            continue
        warnings.append(f"extra_dirs (from {where}): no such folder {path}; kept in the list")
    if not files:
        return []
    are = f"{files[0]} is a file, not a folder" if len(files) == 1 else \
        f"{', '.join(files[:-1])} and {files[-1]} are files, not folders"
    return [f"bad value for extra_dirs (from {where}): {are}; list folders there"]


def _from(origin: str) -> str:
    return "the default" if origin == "default" else f"from {origin}"


def origin(source: str, files: dict[str, str]) -> str:
    """A source as an error names it: a file by its path (the one to open, as `Loaded.where`),
    env and flag sources as they are."""
    return " + ".join(files.get(part, part) for part in source.split(" + "))


def check_extensions(table: dict[str, Any], where: str) -> list[Bad]:
    """What is wrong with one file's hooks and MCP servers, checked before they are merged with the
    other file's, so the line about a bad one names the file it is in."""
    bad: list[Bad] = []
    for key in MERGED:
        if key in table and not isinstance(table[key], dict):
            bad.append(Bad(key, f"from {where}", f"expected a table ([{key}])"))
    if isinstance(table.get("hooks"), dict):
        bad += hook_problems(table["hooks"], where)
    if isinstance(table.get("mcp_servers"), dict):
        bad += server_problems(table["mcp_servers"], where)
    return bad


def hook_problems(hooks: dict[str, Any], where: str) -> list[Bad]:
    """Every hook that could never run, each event's (and each of its commands') on its own: the
    first one stopped start-up, and the next was said once it was fixed. `where`: the file or
    variable the table came from."""
    from .agent.integrations.hooks import EVENTS, LIKE_EVENTS, HookConfigError, parse_hooks
    from .setting_names import closest

    timeout_s = Settings.model_fields["hook_timeout_s"].default  # a hook's own timeout is checked, not this
    bad: list[Bad] = []
    for event, spec in hooks.items():
        key = f"hooks.{event}"
        if event not in EVENTS:
            try:  # raises: its words are the line when this is the only bad value, as they were
                parse_hooks({event: spec}, timeout_s)
            except HookConfigError as e:
                events = f"{', '.join(EVENTS[:-1])} and {EVENTS[-1]}"
                guess = f"; did you mean {like}?" if (like := closest(str(event), LIKE_EVENTS)) else ""
                bad.append(Bad(key, f"from {where}", f"not a hook event (the events are {events}{guess})", f"{where}: {e}"))
            continue
        entries = spec if isinstance(spec, list) else [spec]
        for n, entry in enumerate(entries, 1):
            try:
                parse_hooks({event: entry}, timeout_s)
            except HookConfigError as e:
                reason = _own_part(key, str(e))[1]
                bad.append(Bad(key, f"from {where}", f"hook {n}: {reason}" if len(entries) > 1 else reason,
                               f"{where}: {e}"))
    return bad


def server_problems(servers: dict[str, Any], where: str) -> list[Bad]:
    """As `hook_problems`, for MCP servers: every server that could never start, each said once."""
    if not servers:  # the MCP module loads pydantic-ai: only when there is something to check
        return []
    from .agent.integrations.mcp_servers import McpConfigError, parse_servers

    bad: list[Bad] = []
    for name, spec in servers.items():
        try:
            parse_servers({name: spec})
        except McpConfigError as e:  # each bad key of the server on its own, as any other setting's
            bad += [Bad(key, f"from {where}", reason, f"{where}: {e}")
                    for key, reason in e.problems or [_own_part(f"mcp_servers.{name}", str(e))]]
    return bad


def _own_part(key: str, message: str) -> tuple[str, str]:
    """(`mcp_servers.docs.args`, `expected a list …`) of `mcp_servers.docs.args: expected a list …`,
    the entry `key` names or a part of it, and the reason; (`key`, `message`) when it names none."""
    if message.startswith(key):
        part, colon, reason = message[len(key):].partition(": ")
        if colon and (part == "" or (part.startswith(".") and " " not in part)):
            return key + part, reason
    return key, message
