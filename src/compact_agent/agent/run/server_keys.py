"""How the server a session talks to is named: the key its learned windows are kept under
(`endpoint`: the base URL without its secrets, or `provider:` for a provider's own API), the
`label` a session's saved state names it by, how lines show it and how `config --forget-window`
matches it (server_windows.py keeps the windows; cli_windows.py lists and forgets them), and how a
file of `servers/` is read (`read_json`: the windows' and the joined turns' alike)."""

from __future__ import annotations

import json
import os
import shlex
from pathlib import Path
from typing import Any

from ...regular_file import read_own

#: The variable a provider's client takes its address from when it is given none (models.py gives
#: none without --base-url): the server a session talks to is there.
SDK_BASE_URL = {"openai": "OPENAI_BASE_URL", "anthropic": "ANTHROPIC_BASE_URL"}


def sent_to(base_url: str | None, provider: str) -> str | None:
    """The address a session's requests go to: `base_url` (--base-url, the config's), else the one
    its provider's client reads from its variable (an Ollama at OPENAI_BASE_URL); None: the
    provider's own API."""
    return base_url or os.environ.get(SDK_BASE_URL.get(provider, ""), "").strip() or None


def endpoint(base_url: str | None, provider: str) -> str:
    """The key of the server a session talks to (`sent_to`): its base URL without a trailing slash nor
    its secrets (the file and `config` show keys), or the provider's own API (a refusal teaches its
    window too). A window learned from the server at OPENAI_BASE_URL was kept as OpenAI's API's."""
    from ...secrets import hide_url_passwords

    url = sent_to(base_url, provider)
    return hide_url_passwords(url.rstrip("/")) if url else f"{provider}:"


def label(key: str, model: str) -> str:
    """How a session's saved state names the server it learned a window from: `model at URL` (`endpoint`)."""
    return f"{model} at {key}"


def shown(key: str) -> str:
    """How the line names the endpoint: its URL, or `the deepseek API`."""
    return f"the {key[:-1]} API" if key.endswith(":") else key


def matches(key: str, which: str) -> bool:
    """Whether `which`, as a user names an endpoint (`all`, the URL with or without its trailing
    slash, with or without its secrets, `deepseek` for the provider's own API), names `key`."""
    if which == "all":
        return True
    from ...secrets import hide_url_passwords

    return key in {hide_url_passwords(w) for w in (which.rstrip("/"), which)} | {f"{which}:"}


def forget_hint(key: str) -> str:
    """`(compact-agent config --forget-window URL forgets it)`, the URL quoted for a shell (`?`, `&`)."""
    return f"(compact-agent config --forget-window {shlex.quote(key[:-1] if key.endswith(':') else key)} forgets it)"


MISSING = object()  # read_json: no file, or none that could be read


def read_json(path: Path) -> tuple[Any, str | None]:
    """What a file of `servers/` holds (`MISSING` for no file), and why it could not be read (None
    when it could, or is missing): not UTF-8, not JSON, or the system's words."""
    try:
        return json.loads(read_own(path)), None
    except FileNotFoundError:
        return MISSING, None
    except (OSError, ValueError, RecursionError) as e:
        return MISSING, "not UTF-8 text" if isinstance(e, UnicodeDecodeError) else "not valid JSON" \
            if isinstance(e, ValueError | RecursionError) else getattr(e, "strerror", None) or "cannot be read"
