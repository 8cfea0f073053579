"""`analyze --set NAME=VALUE`: a setting of ours' pipeline for the replay, given on the command line.

The replay of ours (and seed000's limits) uses the product's defaults whatever the environment
holds (ours.default_settings), so its figures are reproducible; `--set` is the one way to replay
it with another value (the stall-wait table of docs/analyzer.md: `--set stall_wait_usd=0`). Each
is checked at once, before any replay, as the settings are (config.GivenOnly, then the pipeline's
own checks of values that contradict each other), and a mistake is one line. A value is read as
a settings file reads it (a TOML value: `0`, `0.005`, `true`, `"text"`, `["a", "b"]`; a word that
is no TOML value is text, so `13k` is a number of tokens as in a file). What is kept is a plain
dict of the checked values, which the worker processes are handed (pickled) and the report says.
"""

from __future__ import annotations

import dataclasses
import functools
import tomllib
from collections.abc import Callable, Mapping, Sequence
from typing import Any, cast

from pydantic import ValidationError

from ..config import GivenOnly, Settings
from ..context.plumbing.settings import CompactionSettings
from .simulate import Strategy, StrategyFactory

#: The settings `--set` takes: those that shape the pipeline the replay runs (the library's
#: CompactionSettings, which ours' layers, compaction and limits read), as the settings name them.
PIPELINE = tuple(f.name for f in dataclasses.fields(CompactionSettings) if f.name in Settings.model_fields)


class SetError(ValueError):
    """A `--set` the user must fix; the message is one line."""


def _value(text: str) -> Any:
    """`text` as a settings file's value would be read; text that is no TOML value, as text."""
    try:
        return tomllib.loads(f"v = {text}")["v"]
    except tomllib.TOMLDecodeError:
        return text


def parse(given: Sequence[str]) -> dict[str, Any]:
    """The checked values of `--set NAME=VALUE` options (the last of one name wins), as a plain dict
    of the settings' own values (`13k` is 13000); raises SetError with one line."""
    from ..setting_names import meant
    from ..setting_values import said
    from ..settings_checks import check_together

    values: dict[str, Any] = {}
    for item in given:
        name, eq, text = item.partition("=")
        name = name.strip()
        if not eq or not name:
            raise SetError(f"--set {item}: expected NAME=VALUE, a setting of the pipeline and its value "
                           "(e.g. --set stall_wait_usd=0)")
        if name not in PIPELINE:
            from ..setting_names import LIBRARY_ONLY

            if name in LIBRARY_ONLY:
                raise SetError(f"--set {item}: {name} is {LIBRARY_ONLY[name]}; --set takes the terminal agent's "
                               f"settings of the pipeline ({PIPELINE[0]} to {PIPELINE[-1]})")
            what = ("is not a setting of the pipeline the replay runs" if name in Settings.model_fields
                    else "is no setting")
            hint = meant(name, PIPELINE) or f"; --set takes one of {', '.join(PIPELINE)}"  # a typo: its fix alone
            raise SetError(f"--set {item}: {name} {what}{hint}")
        values[name] = _value(text.strip())
    try:
        settings = GivenOnly.model_validate(values)
    except ValidationError as e:
        err = e.errors()[0]
        key = str((err.get("loc") or ("?",))[0])
        raise SetError(f"bad value for {key} (from --set): {said(Settings.model_fields.get(key), err)}") from None
    sources = {key: "--set" if key in values else "default" for key in Settings.model_fields}
    if problems := check_together(settings, sources, {}):
        raise SetError("; ".join(problems))
    return {name: _plain(getattr(settings, name)) for name in values}


def _plain(value: Any) -> Any:
    return list(value) if isinstance(value, tuple) else value


def settings_of(given: Mapping[str, Any] | None) -> Settings:
    """Ours' settings for the replay: the defaults, with the values `--set` gave (`parse`)."""
    return GivenOnly.model_validate(dict(given or {}))


def describe(given: Mapping[str, Any]) -> str:
    """`ours with stall_wait_usd=0 (the default is 0.02)`, said once under the tables; "" with none.
    A value given that is the default is said as such, `stall_wait_usd=0.02 (the default)`: the one
    who typed it sees it was read, and that it changed nothing."""
    if not given:
        return ""
    defaults = GivenOnly()
    return "ours with " + ", ".join(
        f"{name}={_shown(value)} " + ("(the default)" if name not in changed({name: value})
                                      else f"(the default is {_shown(getattr(defaults, name))})")
        for name, value in given.items())


def changed(given: Mapping[str, Any]) -> dict[str, Any]:
    """The values given that are not the defaults: what makes the figures of ours other than the
    defaults' (the JSON's `settings`, absent when none is, as without `--set`)."""
    defaults = GivenOnly()
    return {name: value for name, value in given.items() if value != _plain(getattr(defaults, name))}


def _shown(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, str):
        return f'"{value}"'
    if isinstance(value, (list, tuple)):
        return "[" + ", ".join(_shown(v) for v in value) + "]"
    return f"{value:g}" if isinstance(value, float) else str(value)


#: The strategies that take ours' settings: ours, and seed000's limits (Limits.for_window).
TAKE_SETTINGS = ("ours", "seed000", "seed000-submit")


def applied(chosen: Mapping[str, StrategyFactory], given: Mapping[str, Any] | None) -> dict[str, StrategyFactory]:
    """The strategies, those that take ours' settings given the `--set` values (none given: as they are)."""
    if not given:
        return dict(chosen)
    settings = settings_of(given)
    return {name: functools.partial(cast(Callable[..., Strategy], factory), settings=settings)
            if name in TAKE_SETTINGS else factory for name, factory in chosen.items()}
