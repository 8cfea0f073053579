"""The options a run gives each session it opens: this command line's, over what the session
remembers (session/remembered.py).

`--model`, `--base-url`, `--context-window`, `--prices`, `--max-turns` and `--append-system-prompt`
belong to a session. One rule decides what a session runs with, however it is opened: the session
`-c` or `-r ID` names, one picked from `-r`'s list, and one the REPL's `/resume` switches to — an
option given on this command line wins, else what the session remembers (a window, prices and an
endpoint only for the model they were given for), else the settings. `CommandLine.for_session`
applies it and says what the session then remembers; the REPL applies the same to the session it
switches to.
A remembered value that cannot be used (a hand-edited file's `context_window: -3`) is said in one
line naming the session, and the session goes on without it, however it was opened.
`resumed_file` finds the session `-c` or `-r ID` names; `as_remembered` marks what it remembered as
coming from the session, for `/config`.
"""

from __future__ import annotations

import contextlib
import sys
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from .cli_continued import continued_note  # what -c says of the sessions it passed over
from .session import remembered

if TYPE_CHECKING:
    from .agent.run.options import SessionOptions
    from .ui.sessions_list import SessionRow

#: Each option that is also a setting, by the setting's name.
SETTING = {"model": "model", "base_url": "base_url", "context_window": "context_window",
           "max_turns": "max_requests_per_turn", "prices": "prices"}


@dataclass(frozen=True)
class SessionSettings:
    """What one session runs with: the options (given on the command line, or remembered), the
    settings loaded with them, and what its store remembers."""

    options: dict[str, Any]  # the options it runs with: given on the command line, or remembered
    applied: dict[str, Any]  # of them, those the session remembered
    loaded: Any  # settings_file.Loaded
    remember: remembered.ToRemember
    #: one line: a remembered endpoint this model does not go to, a remembered value a flag overrides
    note: str | None = None

    @property
    def model(self) -> str | None:
        """`--model`, given or remembered; None: the settings' model."""
        value = self.options.get("model")
        return value if isinstance(value, str) else None

    @property
    def name(self) -> str:
        """The model the session runs."""
        return self.model or str(self.loaded.settings.model)

    def get(self, option: str) -> Any:
        return self.options.get(option)

    def endpoint(self) -> str | None:
        """Where the model is reached; a UsageError (one line) when that is not an address."""
        from .cli_settings import url_problem
        from .models import UsageError

        url = self.options.get("base_url") or self.loaded.settings.base_url
        if (problem := url_problem(url)) is not None:
            raise UsageError(f"--base-url: {problem}")
        return url  # type: ignore[no-any-return]

    def apply(self, opts: SessionOptions) -> None:
        """Make `opts` open a session with these (the REPL: the session `-r`'s list or `/resume`
        picked); a UsageError leaves `opts` as they were."""
        base_url = self.endpoint()
        opts.model, opts.base_url = self.name, base_url
        opts.context_window = self.options.get("context_window")
        opts.append_system_prompt = self.options.get("append_system_prompt") or ""
        opts.settings, opts.config = self.loaded.settings, self.loaded


