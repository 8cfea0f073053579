"""`compact-agent config`'s part on what the agent learned from servers: the windows kept in
`servers/windows.json` and the servers user messages are sent joined to (`servers/turns.json`);
`--forget-window URL|all` drops windows, `--forget-server URL|all` all that was learned of a server.

A window learned from a server (a refusal, or prompts it cut) is kept per endpoint and model, and a
new session with no window given starts within it (agent/run/server_windows.py); a session that
learned it keeps it too, and takes it back on `-c` only while it is kept here. Restarted with a
larger context, the server would be held to the old one for good, with only `--context-window` on
every run to say otherwise; the user sees here what is kept, how and when it was learned, and
forgets it in one command. A server whose chat template refused user messages in a row gets them
joined from a run's first request (agent/run/server_turns.py): listed here with when it was learned,
and forgotten with the rest of what is kept of the server (its template changed, say). What is shown
and what the options take are the same words: the endpoint as listed (a URL, or `deepseek` for a
provider's own API).
"""
from __future__ import annotations

import json
import shlex
import sys
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from .agent.run import server_report, server_turns
from .agent.run.server_keys import matches
from .agent.run.server_windows import Kept, every, forget, path_in
from .cli_help import fail
from .settings_table import table
from .ui.visible import visible

#: How the server showed its window, as the listing says it.
HOW_SAID = {"refused": "named in a refusal", "cut": "prompts cut to it", "reported": "reported when asked",
            None: "how not recorded"}
#: The line under the listing that says how to forget.
HINT = "forget: compact-agent config --forget-window URL (every one: --forget-window all)"
#: The line under the list of servers user messages are sent joined to.
JOINED_HINT = "forget: compact-agent config --forget-server URL (its windows too; every server: --forget-server all)"
#: The line under the list of servers that reported no window.
QUIET_HINT = "forget (the next session there asks again): compact-agent config --forget-server URL (or --forget-window URL)"


def _shown(text: str) -> str:
    return visible(text.replace("\n", "\\n"))


def endpoint_named(key: str) -> str:
    """The endpoint as listed and as `--forget-window` takes it: `deepseek` for `deepseek:`."""
    return _shown(key[:-1] if key.endswith(":") else key)


def when(learned: str | None) -> str:
    """`2026-05-01 09:30 UTC` for the time kept (written in UTC); '' when none was kept."""
    if learned is None:
        return ""
    try:
        return datetime.fromisoformat(learned).astimezone(UTC).strftime("%Y-%m-%d %H:%M UTC")
    except ValueError:
        return _shown(learned)


def _detail(kept: Kept) -> str:
    return ", ".join(x for x in (f"{kept.window:,} tokens", HOW_SAID.get(kept.how, HOW_SAID[None]),
                                 when(kept.learned)) if x)


def listing(home: Path, width: int | None = None) -> list[str]:
    """The lines `config` ends with: each window kept (endpoint, model, window, how, when)."""
    path = path_in(home)
    kept = every(home)
    if not kept:
        return [f"server windows learned: none ({_shown(str(path))})"]
    rows = [(endpoint_named(url), _shown(model), _detail(k)) for url, model, k in kept]
    return [f"server windows learned ({_shown(str(path))}):", *table(rows, width), HINT]


def joined_listing(home: Path, width: int | None = None) -> list[str]:
    """The lines after the windows: each server and model user messages are sent joined to, and when
    that was learned."""
    path = server_turns.path_in(home)
    kept = server_turns.every(home)
    if not kept:
        return [f"user messages sent joined: none ({_shown(str(path))})"]
    rows = [(endpoint_named(url), _shown(model), _joined_detail(learned)) for url, model, learned in kept]
    return [f"user messages sent joined ({_shown(str(path))}):", *table(rows, width), JOINED_HINT]


def quiet_listing(home: Path, width: int | None = None) -> list[str]:
    """The lines after the joined servers: each server and model that answered and reported no
    window, which a session there does not ask again for a week; `--forget-server` forgets them.
    None kept: no line (most never meet such a server)."""
    path = path_in(home).with_name(server_report.QUIET_FILE)
    kept = server_report.every_quiet(home)
    if not kept:
        return []
    days = server_report.QUIET_FOR.days
    rows = [(endpoint_named(url), _shown(m), ", ".join(x for x in ("reported no window when asked", when(t)) if x))
            for url, m, t in kept]
    return [f"servers that reported no window, not asked again for {days} days ({_shown(str(path))}):",
            *table(rows, width), QUIET_HINT]


def _joined_detail(learned: str | None) -> str:
    return ", ".join(x for x in ("its chat template refused them in a row", when(learned)) if x)


def as_json(url: str, model: str, kept: Kept) -> dict[str, Any]:
    return {"endpoint": endpoint_named(url), "model": model, "window": kept.window, "how": kept.how,
            "learned": kept.learned}


def joined_as_json(url: str, model: str, learned: str | None) -> dict[str, Any]:
    return {"endpoint": endpoint_named(url), "model": model, "learned": learned}


