"""What the command line checks of its settings before a session is made for them: the settings
loaded (defaults < files < environment < flags) with a bad one said in one line, the endpoint an
address (said without its secrets, naming where it came from), the note on where a model goes, and
the API key registered and hidden from what the agent runs."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

from .cli_help import fail
from .error_text import first_line
from .ui.visible import visible


def url_problem(url: str | None) -> str | None:
    """What is wrong with an endpoint address, said before a session is made for it; None if nothing.
    The address is shown without its secrets (a password, a `?key=` value: secrets.shown_url), and
    the parser's own words are not (they quote what they could not read, a password included)."""
    from urllib.parse import urlsplit

    from .secrets import shown_url

    if url is None:
        return None
    shown = shown_url(url)
    try:
        parts = urlsplit(url)
        parts.port  # noqa: B018 - raises on a port that is not a number
    except ValueError as e:
        reason = ("an IPv6 host's [ has no closing ]" if "IPv6" in str(e)
                  else "its port is not a number from 0 to 65535" if "ort" in str(e) else "it cannot be read")
        return f"{shown!r} is not an address ({reason}; e.g. http://localhost:8000/v1)"
    if parts.scheme not in ("http", "https") or not parts.hostname:
        return f"{shown!r} is not an http:// or https:// address (e.g. http://localhost:8000/v1)"
    return None


def endpoint(flag: str | None, loaded: Any) -> str | None:
    """Where a model is reached: `flag` (a command's own --base-url), else the settings' base_url
    (the top-level --base-url, the environment, then the files: a project file's only when the
    project is trusted, as the API key goes there). One that is not an address is bad usage, said
    naming where it came from."""
    url = flag or loaded.settings.base_url
    if (problem := url_problem(url)) is not None:
        where = loaded.where("base_url")
        raise fail(f"{'--base-url' if flag or where == 'flag' else f'base_url in {where}'}: {problem}", 2)
    return url


def routing_note(name: str, base_url: str | None, window: int | None) -> str | None:
    from .models import routing_note as note

    return note(name, base_url, window)


def protect_key(api_key: str | None) -> str | None:
    """Register every key we know of and hide it from the commands the agent runs (secrets.py);
    `--api-key` is also in the process list for every user until then: say so once."""
    from . import secrets

    if api_key and len(api_key) >= secrets.MIN_LEN:  # shorter: a local server's placeholder, not a key
        sys.stderr.write("compact-agent: warning: --api-key is visible to other users in the process list while "
                         "the agent starts; export DEEPSEEK_API_KEY / OPENAI_API_KEY / ANTHROPIC_API_KEY "
                         "instead (e.g. from a key file: OPENAI_API_KEY=$(cat ~/.key))\n")
    secrets.register(api_key)
    secrets.register_environment()
    secrets.hide_from_children()
    return api_key


def load_settings(work: Path, *, warn: bool = True, **flags: object) -> Any:
    """Defaults < user file < project file < environment < flags (see settings_file.py);
    a bad file or value is one line and exit code 2. `warn=False`: the caller shows the warnings."""
    from .settings_file import SettingsError, load

    try:
        loaded = load(work, flags)
    except SettingsError as e:
        raise fail(str(e), 2) from None
    except Exception as e:  # noqa: BLE001 - e.g. a malformed environment value
        raise fail(f"bad setting: {first_line(e)}", 2) from None
    for w in loaded.warnings if warn else ():
        sys.stderr.write(visible(f"compact-agent: warning: {w}") + "\n")
    return loaded