@dataclass(frozen=True)
class CommandLine:
    """This run's command line as far as sessions go: the options it gave, the settings it loaded
    with them, and what `--add-dir` and `--allowed-tools 'bash(...)'` add to them."""

    work: Path
    given: dict[str, Any]
    loaded: Any  # settings_file.Loaded, with the flags in `given`
    extra_dirs: list[str] = field(default_factory=list)
    allow_bash: list[str] = field(default_factory=list)

    def for_session(self, resumed: Path | None) -> SessionSettings:
        """What the session in file `resumed` runs with (None: a new session); a UsageError (one
        line) when a setting it remembers cannot be used."""
        from .models import UsageError
        from .secrets import hide_url_passwords
        from .settings_file import SettingsError, with_changes

        saved = remembered.options_of(resumed) if resumed is not None else {}
        given = self.given
        model = given.get("model") or saved.get("model") or self.loaded.settings.model
        same = same_endpoint(saved.get(remembered.RAN_WITH), model)
        applied = remembered.to_apply(saved, given, model, same_endpoint=same)
        loaded = self.loaded
        unusable: dict[str, str] = {}  # a remembered option it cannot use: the line that says so
        if applied:  # in the flags' ranges, named as the session's
            try:
                loaded, unusable = self._with(applied, f"session {resumed.stem}" if resumed else "the session")
            except SettingsError as e:
                raise UsageError(str(e)) from None
            except Exception as e:  # noqa: BLE001 - e.g. a malformed environment value
                from .error_text import first_line

                raise UsageError(f"bad setting: {first_line(e)}") from None
            applied = {k: v for k, v in applied.items() if k not in unusable}
        wrong = _misfits(resumed, saved, given, model, same, loaded) if resumed is not None else {}
        unusable.update(wrong)
        if self.extra_dirs or self.allow_bash:
            loaded = with_changes(loaded, "flag", append=True, extra_dirs=self.extra_dirs, allow_bash=self.allow_bash)
        options = {**given, **applied}
        name = options.get("model") or loaded.settings.model
        keep = dict(options)
        if "base_url" in keep and hide_url_passwords(keep["base_url"]) != keep["base_url"]:
            keep.pop("base_url")  # an address with a password or a key in it is not written down
        if keep or saved:
            keep[remembered.RAN_WITH] = name
        notes = list(unusable.values())
        would = remembered.to_apply(saved, {}, model, same_endpoint=same)
        if "base_url" in saved and "base_url" not in options and "base_url" not in unusable:  # names both models
            notes += overridden({k: v for k, v in would.items() if k != "model"}, given)
            notes.append(_endpoint_left(saved, name, loaded.settings.base_url))
        else:
            notes += overridden(would, given)
        if "base_url" in applied and applied["base_url"] != self.loaded.settings.base_url:
            notes.append(remembered_endpoint(applied["base_url"]))
        note = "; ".join(notes) or None
        return SessionSettings(options, applied, loaded,  # a misfit said once: the file no longer keeps it
                               remembered.ToRemember(keep, resumed, keep != saved or bool(wrong), frozenset(applied)),
                               note)

    def _with(self, applied: dict[str, Any], by: str) -> tuple[Any, dict[str, str]]:
        """The settings with the options a session remembers (`applied`), and those of them that are
        not usable (a hand-edited or damaged file: `context_window: -3`), each with its line: it is
        left out, and the session goes on without it: a session file must not keep its session from
        being resumed. A SettingsError when the settings cannot be loaded even without them."""
        from .settings_file import SettingsError, load

        flags = {SETTING[k]: v for k, v in self.given.items() if k in SETTING}

        def attempt(keep: dict[str, Any]) -> Any:
            return load(self.work, flags, {SETTING[k]: v for k, v in keep.items() if k in SETTING}, by)

        bad = {option: f"bad value for {SETTING[option]} (remembered by {by}): {problem}"
               for option, value in applied.items() if (problem := _unusable(option, value)) is not None}
        if not bad:
            with contextlib.suppress(SettingsError):  # every remembered value usable: the common case
                return attempt(applied), {}
        keep: dict[str, Any] = {}
        for option, value in applied.items():
            if option in bad:
                continue
            try:
                attempt({**keep, option: value})
            except SettingsError as e:
                bad[option] = str(e)
                continue
            keep[option] = value
        loaded = attempt(keep)
        for option in bad:
            key = SETTING[option]
            rest = "the default" if loaded.sources.get(key, "default") == "default" else f"the value from {loaded.where(key)}"
            bad[option] += f"; the session goes on with {rest}"
        return loaded, bad


def _misfits(resumed: Path, saved: dict[str, Any], given: dict[str, Any], model: str, same: bool,
             loaded: Any) -> dict[str, str]:
    """The line for each option session file `resumed` remembers with a value of another kind than
    it takes (`remembered.misfits`), that this run would have taken from it."""
    import json

    misfit = remembered.misfits(resumed)
    if remembered.RAN_WITH in saved:
        misfit[remembered.RAN_WITH] = saved[remembered.RAN_WITH]
    out = {}
    for option, value in remembered.to_apply(misfit, given, model, same_endpoint=same).items():
        key = SETTING.get(option)
        rest = ("without it" if key is None else "with the default" if loaded.sources.get(key, "default") == "default"
                else f"with the value from {loaded.where(key)}")
        out[option] = (f"bad value for {key or option} (remembered by session {resumed.stem}): "
                       f"{json.dumps(value, ensure_ascii=False)[:60]} is not {remembered.TAKES[option]}; "
                       f"the session goes on {rest}")
    return out