def with_windows(rendered: str, home: Path, json_out: bool, width: int | None) -> str:
    """`config`'s output (`settings_file.render`) with what is kept of servers after it."""
    if json_out:
        data = json.loads(rendered)
        data["server_windows"] = [as_json(*row) for row in every(home)]
        data["joined_user_messages"] = [joined_as_json(*row) for row in server_turns.every(home)]
        data["unreported_windows"] = [{"endpoint": endpoint_named(url), "model": m, "asked": t}
                                      for url, m, t in server_report.every_quiet(home)]
        return json.dumps(data, ensure_ascii=False, indent=1) + "\n"
    return rendered + "\n" + "\n".join([*listing(home, width), *joined_listing(home, width),
                                        *quiet_listing(home, width)]) + "\n"


def forget_learned(home: Path, window: str | None, server: str | None, model: str | None, json_out: bool) -> None:
    """`config --forget-window WHICH` (`window`) or `--forget-server WHICH` (`server`), not both."""
    if window is not None and server is not None:
        raise fail("--forget-window and --forget-server: give one (--forget-server forgets the windows too)", 2)
    if window is not None:
        forget_windows(home, window, model, json_out)
    elif server is not None:
        forget_server(home, server, model, json_out)


def forget_windows(home: Path, which: str, model: str | None, json_out: bool) -> None:
    """`config --forget-window WHICH`: drop the windows kept for the endpoint WHICH names (every
    model there, or `model`'s when `-m` was given before `config`), or all of them; say each one.
    An endpoint with nothing kept is an error (a URL mistyped), `all` with nothing kept is not."""
    try:
        gone = forget(home, which, model)
        quiet = server_report.forget_quiet(home, which, model)
    except OSError as e:
        raise fail(f"could not change {path_in(home)}: {e.strerror or e}") from None
    if not gone and not quiet and which != "all":
        listed = sorted({endpoint_named(url) for url, _, _ in every(home)})
        there = f"{model} at {which}" if model else which
        known = f"; kept: {', '.join(listed)}" if listed else "; none is kept"
        joined = any(matches(url, which) and model in (None, m) for url, m, _ in server_turns.every(home))
        also = f" (user messages are sent joined there: --forget-server {_shown(shlex.quote(which))} forgets that)" \
            if joined else ""
        raise fail(f"--forget-window: no window is remembered for {_shown(there)}{known}{also}")
    if json_out:
        sys.stdout.write(json.dumps({"forgotten": [as_json(*row) for row in gone], **_quiet_json(quiet)},
                                    ensure_ascii=False, indent=1) + "\n")
        return
    if not gone and not quiet:
        sys.stdout.write("no server window was remembered\n")
    _say_windows_gone(gone)
    _say_quiet_gone(quiet)


def _quiet_json(quiet: list[tuple[str, str]]) -> dict[str, Any]:
    """The servers forgotten to have reported no window, for `--json` (said only when there are some)."""
    return {"unreported": [{"url": endpoint_named(url), "model": m} for url, m in quiet]} if quiet else {}


def _say_quiet_gone(quiet: list[tuple[str, str]]) -> None:
    for url, m in quiet:
        sys.stdout.write(f"forgot that {endpoint_named(url)} reported no window for {_shown(m)}; the next session "
                         "there asks it again\n")


def _say_windows_gone(gone: list[tuple[str, str, Kept]]) -> None:
    for url, m, kept in gone:
        sys.stdout.write(f"forgot the window of {_shown(m)} at {endpoint_named(url)}: {_detail(kept)}; sessions there, "
                         "new or resumed, start in the window given or assumed\n")


def forget_server(home: Path, which: str, model: str | None, json_out: bool) -> None:
    """`config --forget-server WHICH`: drop all that is kept of the endpoint WHICH names (every model
    there, or `model`'s when `-m` was given before `config`), or of every one: its windows, and that
    it wants user messages joined; say each one. Errors as `forget_windows`'."""
    try:
        windows = forget(home, which, model)
        joined = server_turns.forget(home, which, model)
        quiet = server_report.forget_quiet(home, which, model)
    except OSError as e:
        raise fail(f"could not change {path_in(home).parent}: {e.strerror or e}") from None
    if not windows and not joined and not quiet and which != "all":
        listed = sorted({endpoint_named(url) for url, _, _ in [*every(home), *server_turns.every(home)]})
        there = f"{model} at {which}" if model else which
        known = f"; kept: {', '.join(listed)}" if listed else "; nothing is kept"
        raise fail(f"--forget-server: nothing is remembered of {_shown(there)}{known}")
    if json_out:
        gone = {"server_windows": [as_json(*row) for row in windows],
                "joined_user_messages": [joined_as_json(*row) for row in joined], **_quiet_json(quiet)}
        sys.stdout.write(json.dumps({"forgotten": gone}, ensure_ascii=False, indent=1) + "\n")
        return
    if not windows and not joined and not quiet:
        sys.stdout.write("nothing was remembered of any server\n")
    _say_windows_gone(windows)
    _say_quiet_gone(quiet)
    for url, m, learned in joined:
        at = f" ({when(learned)})" if learned else ""
        sys.stdout.write(f"forgot that {_shown(m)} at {endpoint_named(url)} wants user messages joined{at}; runs there "
                         "send them apart, and join them again if the server refuses them\n")
