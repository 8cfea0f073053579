"""Settings from config files, the environment and flags, and where each value came from.

Precedence, lowest first: the defaults in `config.Settings`, the user file
(`platformdirs.user_config_dir("compact-agent")/config.toml`, or `$COMPACT_AGENT_CONFIG`), the
project file (`.compact-agent.toml` in the working directory), `COMPACT_AGENT_*` environment
variables, then command-line flags. `compact-agent config` prints the result with the source of
every value, because "why is the threshold 40K?" is otherwise a hunt through four places.

A file's keys are `Settings` field names, at the top level or inside any table used as a section
(`[compaction]`, `[permissions]`, ...), so a file reads well without nesting mattering. `hooks`
and `mcp_servers` are tables of their own; both files contribute to them (user first), and a
setting's name in them is that setting (`hook_timeout_s` beside the hooks). A list setting takes
one string as a list of one (`deny_bash = "rm *"`). An error is one line naming the file by its
path (or the variable or flag) the bad value came from.

A project file comes with the repository, i.e. from whoever wrote the repository. Keys that run
commands or widen what the agent may do — hooks, MCP servers, allow rules, extra writable dirs,
and the base URL (the API key is sent there) — and the limits (retries, timeouts, requests per
turn, read and output sizes) are honoured from a project file only when the user file lists the
directory in `trusted_projects`; otherwise they are ignored with a warning. So are the keys that
choose where the conversation goes and what it costs (the models, the window, the sizes of what
tools show, which tools' results may be cleared): a cloned repository must not send the user's
code to another model, nor to the dearest one. The deny lists only add up: a project's
`deny_paths` / `deny_bash` join the user's (and the environment's and flags'), never replace them,
and `compact-agent config` shows each rule with the place it came from. Every value, from any
source, must be in its range (`config.Settings`), or start-up stops with one line naming it; the
checks beyond a value's own range (values that contradict each other, hooks and MCP servers that
could never run, `extra_dirs` that are files) are in settings_checks.py.
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

import platformdirs
from pydantic import ValidationError

from .config import LISTS, GivenOnly, Settings
from .secrets import hide_url_passwords, shown_url
from .setting_names import ALIASES, FILE_ONLY, unknown_setting, unknown_variables
from .setting_values import Bad, bad_values, said, shown, toml_text
from .settings_checks import (
    MERGED,
    check_dirs,
    check_extensions,
    check_together,
    hook_problems,
    no_path,
    origin,
    server_problems,
)
from .settings_checks import SettingsError as SettingsError  # where the command line and /config catch it
from .settings_env import env_values
from .settings_toml import read_or_say
from .settings_toml import read_toml as read_toml  # where the instructions' tests read a file

PROJECT_FILE = ".compact-agent.toml"
#: Settings a project file may set only for a trusted project: they run code or widen access, or
#: they are limits on what a run may cost in time, requests and memory (retries, timeouts, sizes) —
#: a repository, or the model that writes into it, must not be able to make a run endless.
LIMITS = frozenset({"max_retries", "transient_retries", "request_timeout_s", "bash_timeout_s", "hook_timeout_s",
                    "max_requests_per_turn", "memory_wait_s", "memory_retry_s", "read_max_bytes",
                    "bash_output_max_chars", "image_max_bytes"})
#: Settings that choose the model (where the conversation and its summaries go, and at what price)
#: and how much of it each request carries: a project file must not pick them for the user.
ROUTING = frozenset({"model", "summary_model", "memory_model", "memory_enabled", "context_window", "prices",
                     "tool_result_max_chars", "read_default_lines", "compactable_tools", "images"})
TRUST_NEEDED = frozenset({"hooks", "mcp_servers", "allow_bash", "extra_dirs", "base_url"}) | LIMITS | ROUTING
#: Restrictions: every source adds its rules to the others', none can take one away.
UNION = ("deny_paths", "deny_bash")


def user_config_path() -> Path:
    env = os.environ.get("COMPACT_AGENT_CONFIG")
    return Path(env).expanduser() if env else Path(platformdirs.user_config_dir("compact-agent")) / "config.toml"


@dataclass
class Loaded:
    settings: Settings
    sources: dict[str, str]  # field -> "default" | "user file" | "project file" | "env NAME" | "session" | "flag"
    user_file: Path
    project_file: Path
    warnings: list[str] = field(default_factory=list)
    trusted: bool = False
    #: deny_paths / deny_bash: each rule with the source that added it (first source wins)
    rule_sources: dict[str, list[tuple[str, str]]] = field(default_factory=dict)
    #: the user file's `trusted_projects`, as written there (`config` lists them)
    trusted_projects: list[str] = field(default_factory=list)

    @property
    def files(self) -> dict[str, str]:
        """The two files a setting may come from, by the source names `sources` uses."""
        return {"user file": str(self.user_file), "project file": str(self.project_file)}

    def where(self, key: str) -> str:
        """Where setting `key` came from, a file by its path (`/home/me/.config/…/config.toml`)."""
        source = self.sources.get(key, "default")
        return self.files.get(source, source)


def with_changes(loaded: Loaded, source: str, *, append: bool = False, **values: Any) -> Loaded:
    """`loaded` with `values` set by `source` ("flag", "/model"): what a session really runs with,
    for `/config`. `append`: lists join the files' (`--add-dir`, `--allowed-tools 'bash(...)'`)."""
    update: dict[str, Any] = {}
    sources = dict(loaded.sources)
    for key, value in values.items():
        if append:
            value = [*getattr(loaded.settings, key), *value]
        if value == getattr(loaded.settings, key):
            continue
        update[key] = value
        was = sources.get(key, "default")
        sources[key] = f"{was} + {source}" if append and was != "default" else source
    return replace(loaded, settings=loaded.settings.model_copy(update=update), sources=sources) if update else loaded