def _unusable(option: str, value: Any) -> str | None:
    """What makes a remembered model or endpoint unusable where the settings take it: a model named
    by nothing, an endpoint that is no http address. Each stopped `-r ID` (exit 2) with the line a
    flag gets, `--model needs a model name …`, of a flag nobody gave."""
    from .cli_settings import url_problem

    if option == "model" and isinstance(value, str) and not value.strip():
        return "an empty name"
    if option == "base_url" and isinstance(value, str):
        return url_problem(value)
    return None


def overridden(would: dict[str, Any], given: dict[str, Any]) -> list[str]:
    """A line for each option given on this command line in place of another value the session
    remembers for the model it runs (`would`: what it would have run with, given none): a flag wins
    (usage.md), and after `-c --context-window 8k` the session ran at 8,000 where it was started at
    16,000 without a word. Every option a session remembers is said, its value as the flag takes it."""
    from .secrets import shown_url

    shown: dict[str, Callable[[Any], str]] = {
        "model": str, "base_url": shown_url, "context_window": "{:,}".format, "max_turns": "{:,}".format,
        "prices": _prices, "append_system_prompt": _text}
    lines = []
    for option, show in shown.items():
        old, new = would.get(option), given.get(option)
        if old is not None and new is not None and old != new:
            flag = "--" + option.replace("_", "-")
            lines.append(f"{flag} {show(new)} overrides {show(old)}, which the session remembers")
    return lines


def _prices(value: list[float]) -> str:
    """Prices as the flag takes them, `0.27,0.07,1.1` (the cache write left out where it is the input's)."""
    if len(value) == 4 and value[3] == value[0]:
        value = value[:3]
    return ",".join(f"{float(p):g}" for p in value)


def _text(value: str) -> str:
    """Appended instructions on one line, in quotes, cut to 40 characters."""
    text = " ".join(value.split())
    return f"'{text if len(text) <= 40 else text[:39] + '…'}'"


def same_endpoint(ran_with: str | None, model: str) -> bool:
    """Whether `model` goes on at the endpoint the session reached with `ran_with`: one vLLM or
    Ollama address serves several models, so a model the registry does not know (that server's own)
    does, and so does a model of the same provider (a proxy of it); a model the registry knows
    from another provider goes to its own (`-c --model deepseek-chat` after a local model)."""
    from .models import REGISTRY

    new = REGISTRY.get(model)
    if new is None or ran_with is None:
        return True
    old = REGISTRY.get(ran_with)
    return old is not None and old.provider == new.provider


def remembered_endpoint(url: str) -> str:
    """The line that says a session goes on at the endpoint it remembers, not one this run's settings
    name: the API key goes there, and only the session file said so."""
    from .secrets import shown_url

    return f"using the endpoint this session remembers: {shown_url(url)}; pass --base-url to use another"


def _endpoint_left(saved: dict[str, Any], model: str, base_url: str | None) -> str:
    """The line that says a remembered endpoint is not used by `model`, and where it goes now."""
    from .models import provider_for
    from .secrets import shown_url

    names = {"deepseek": "DeepSeek", "anthropic": "Anthropic", "openai": "OpenAI"}
    where = shown_url(base_url) if base_url else names.get(provider_for(model, None), "its provider")
    return (f"the session reached {saved.get(remembered.RAN_WITH, 'its model')} at {shown_url(saved['base_url'])}; "
            f"{model} goes to {where} (give --base-url to keep that endpoint)")


