"""What a session says once as it starts, beyond the load's own warnings: a buffer given that the
window cannot hold, where the window came from (for the error that says it is too small), and the
window a local server reported (`reported_window`, `reported_note`). Apart from runner.py, which
wires the session and calls these once from `__init__`: each reads the session's settings and their
sources, and none of it is wiring."""

from __future__ import annotations

import contextlib
from dataclasses import dataclass
from typing import TYPE_CHECKING, Protocol

from .session_parts import SessionParts

if TYPE_CHECKING:
    from ...config import Limits, Settings
    from ...models import ModelInfo
    from .options import SessionOptions


class Starting(SessionParts, Protocol):
    """What the notes read of the session (runner.py's `AgentSession`) as it starts."""

    @property
    def opts(self) -> SessionOptions: ...
    @property
    def limits(self) -> Limits: ...
    @property
    def reported(self) -> Reported | None: ...


def buffer_note(session: Starting) -> str | None:
    """A buffer given that the window cannot hold, said once at start (settings_checks.py)."""
    from ...settings_checks import buffer_note

    config, settings = session.opts.config, session.settings
    if (config.sources.get("autocompact_buffer", "default") == "default" if config is not None
            else settings.autocompact_buffer == type(settings).model_fields["autocompact_buffer"].default):
        return None  # the default: a tenth of a smaller window is what it means
    where = config.where("autocompact_buffer") if config is not None else "the settings"
    lim = session.limits
    return buffer_note(settings.autocompact_buffer, lim.buffer, lim.window, lim.threshold, where)


def larger_than_known(session: Starting) -> str | None:
    """A window given larger than the one this version knows its model to have, said once at start.
    Accepted without a word, the session planned for room the model does not have: nothing was
    compacted until the provider refused a request as too long. None for a model it does not know,
    one served by a --base-url (any window there may be the server's), or a window within the known one."""
    from ...models import REGISTRY
    from .server_keys import sent_to

    opts = session.opts
    known = REGISTRY.get(session.info.name)
    given = opts.context_window or opts.settings.context_window
    if known is None or not given or given <= known.window or sent_to(opts.base_url, known.provider) is not None:
        return None
    return (f"{window_setting(session)} gives {given:,} tokens, more than the {known.window:,} {known.name} has as "
            f"this version knows it: a request past {known.window:,} is refused by the provider, and the "
            "session then compacts and learns its window")


def window_setting(session: Starting) -> str:
    """Where the window came from, for the error that says it is too small."""
    if session.opts.context_window:  # given, or remembered by the session (`-c` with no flag)
        from ...session.remembered import named

        return named("context_window", "--context-window")
    if session.settings.context_window:
        return "context_window in " + (session.opts.config.where("context_window") if session.opts.config
                                       else "a config file")
    if (reported := session.reported) is not None:  # no window given can be larger than the server's
        from .server_keys import forget_hint, shown

        if reported.field is None:
            return (f"the window {shown(reported.key)} reported for {session.info.name} in an earlier session: start "
                    f"that server with a larger context {forget_hint(reported.key)}")
        return f"the window {shown(reported.key)} reports for {session.info.name}: start that server with a larger context"
    return f"{session.info.name}'s window; give a larger one with --context-window"


@dataclass(frozen=True)
class Reported:
    """The window the server at `key` (server_keys.endpoint) reported for the session's model, and
    the field that said it (server_report.py); `field` None: kept from an earlier session."""

    window: int
    key: str
    field: str | None = None


def reported_window(opts: SessionOptions, info: ModelInfo, settings: Settings,
                    ahead: bool = False) -> tuple[ModelInfo, Reported | None]:
    """`info` with the window a local OpenAI-compatible server reports for it, where no window was
    given (the flag, the settings, one a resumed session remembers) and none was learned of that
    server and model: the one kept from an earlier session that asked, or asked now (once, briefly:
    server_report.py), unless it answered within 7 days that it reports none (server_report.quiet).
    Anything kept otherwise (a refusal's, prompts cut) is start_at_remembered's. `ahead`: only ask,
    for the session built next (`ask_ahead`)."""
    if opts.context_window or settings.context_window or opts.model_override is not None or info.provider != "openai":
        return info, None
    from ...config import home_dir
    from ...models import ConfigError, api_key_for, model_info
    from . import server_report, server_windows
    from .server_keys import endpoint, sent_to

    if (url := sent_to(opts.base_url, info.provider)) is None or server_report.hosted(url):
        return info, None
    key = endpoint(opts.base_url, info.provider)
    kept = server_windows.remembered_as(opts.home or home_dir(), key, info.name)
    if kept is not None and kept.how != server_windows.REPORTED:
        return info, None
    found = Reported(kept.window, key) if kept is not None else None
    home = opts.home or home_dir()
    if found is None and not server_report.quiet(home, key, info.name):
        with contextlib.suppress(ConfigError):  # no key for it: the session says so itself
            api_key = api_key_for(info.name, opts.base_url, opts.api_key)
            if ahead:
                server_report.ask_ahead(url, info.name, api_key)
                return info, None
            report, answered = server_report.asked(url, info.name, api_key)
            found = Reported(report.window, key, report.field) if report is not None else None
            if found is None and answered:  # it reports none: not asked again on every start
                with contextlib.suppress(OSError):
                    server_report.keep_quiet(home, key, info.name)
    if found is None:
        return info, None
    return model_info(info.name, provider=info.provider, window=found.window, prices=settings.prices,
                      cache_ttl_minutes=settings.cache_ttl_minutes), found


def ask_ahead(opts: SessionOptions) -> None:
    """`reported_window`'s asking, before the session is built and in a worker thread: the REPL builds
    it on the event loop its prompt runs on, which the asking (up to WAIT_S) held still."""
    from ...models import model_info, provider_for

    with contextlib.suppress(Exception):  # what fails here, the session's build says (and asks then)
        info = model_info(opts.model, provider=provider_for(opts.model, opts.base_url),
                          window=opts.context_window or opts.settings.context_window)
        reported_window(opts, info, opts.settings, ahead=True)


def reported_note(session: Starting) -> str | None:
    """Said once, by the session that asked: the window its server reported, now kept for the next
    sessions (which start in it without asking: server_windows.py); only once the session can
    start in it (window_check.py), so that a server restarted larger is asked again."""
    reported = session.reported
    if reported is None or reported.field is None:
        return None
    from ...config import home_dir
    from . import server_windows
    from .server_keys import forget_hint, shown

    with contextlib.suppress(OSError):  # a home folder that cannot be written keeps nothing: asked again next time
        server_windows.remember(session.opts.home or home_dir(), reported.key, session.info.name, reported.window,
                                server_windows.REPORTED)
    return (f"working within {reported.window:,} tokens, the window {shown(reported.key)} reports for "
            f"{session.info.name} ({reported.field}); kept for the next sessions {forget_hint(reported.key)}")