def flatten(doc: dict[str, Any], where: str, warnings: list[str]) -> dict[str, Any]:
    """Field name -> value; tables that are not fields are sections and are opened one level.
    `[hooks]` and `[mcp_servers]` are sections too: a setting's name in them (`hook_timeout_s`
    under `[hooks]`, `compactable_tools` under `[mcp_servers]`) is that setting, not a hook event
    nor a server (an MCP server is a table: a table under a setting's name stays a server)."""
    fields = Settings.model_fields
    out: dict[str, Any] = {}

    def known(key: str) -> bool:
        return key in fields or key in FILE_ONLY

    def put(key: str, value: Any) -> None:
        if key in MERGED and isinstance(value, dict):
            own = {}
            for name, v in value.items():
                k = ALIASES.get(str(name), str(name))
                if known(k) and k not in MERGED and (key == "hooks" or not isinstance(v, dict)):
                    out[k] = v
                else:
                    own[name] = v
            if own or not value:
                out[key] = own
            return
        out[key] = value

    def take(key: str, value: Any) -> None:
        key = ALIASES.get(key, key)
        if known(key):
            put(key, value)
        elif isinstance(value, dict):
            for name, v in value.items():
                k = ALIASES.get(str(name), str(name))
                if known(k):
                    put(k, v)
                else:
                    warnings.append(f"{where}: {unknown_setting(k, f'{key}.{k}')}; ignored")
        else:
            warnings.append(f"{where}: {unknown_setting(key)}; ignored")

    for key, value in doc.items():
        take(key, value)
    return out


def _merge_table(name: str, low: Any, high: Any) -> Any:
    """hooks: the commands of both files run (user first); mcp_servers: a project entry replaces
    the user's entry of the same name."""
    if not isinstance(low, dict) or not isinstance(high, dict):
        return high
    merged = dict(low)
    for k, v in high.items():
        if name == "hooks" and k in merged:
            merged[k] = _as_list(merged[k]) + _as_list(v)
        else:
            merged[k] = v
    return merged


def _as_list(v: Any) -> list[Any]:
    return list(v) if isinstance(v, list) else [v]


def _trust_problem(listed: Any) -> str | None:
    """Why `trusted_projects` is not a list of paths (a path alone, or a number, trusted nothing
    without a word), in a config file's words; None when it is one."""
    wanted = 'expected a list of directory paths (trusted_projects = ["/home/me/project"])'
    if not isinstance(listed, list):
        return f"{wanted}, not {shown(listed)}"
    wrong = [n for n, path in enumerate(listed, 1) if not isinstance(path, str)]
    if wrong:
        return f"{wanted}, and item {wrong[0]} is {shown(listed[wrong[0] - 1])}"
    return next((f"item {n}: {why}" for n, path in enumerate(listed, 1) if (why := no_path(path))), None)


def _is_trusted(cwd: Path, user: dict[str, Any]) -> bool:
    listed = user.get("trusted_projects") or []
    if not isinstance(listed, list):
        return False
    here = cwd.resolve()
    return any(isinstance(p, str) and no_path(p) is None and Path(p).expanduser().resolve() == here for p in listed)


def leads_outside(project_path: Path) -> str | None:
    """The line saying the project's settings file is not read, where it is a link that leads out of
    its folder, the working directory (`.compact-agent.toml -> ../creds`): a repository's file may
    not have another file read as its settings and quoted back in an error. None where it stays
    inside, or loops (reading it then says so). The user's own file is not the project's: not asked."""
    try:
        real, here = project_path.resolve(), project_path.parent.resolve()
    except (OSError, RuntimeError):  # a link that loops
        return None
    if here in real.parents:
        return None
    return (f"{project_path}: not read: it links to {real}, outside the working directory (a project's settings "
            "file is read only from inside it)")


