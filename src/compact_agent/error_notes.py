"""Where a failed request's settings came from, said on its error: the notes a session adds and
the one-line texts (error_text.py) read back.

pydantic-ai's request-limit error knows only the number, and a 404 only the model's name; the
session knows who chose them. `note_request_limit` says where the requests per turn were limited
(`--max-turns N`, the session, a config file, the default), `note_model` how the model was chosen
(`-m NAME`, `/model NAME`, a config file, a variable, the session, the default: `model_chosen_by`)
and where the endpoint was given when not on this command line (`endpoint_chosen_by`). The lines
read them back: `limit_chosen_by`, `model_note` and `endpoint_given`.

Nothing here imports agent or SDK code: --version and --help load none of it."""

from __future__ import annotations

from typing import Any, Protocol

from .error_causes import endpoint

#: The note a session adds to pydantic-ai's request-limit error (`note_request_limit`): where the
#: limit came from, in words, after this mark.
_LIMIT_NOTE = "compact-agent request limit: "
_SETTING = "max_requests_per_turn"


class _Sourced(Protocol):
    """What the notes read of the settings as loaded (settings_file.Loaded, whose checks import
    error_text.py: named by what it uses, not imported)."""

    @property
    def settings(self) -> Any: ...
    @property
    def sources(self) -> dict[str, str]: ...
    def where(self, key: str) -> str: ...


def note_request_limit(e: BaseException, loaded: _Sourced | None) -> None:
    """Say on `e` (pydantic-ai's request limit) where the limit of requests per turn came from: the
    number is all pydantic-ai knows, and `--max-turns N` was said of a limit no flag gave (the
    setting's default of 1,000, a config file's). `loaded`: the session's settings and their sources
    (settings_file.Loaded); None says nothing more than the setting."""
    if loaded is None:
        return
    n = loaded.settings.max_requests_per_turn
    source = loaded.sources.get(_SETTING, "default")
    if source == "flag":
        words = f"--max-turns {n}"
    elif source == "session":
        words = f"--max-turns {n}, remembered by the session"
    elif source == "default":
        words = f"{_SETTING}, by default {n:,}; --max-turns N or {_SETTING} in the config file sets another"
    else:  # a file by its path, or `env COMPACT_AGENT_MAX_REQUESTS_PER_TURN`
        words = f"{_SETTING} = {n} from {loaded.where(_SETTING)}"
    e.add_note(_LIMIT_NOTE + words)


def limit_chosen_by(e: BaseException, n: int) -> str:
    """Where the limit of `n` requests that `e` stopped at came from (`note_request_limit`'s note),
    or the setting with its value where no note says."""
    return next((note[len(_LIMIT_NOTE):] for note in getattr(e, "__notes__", ()) if isinstance(note, str)
                 and note.startswith(_LIMIT_NOTE)), f"{_SETTING} = {n}")


#: The note a session adds to a failed request's error (`note_model`): how its model was chosen, in
#: the words that choose it, after this mark.
_MODEL_NOTE = "compact-agent model chosen by: "


def model_chosen_by(name: str, loaded: _Sourced | None) -> str:
    """How `name`, the model a session runs with, was chosen, in the words that chose it: `-m NAME`,
    `/model NAME` (a switch since the session started), `model = "NAME" in PATH`,
    `COMPACT_AGENT_MODEL=NAME`, the session's or the default. `loaded`: the session's settings as
    loaded at its start, with their sources (settings_file.Loaded); None is `-m NAME`."""
    if loaded is None:
        return f"-m {name}"
    source = loaded.sources.get("model", "default")
    # A switch since the start (model_switch.py marks it `/model`, also one back to the model the
    # session started with, which was said as `-m NAME` or the file's line the user had switched from).
    if loaded.settings.model != name or source == "/model":
        return f"/model {name}"
    if source == "flag":
        return f"-m {name}"
    if source == "session":
        return f"{name}, remembered by the session{_SETS_ANOTHER}"
    if source == "default":
        return f"{name}, the default model{_SETS_ANOTHER}"
    if source.startswith("env "):
        return f"{source.removeprefix('env ')}={name}"
    return f'model = "{name}" in {loaded.where("model")}'


_SUMMARY = "summary_model"


def summary_model_chosen_by(name: str, loaded: _Sourced | None) -> str:
    """How `name`, a `summary_model` other than the session's model, was set, in the words that set
    it: `summary_model = "NAME" in PATH`, `COMPACT_AGENT_SUMMARY_MODEL=NAME`, the session's, or the
    setting alone where its source is not known (settings given as they are, not loaded). A 404 of
    its summary request said `-m NAME` of a model no flag chooses."""
    source = loaded.sources.get(_SUMMARY, "default") if loaded is not None else "default"
    if loaded is None or loaded.settings.summary_model != name or source in ("default", "flag"):
        return f'{_SUMMARY} = "{name}"'
    if source == "session":
        return f'{_SUMMARY} = "{name}", remembered by the session'
    if source.startswith("env "):
        return f"{source.removeprefix('env ')}={name}"
    return f'{_SUMMARY} = "{name}" in {loaded.where(_SUMMARY)}'


