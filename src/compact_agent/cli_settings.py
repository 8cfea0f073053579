"""What the command line checks of its settings before a session is made for them: the settings
loaded (defaults < files < environment < flags) with a bad one said in one line, the endpoint an
address (said without its secrets, naming where it came from), the note on where a model goes, and
the API key registered and hidden from what the agent runs."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

from .addresses import address_problem
from .cli_help import fail
from .error_text import first_line
from .ui.visible import visible
from .words import quoted

if TYPE_CHECKING:
    from .agent.run.options import SessionOptions


def url_problem(url: str | None) -> str | None:
    """What is wrong with an endpoint address, said before a session is made for it; None if nothing.
    The address is shown without its secrets (a password, a `?key=` value: secrets.shown_url), and
    the parser's own words are not (they quote what they could not read, a password included)."""
    from urllib.parse import urlsplit

    from .secrets import shown_url

    if url is None:
        return None
    if (bad := address_problem(url, "http://localhost:8000/v1")) is not None:
        return bad
    parts = urlsplit(url)
    if (path := parts.path.rstrip("/")).endswith(_CHAT):
        # The client appends the endpoint's path: requests went to …/chat/completions/chat/completions (a 404).
        base = shown_url(parts._replace(path=path.removesuffix(_CHAT)).geturl())
        return (f"{quoted(shown_url(url))} is the chat endpoint itself; give the address it is under, {base} "
                f"(the client adds {_CHAT})")
    return None


_CHAT = "/chat/completions"


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


def refuse_empty_model(loaded: Any) -> None:
    """A model named by nothing (`model = ""` in a file, `COMPACT_AGENT_MODEL=`) is one line, exit 2,
    for a run and for `config` alike: `config` showed it as a blank name, with the window `assumed:
    is not a known model`, of a setting every run refuses."""
    if not loaded.settings.model.strip():
        if loaded.where("model") == "flag":
            raise fail("--model needs a model name (e.g. --model deepseek-chat), not an empty one", 2)
        raise fail(f"model: an empty name (from {loaded.where('model')}); give a model name there, "
                   "or --model NAME", 2)


def key_and_window(opts: SessionOptions) -> None:
    """A missing API key, said with a window set too small for the tools when there is one too
    (each in its line, exit 2): the key is checked before the session is built, the window once it
    is, so a start missing both said the key only and, once it was given, the window. A window set
    nowhere is the model's own, which holds them: the key is left for the session to say, at once."""
    from .models import ConfigError, api_key_for

    if opts.model_override is not None or not (opts.context_window or opts.settings.context_window):
        return
    try:
        api_key_for(opts.model, opts.base_url, opts.api_key)
    except ConfigError as no_key:
        if (problem := window_problem(opts)) is not None:
            sys.stderr.write(visible(f"compact-agent: {no_key}") + "\n")
            raise fail(problem, 2) from None


def window_problem(opts: SessionOptions) -> str | None:
    """Why the window `opts` gives cannot hold what every request carries, found without a model to
    send to: the session is built (its system prompt, instruction files and tools are what the
    window must hold) on a stand-in model that sends nothing, and closed."""
    from dataclasses import replace

    from pydantic_ai.models.test import TestModel

    from .agent.run.runner import AgentSession
    from .models import UsageError

    try:
        session = AgentSession(replace(opts, model_override=TestModel()))
    except UsageError as e:
        return str(e)
    except Exception:  # noqa: BLE001 - anything else (a session another process holds) the run says itself
        return None
    session.close()
    return None