def load(cwd: Path, flags: dict[str, Any] | None = None, remembered: dict[str, Any] | None = None,
         remembered_by: str = "the session") -> Loaded:
    """Effective settings for a session in `cwd`; raises SettingsError with a one-line reason.
    `remembered`: settings a resumed session keeps (cli_resume.py), above the environment and below
    the flags; their source is "session", and an error names them as `remembered by` it."""
    warnings: list[str] = []
    user_path = user_config_path()
    project_path = cwd / PROJECT_FILE
    named_by = "COMPACT_AGENT_CONFIG" if os.environ.get("COMPACT_AGENT_CONFIG") else ""
    unread: list[str] = []  # a file that is not TOML says its parse error, beside every other problem
    user = flatten(read_or_say(user_path, unread, named_by), str(user_path), warnings)
    if (outside := leads_outside(project_path)) is not None:
        warnings.append(outside)
    project = {} if outside else flatten(read_or_say(project_path, unread), str(project_path), warnings)
    bad: list[Bad] = []  # every bad value, said together
    if (wrong := _trust_problem(user.get("trusted_projects", []))) is not None:
        bad.append(Bad("trusted_projects", f"from {user_path}", wrong))
    trusted = _is_trusted(cwd, user)
    if project.pop("trusted_projects", None) is not None:  # a repository must not trust itself
        warnings.append(f"{project_path}: trusted_projects is read only from the user file ({user_path}); ignored")
    if not trusted:
        for key in sorted(TRUST_NEEDED & project.keys()):
            project.pop(key)
            warnings.append(f"{project_path}: {key} ignored: the project is not trusted (add "
                            f"{toml_text(str(cwd.resolve()))} to trusted_projects in {user_path})")
    listed = user.pop("trusted_projects", None)  # a bad one is said above
    trusted_projects = [str(p) for p in listed] if isinstance(listed, list) else []
    for table, path in ((user, user_path), (project, project_path)):  # each file's own, so its line names it
        bad += check_extensions(table, str(path))
    files = {"user file": str(user_path), "project file": str(project_path)}

    values: dict[str, Any] = {}
    sources: dict[str, str] = {}
    rules: dict[str, list[tuple[str, str]]] = {k: [] for k in UNION}
    env = env_values(bad)
    warnings += unknown_variables(os.environ, user_path)
    layers = [(user, "user file"), (project, "project file"),
              (env, ""), (remembered or {}, "session"),
              ({k: v for k, v in (flags or {}).items() if v is not None}, "flag")]
    for layer, name in layers:
        for key, value in layer.items():
            where = name or f"env COMPACT_AGENT_{key.upper()}"
            if key in LISTS and isinstance(value, str):
                value = [value]
            if key in UNION:
                if not _add_rules(value, where, rules[key]):
                    bad.append(Bad(key, f"from {origin(where, files)}", "expected a list of patterns"))
                    continue
                values[key] = [rule for rule, _ in rules[key]]
                sources[key] = " + ".join(dict.fromkeys(src for _, src in rules[key])) or where
                continue
            merge = key in MERGED and key in values and name.endswith(" file")  # env and flags replace
            values[key] = _merge_table(key, values[key], value) if merge else value
            sources[key] = f"{sources[key]} + {name}" if merge else where
    for key, problems in (("hooks", hook_problems), ("mcp_servers", server_problems)):
        if isinstance(values.get(key), dict) and not sources[key].endswith(" file"):  # the files' are checked
            bad += problems(values[key], origin(sources[key], files))  # a variable's
    settings = None
    try:
        settings = GivenOnly.model_validate(values)  # `Settings` would read the variables itself, and stop
        # at one `load` left out, it being said with the other bad values
    except ValidationError as e:
        for err in e.errors():  # each setting once (a list's first bad item)
            key = str((err.get("loc") or ("?",))[0])
            if key not in {b.key for b in bad}:
                named = _named(sources.get(key, "default"), files, remembered_by)
                bad.append(Bad(key, named, said(Settings.model_fields.get(key), err)))
    if unread or bad or settings is None:
        raise SettingsError("; ".join([*unread, bad_values(bad)] if bad else unread))
    for key in Settings.model_fields:
        sources.setdefault(key, "default")
    clashes = check_together(settings, sources, files)  # values each in range, all said in one line
    clashes += check_dirs(settings.extra_dirs, cwd, origin(sources["extra_dirs"], files), warnings)
    if clashes:
        raise SettingsError("; ".join(clashes))
    return Loaded(settings, sources, user_path, project_path, warnings, trusted, rules, trusted_projects)



def _named(source: str, files: dict[str, str], remembered_by: str) -> str:
    """Where a value came from as a bad value's line says it: `from PATH`, `from env NAME`,
    `remembered by …`."""
    return f"remembered by {remembered_by}" if source == "session" else f"from {origin(source, files)}"