def note_model(e: BaseException, name: str, loaded: _Sourced | None, *, summary: bool = False) -> None:
    """Say on `e`, a failed request's error, how its model was chosen (`model_chosen_by`; with
    `summary`, a `summary_model` of its own: `summary_model_chosen_by`): a 404's line points there to
    check the name, not at a `-m` flag no one gave. And where its endpoint was given, when not on this
    command line (`endpoint_chosen_by`): an address no server answers at is corrected there."""
    e.add_note(_MODEL_NOTE + (summary_model_chosen_by if summary else model_chosen_by)(name, loaded))
    if (where := endpoint_chosen_by(loaded)) is not None:
        e.add_note(_ENDPOINT_NOTE + "\0".join(where))


#: The REPLs running, innermost last: ui/command_registry.py's `running` is this list (the REPL adds
#: itself there). Held here so a line can tell it is said in one without importing the terminal's code.
RUNNING_REPLS: list[Any] = []


def in_repl() -> bool:
    """Whether a REPL is running: its lines name `/model NAME` where a command line's name `-m`."""
    return bool(RUNNING_REPLS)


#: What `model_chosen_by` says sets another model, in a command line's words: the REPL's are `/model`.
_SETS_ANOTHER = "; -m sets another"


def model_note(e: BaseException, repl: bool = False) -> str | None:
    """How the model of the request `e` failed was chosen (`note_model`'s note), or None where no note
    says; `repl`: said in the REPL, where another model is set with `/model NAME`, not a `-m` flag
    the user did not use ('-m sets another' was said after a /model switch)."""
    said = next((note.removeprefix(_MODEL_NOTE) for note in getattr(e, "__notes__", ())
                 if isinstance(note, str) and note.startswith(_MODEL_NOTE)), None)
    return said.replace(_SETS_ANOTHER, "; /model NAME sets another") if said is not None and repl else said


#: The note `note_model` adds of where the endpoint was given: the address, then the words.
_ENDPOINT_NOTE = "compact-agent endpoint chosen by: "


def endpoint_chosen_by(loaded: _Sourced | None) -> tuple[str, str] | None:
    """(the address, where it was given) for an endpoint not given on this command line: `the
    session remembers it` (a resumed session runs at the address it was started with, whatever the
    config file says now), `base_url in PATH`, `COMPACT_AGENT_BASE_URL`. None for `--base-url` or
    for none (the provider's own)."""
    url = getattr(loaded.settings, "base_url", None) if loaded is not None else None
    if loaded is None or not isinstance(url, str) or not url:
        return None
    source = loaded.sources.get("base_url", "default")
    if source == "session":
        return url, "the address the session remembers: --base-url gives another"
    if source.startswith("env "):
        return url, f"the address {source.removeprefix('env ')} gives"
    if source not in ("flag", "default"):
        return url, f"base_url in {loaded.where('base_url')}"
    return None


def endpoint_given(e: BaseException) -> str:
    """` (where the address tried was given)`, from `note_model`'s note, when the request went to it."""
    tried = endpoint(e).removeprefix(" at ")
    for note in getattr(e, "__notes__", ()):
        if isinstance(note, str) and note.startswith(_ENDPOINT_NOTE):
            url, _, where = note.removeprefix(_ENDPOINT_NOTE).partition("\0")
            if tried.startswith(url.rstrip("/")):
                return f" ({where})"
    return ""


def address_named(e: BaseException) -> str:
    """What gave the address the request `e` failed at, as the user gave it, for the advice to check
    it: `base_url in PATH`, `COMPACT_AGENT_BASE_URL`, `the address the session remembers` (from
    `note_model`'s note), `OPENAI_BASE_URL` or `ANTHROPIC_BASE_URL` where the provider's client read
    it there, else `--base-url`. The 404's line said 'check that --base-url is the server's API
    address' of an endpoint OPENAI_BASE_URL gave."""
    import os

    tried = endpoint(e).removeprefix(" at ")
    for note in getattr(e, "__notes__", ()):
        if isinstance(note, str) and note.startswith(_ENDPOINT_NOTE):
            url, _, where = note.removeprefix(_ENDPOINT_NOTE).partition("\0")
            if tried.startswith(url.rstrip("/")):
                where = where.split(": ")[0]
                return where.removeprefix("the address ").removesuffix(" gives") if where.endswith(" gives") else where
    for variable in ("OPENAI_BASE_URL", "ANTHROPIC_BASE_URL"):
        url = os.environ.get(variable, "").strip().rstrip("/")
        if url and tried and tried.startswith(url):
            return variable
    return "--base-url"


#: The note `note_served_models` adds to a 404: the model ids the server listed, apart by NUL.
_SERVED_NOTE = "compact-agent served models: "


def note_served_models(e: BaseException, ids: list[str]) -> None:
    """Say on `e`, a 404 for its model, which models the server lists (agent/run/served_models.py)."""
    if ids:
        e.add_note(_SERVED_NOTE + "\0".join(ids))


def served_ids(e: BaseException) -> list[str]:
    """The model ids `note_served_models` noted on `e` (none where no list was noted)."""
    note = next((n for n in getattr(e, "__notes__", ()) if isinstance(n, str) and n.startswith(_SERVED_NOTE)), "")
    return note.removeprefix(_SERVED_NOTE).split("\0") if note else []


def served_words(e: BaseException, shown: int = 8) -> str:
    """`; the server serves fake-model` (the first `shown`, and how many more) for the 404's line,
    or '' where no list was noted."""
    ids = served_ids(e)
    if not ids:
        return ""
    more = f" and {len(ids) - shown} more" if len(ids) > shown else ""
    return f"; the server serves {', '.join(ids[:shown])}{more}"