def resumed_file(work: Path, continue_: bool, resume: str | None) -> Path | None:
    """The session file `--continue` or `--resume ID` opens (None: a new session, or one picked from
    a list); no earlier session to continue or to pick from (`--resume` without an id), or an id
    that names no session or several, is a mistake in the command line. One another run holds is
    refused here (`free`), before any note on the options it would run with."""
    from .agent.run.options import SessionOptions, resolve_session_id
    from .cli_help import fail
    from .error_text import first_line
    from .session.answered import continued
    from .session.files import as_copied, list_sessions  # not store.py: the REPL's needs no pydantic-ai
    from .session.not_a_session import newest_session, refusal
    from .ui.visible import visible

    root = found_sessions(work)
    if continue_:
        found = list_sessions(root)
        if not found:
            raise fail(f"no earlier session in {work} to continue; start one without --continue"
                       + sessions_elsewhere(work, root))
        chosen = continued(found)
        if chosen.path is not None:
            if (note := continued_note(root, chosen)) is not None:  # before anything that can fail: a key
                sys.stderr.write(visible(f"compact-agent: note: {note}") + "\n")
            return free(chosen.path)
        raise fail(refusal(found[0].stem, found[0]), 2)  # another program's files: left as they are
    if resume == "" and newest_session(list_sessions(root))[0] is None:  # nothing to list: as -c, not a new session
        raise fail(f"no earlier session in {work} to resume; start one without --resume" + sessions_elsewhere(work, root))
    if not resume:
        return None
    if not resume.strip():  # `-r "  "`: said as a blank id, not as a session named by spaces
        raise fail("--resume needs a session id: the one given is blank (compact-agent sessions lists them)", 2)
    resume = as_copied(resume, root)  # `ID.jsonl`, its path, spaces around it
    try:
        session_id, _ = resolve_session_id(SessionOptions(cwd=work, session_id=resume))
    except FileNotFoundError as e:  # another project's, or none here: where one of this name keeps its own
        from .session.held_elsewhere import after_refusal

        raise fail(first_line(e) + after_refusal(work, root, resume), 2) from None
    return free(root / f"{session_id}.jsonl")


def free(path: Path) -> Path:
    """`path`, the session file `-c` or `-r ID` opens, when no other run holds it; one that does is
    refused (exit 1) in the line that names that run (session/locks.py), before the notes on what the
    session would run with: they came first, and the run then failed. The store takes the lock."""
    from .cli_help import fail
    from .session.files import SessionLocked
    from .session.locks import check_free

    try:
        check_free(path.parent, path.stem)
    except SessionLocked as e:
        raise fail(str(e)) from None
    return path


def in_use_marked(root: Path, rows: list[SessionRow]) -> list[SessionRow]:
    """The listing's `rows` of sessions folder `root`, each one another run holds marked as `-r`'s
    list marks it (ui/sessions_list.py): `-c` and `-r ID` of it are refused (`free`)."""
    from .session.files import SessionLocked
    from .session.locks import check_free, kept_here

    for row in rows:
        try:  # a file that is no session has no lock; one this process holds is not another run's
            if row.pickable and kept_here(root / row.id) is None:
                check_free(root, row.id)
        except SessionLocked:
            row.in_use = True
    return rows


def found_sessions(work: Path) -> Path:
    """The sessions folder of `work` (options.found_root), once what it found is said on stderr:
    sessions saved by the path this folder had before it was moved or renamed, or sessions saved at
    this path for another folder, renamed since, which were handed to it."""
    from .agent.run.options import found_root
    from .ui.visible import visible

    found = found_root(work)
    if found.was is not None:  # the project was moved or renamed since: its sessions are found all the same
        sys.stderr.write(visible(f"compact-agent: note: {moved_note(found.was)}") + "\n")
    if found.owner is not None:
        sys.stderr.write(visible(f"compact-agent: note: {owned_note(found.owner)}") + "\n")
    return found.root


def moved_note(was: str) -> str:
    """What a run says once, when the sessions of its folder were saved by the path it had before it
    was moved or renamed (session/project_identity.py): from now on they are found by this one."""
    return (f"the sessions saved in {was} are this folder's: it is that folder, moved or renamed since "
            "(compact-agent sessions lists them)")


def owned_note(owner: Path) -> str:
    """What a run in a folder made at a project's old path says once, when the sessions saved there
    were that project's (it was renamed since) and go with it: this folder starts without them."""
    import shlex

    return (f"the sessions saved at this path are those of {owner}, the folder that was here, renamed since; "
            f"they are its own now (compact-agent --cwd {shlex.quote(str(owner))} sessions lists them)")


def sessions_elsewhere(work: Path, root: Path) -> str:
    """'; ' and where the sessions of a project of this folder's name are kept and how to open them
    here, when some are; '' otherwise."""
    from .session.project_identity import elsewhere

    line = elsewhere(root.parent, work, root)
    return f"; {line}" if line is not None else ""


def as_remembered(settled: SessionSettings) -> SessionSettings:
    """`settled` with each setting its session remembered (not given on this command line) said to
    come from the session: they are loaded as flags, in the flags' ranges, so `/config` said "flag"
    for a window the session was started with and this command line never gave."""
    keys = [SETTING[option] for option in settled.applied if option in SETTING]
    if not keys:
        return settled
    sources = {**settled.loaded.sources, **dict.fromkeys(keys, "session")}
    return replace(settled, loaded=replace(settled.loaded, sources=sources))