def _add_rules(value: Any, where: str, into: list[tuple[str, str]]) -> bool:
    """Append `value`'s rules not already there, each with `where` it came from; False (nothing
    added) when `value` is not a list of strings."""
    if not isinstance(value, list) or not all(isinstance(rule, str) for rule in value):
        return False
    for rule in value:
        if rule not in (r for r, _ in into):
            into.append((rule, where))
    return True


def describe(loaded: Loaded) -> list[tuple[str, str, str]]:
    """(name, value, source) rows for `compact-agent config`; tables get one row per entry."""
    from .settings_table import unset

    rows: list[tuple[str, str, str]] = []
    data = _addresses_shown(loaded.settings.model_dump(warnings=False))  # /config may show a value in words ("none")
    for key in Settings.model_fields:
        value = data[key]
        src = loaded.sources.get(key, "default")
        if key in MERGED and isinstance(value, dict) and value:
            for name, entry in value.items():
                rows.append((f"{key}.{name}", _short(entry), src))
            continue
        if key in UNION and loaded.rule_sources.get(key):
            for rule, where in loaded.rule_sources[key]:
                rows.append((f"{key}[]", _short(rule), where))
            continue
        if value is None:  # words, not JSON's null (settings_table.py)
            rows.append((key, unset(key), src))
            continue
        rows.append((key, _short(str(getattr(loaded.settings, key)) if key == "prices" and value else value), src))
    return rows


def _addresses_shown(data: dict[str, Any]) -> dict[str, Any]:
    """The settings with base_url and each MCP server's url as `shown_url` shows them: also an address
    typed without `://` (`http//user:pw@host`), which no search of the text for addresses finds."""
    data = dict(data)  # the settings' own tables stay as they are
    if isinstance(data.get("base_url"), str):
        data["base_url"] = shown_url(data["base_url"])
    if isinstance(servers := data.get("mcp_servers"), dict):
        data["mcp_servers"] = {name: {**entry, "url": shown_url(entry["url"])} if isinstance(entry, dict)
                               and isinstance(entry.get("url"), str) else entry for name, entry in servers.items()}
    return data


def _short(value: Any, n: int = 70) -> str:
    text = value if isinstance(value, str) else json.dumps(value, default=str, ensure_ascii=False)
    text = hide_url_passwords(text)  # base_url, an MCP server's url
    return text if len(text) <= n else text[: n - 1] + "…"


def render(loaded: Loaded, as_json: bool = False, width: int | None = None, sessions: Path | None = None) -> str:
    """`compact-agent config`: every setting, its value and where it came from, the table fitted to
    `width` columns (None: lines whole, as for a pipe; settings_table.py); and `sessions`, the
    working directory's sessions folder, under the files (`sessions_folder` in JSON), when given."""
    from .session.sessions_folder import folder_line
    from .settings_table import table

    rows = describe(loaded)
    files = loaded.files
    if as_json:  # values keep their types (13000, true, null), not the table's text
        data = loaded.settings.model_dump(mode="json", warnings=False)  # prices "none" are held as words
        data = json.loads(hide_url_passwords(json.dumps(_addresses_shown(data))))  # a password in base_url or an MCP url
        typed = {key: {"value": data[key], "source": loaded.sources.get(key, "default")} for key in Settings.model_fields}
        for key, found in loaded.rule_sources.items():
            typed[key]["rules"] = [{"rule": rule, "source": where} for rule, where in found]
        return json.dumps({"settings": typed,
                           "files": files, "trusted_projects": loaded.trusted_projects,
                           "project_trusted": loaded.trusted, "warnings": loaded.warnings,
                           **({"sessions_folder": str(sessions)} if sessions is not None else {})},
                          ensure_ascii=False, indent=1) + "\n"
    lines = table(rows, width)
    lines.append("")
    for label, path in files.items():
        state = "found" if Path(path).is_file() else "not found"
        if label == "project file" and leads_outside(Path(path)) is not None:
            state = "not read: it links outside the working directory"
        if label == "user file" and os.environ.get("COMPACT_AGENT_CONFIG"):
            state += ", named by COMPACT_AGENT_CONFIG"  # not the default place: say whence the path
        lines.append(f"{label}: {path} ({state})")
    if sessions is not None:
        lines.append(folder_line(sessions))
    listed = ", ".join(loaded.trusted_projects) or "none"
    lines.append(f"trusted projects: {listed} (trusted_projects in the user file)")
    if loaded.project_file.is_file() and leads_outside(loaded.project_file) is None:
        lines.append(f"project trusted: {'yes' if loaded.trusted else 'no (hooks, MCP, allow rules, base_url, model choice and limits ignored)'}")
    lines += [f"warning: {w}" for w in loaded.warnings]
    return "\n".join(lines) + "\n"
