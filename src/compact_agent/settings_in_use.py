"""What a run uses of the settings, for the two views of them: `/config` in a session and the
`config` command, which show the same.

Unset, the settings say `null`, and a user reads "no window" or "free"; what runs is the registry's
(the model's own) or, for a model it does not know, an assumed window and no prices (it compacts at
the threshold only). A window a server showed in an earlier session (servers/windows.json) is the
one a new session with no window given works within: said as "learned from the server", not
"assumed", above the list of windows kept that names it.

And the token figures a small window cannot hold are scaled down for it (`Limits.for_window`: the
buffer at most a tenth of the window, the answer's reserve a quarter, ...; microcompact's least gain
for a batch a tenth of the threshold, by the layer itself): `autocompact_buffer
13000  default` read as 13,000 tokens kept free in an 8,000-token window, where a run keeps 800.
Where a run uses another value than the setting, the table says it after the source (`default → 800
in the 8,000-token window`), and `--json` gives the values in use under `in_use`; the settings'
own values and sources stay as they were.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from .ui.visible import json_visible, visible

if TYPE_CHECKING:
    from collections.abc import Callable

    from .agent.run.server_windows import Kept
    from .config import Settings
    from .context.plumbing.settings import Limits
    from .models import ModelInfo
    from .settings_file import Loaded

#: The settings `Limits.for_window` scales for a window, by the field of `Limits` each becomes.
SCALED = {"autocompact_buffer": "buffer", "summary_output_reserve": "output_reserve",
          "restore_tokens_per_file": "restore_tokens_per_file", "restore_total_tokens": "restore_total_tokens",
          "user_messages_budget": "user_messages_budget", "memory_min_tokens": "memory_min_tokens",
          "memory_max_tokens": "memory_max_tokens", "memory_update_tokens": "memory_update_tokens"}
#: The settings a layer scales itself, not in `Limits`, each as the value it uses of the setting's and
#: the limits': microcompact's least gain for a batch is at most a tenth of the threshold
#: (context/layers/microcompact.py, its count rule).
AT_USE: dict[str, Callable[[int, Limits], int]] = {
    "microcompact_min_free_tokens": lambda given, limits: min(given, limits.threshold // 10)}


@dataclass(frozen=True)
class InUse:
    """The settings as shown (`loaded`: the model's window and prices where none is set) and what a
    run works within: `window` (the one the server taught, where it did: `learned` says how), and
    the model's `max_output`, which caps the answer's reserve."""

    loaded: Loaded
    window: int
    max_output: int
    learned: str | None = None
    #: where requests go with base_url unset: (the address, the SDK's variable it was read from)
    from_env: tuple[str, str] | None = None


def env_endpoint(base_url: str | None, provider: str) -> tuple[str, str] | None:
    """(the address shown, its variable) where no base_url is set and the provider's client reads one
    from its own variable (ANTHROPIC_BASE_URL, OPENAI_BASE_URL): every request goes there, while the
    table said `not set (the model's provider)`."""
    from .agent.run.server_keys import SDK_BASE_URL, sent_to
    from .secrets import shown_url

    url = None if base_url else sent_to(None, provider)
    return (shown_url(url), SDK_BASE_URL[provider]) if url else None


def model_values(loaded: Loaded, info: ModelInfo, window: int, learned: str | None = None) -> Loaded:
    """`loaded` with the window (`window`: the one in use; `learned`: how a server showed it, when it
    did), the prompt cache's lifetime and prices of model `info` where the settings give none, or give prices the model is not
    priced at (a known model switched to has its own), each with its source in words."""
    from .models import REGISTRY
    from .price_setting import ModelPrices
    from .settings_file import with_changes

    known = info.name in REGISTRY
    if loaded.settings.context_window is None:
        whence = (learned if learned is not None else f"the model's own ({info.name})" if known
                  else f"assumed: {info.name} is not a known model (set context_window)")
        loaded = with_changes(loaded, whence, context_window=window)
    if loaded.settings.cache_ttl_minutes is None:
        whence = f"the model's own ({info.name})" if known else "assumed: an hour for a model not known (set cache_ttl_minutes)"
        loaded = with_changes(loaded, whence, cache_ttl_minutes=info.cache_ttl_s / 60)
    if not info.has_prices:
        whence = f"not known: {info.name} is not a known model, so it compacts at the threshold only (set prices)"
        return with_changes(loaded, whence, prices="none")
    used = ModelPrices.of(info)
    if used == loaded.settings.prices or not known:
        return loaded
    return with_changes(loaded, f"the model's own ({info.name})", prices=used)


def remembered_for(home: Path, base_url: str | None, info: ModelInfo) -> Kept | None:
    """The window kept for the endpoint and model (server_windows.py); None where none is, or the
    file cannot be read."""
    from .agent.run.server_windows import endpoint, remembered_as

    try:
        return remembered_as(home, endpoint(base_url, info.provider), info.name)
    except OSError:
        return None


def learned_words(kept: Kept | None) -> str:
    """`learned from the server (named in a refusal, 2026-05-01 09:30 UTC)`: how and when, as
    `config` lists the window kept (`kept`; None: learned, but not kept)."""
    from .cli_windows import HOW_SAID, when

    detail = [x for x in (HOW_SAID[kept.how] if kept.how else "", when(kept.learned)) if x] if kept else []
    return f"learned from the server ({', '.join(detail)})" if detail else "learned from the server"


def for_settings(loaded: Loaded, home: Path) -> InUse:
    """What a new session with these settings would run with (the `config` command: no session):
    the model's own window, or one assumed, unless a window is set; and where none is set, the one
    remembered for the endpoint and model when smaller (server_windows.start_at_remembered's rule)."""
    from .models import model_info, provider_for

    s = loaded.settings
    info = model_info(s.model, provider=provider_for(s.model, s.base_url), window=s.context_window,
                      prices=s.prices, cache_ttl_minutes=s.cache_ttl_minutes)
    window, learned = info.window, None
    kept = None if s.context_window else remembered_for(home, s.base_url, info)
    if kept is not None and (kept.window < info.window or kept.how == "reported" and info.provider == "openai"):
        window, learned = kept.window, learned_words(kept)  # reported: the window, larger or smaller
    return InUse(model_values(loaded, info, window, learned), window, info.max_output, learned,
                 env_endpoint(s.base_url, info.provider))


def for_session(loaded: Loaded, session: Any) -> InUse:
    """What the session (an AgentSession) runs with: its window, and how the server showed it where
    one did (a refusal, prompts cut, or an earlier session's, kept in servers/windows.json)."""
    from .config import home_dir

    cm, info, learned = session.cm, session.info, None
    if (taught := cm.window_learned) is not None and taught.window == cm.limits.window:
        kept = remembered_for(session.opts.home or home_dir(), session.opts.base_url, info)
        learned = learned_words(kept if kept is not None and kept.window == taught.window else None)
    return InUse(model_values(loaded, info, cm.limits.window, learned), cm.limits.window, cm.max_output, learned,
                 env_endpoint(session.opts.base_url, info.provider))


def scaled(settings: Settings, window: int, max_output: int) -> dict[str, tuple[int, str | None]]:
    """Each setting `Limits.for_window` scales, as (the value a run uses, why it is not the
    setting's or None where it is)."""
    from .context.plumbing.settings import Limits

    limits = Limits.for_window(window, max_output, settings.compaction())
    out: dict[str, tuple[int, str | None]] = {}
    for name in [*SCALED, *AT_USE]:
        given = int(getattr(settings, name))
        used = int(getattr(limits, SCALED[name])) if name in SCALED else AT_USE[name](given, limits)
        why = None
        if used != given:
            capped = name == "summary_output_reserve" and used == max_output and used < window // 4
            why = "the model's output limit" if capped else f"in the {window:,}-token window"
        out[name] = (used, why)
    return out


def _noted(view: InUse) -> Loaded:
    """The settings with what a run uses instead after each source it differs from (the table's)."""
    loaded = view.loaded
    sources = dict(loaded.sources)
    notes = {name: f"{used:,}{' ' if why.startswith('in ') else ', '}{why}"
             for name, (used, why) in scaled(loaded.settings, view.window, view.max_output).items() if why}
    if loaded.settings.context_window != view.window:  # given, then taught smaller by the server
        notes["context_window"] = f"{view.window:,} {view.learned or 'learned from the server'}"
    if view.from_env is not None:
        notes["base_url"] = "{} from {}".format(*view.from_env)
    for name, note in notes.items():
        sources[name] = f"{sources.get(name, 'default')} → {note}"
    return replace(loaded, sources=sources)


def as_json(view: InUse) -> dict[str, Any]:
    """`in_use` of `config --json`: the window a run works within and every scaled setting's value,
    each with why it is not the setting's (null where it is)."""
    given = view.loaded.settings.context_window
    window_why = None if given == view.window else (view.learned or "learned from the server")
    sent = {"base_url": {"value": view.from_env[0], "why": view.from_env[1]}} if view.from_env else {}
    return {"context_window": {"value": view.window, "why": window_why}, **sent,
            **{name: {"value": used, "why": why}
               for name, (used, why) in scaled(view.loaded.settings, view.window, view.max_output).items()}}


def shown(view: InUse, home: Path, as_json_out: bool = False, width: int | None = None,
          cwd: Path | None = None) -> str:
    """What `config` prints, and `/config` before what only a session knows: the settings, what a
    run uses where it differs, then the windows kept from servers (cli_windows.py). A provider key a
    setting holds (a hook's command, an MCP server's env, a rule) is shown as [REDACTED]. `cwd`: the
    working directory whose sessions folder is said under the files (`config`)."""
    from . import secrets
    from .cli_windows import with_windows
    from .session.files import project_slug
    from .settings_file import render

    secrets.register_environment()  # `config` builds no model, which would have learned the keys
    # Where a run in `cwd` keeps its sessions, found without moving anything (as `sessions` would
    # take over those of a project moved since: config only reads).
    sessions = home / "projects" / project_slug(cwd) if cwd is not None else None
    if as_json_out:
        data = json.loads(render(view.loaded, True, sessions=sessions))
        data["in_use"] = as_json(view)
        rendered = json.dumps(data, ensure_ascii=False, indent=1) + "\n"
    else:
        rendered = render(_noted(view), False, width, sessions)
    out = secrets.redact(with_windows(rendered, home, as_json_out, width))
    return json_visible(out) if as_json_out else visible(out)
