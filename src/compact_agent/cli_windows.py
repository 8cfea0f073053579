"""`compact-agent config`'s part on server windows: what is kept in `servers/windows.json`, and
`--forget-window URL|all` to drop it.

A window learned from a server (a refusal, or prompts it cut) is kept per endpoint and model, and a
new session with no window given starts within it (agent/run/server_windows.py); a session that
learned it keeps it too, and takes it back on `-c` only while it is kept here. Restarted with a
larger context, the server would be held to the old one for good, with only `--context-window` on
every run to say otherwise; the user sees here what is kept, how and when it was learned, and
forgets it in one command. What is shown and what `--forget-window` takes are the same words: the
endpoint as listed (a URL, or `deepseek` for a provider's own API).
"""

from __future__ import annotations

import json
import sys
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from .agent.run.server_windows import Kept, every, forget, path_in
from .cli_help import fail
from .settings_table import table
from .ui.visible import visible

#: How the server showed its window, as the listing says it.
HOW_SAID = {"refused": "named in a refusal", "cut": "prompts cut to it", None: "how not recorded"}
#: The line under the listing that says how to forget.
HINT = "forget: compact-agent config --forget-window URL (every one: --forget-window all)"


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


def as_json(url: str, model: str, kept: Kept) -> dict[str, Any]:
    return {"endpoint": endpoint_named(url), "model": model, "window": kept.window, "how": kept.how,
            "learned": kept.learned}


def with_windows(rendered: str, home: Path, json_out: bool, width: int | None) -> str:
    """`config`'s output (`settings_file.render`) with the windows kept after it."""
    if json_out:
        data = json.loads(rendered)
        data["server_windows"] = [as_json(*row) for row in every(home)]
        return json.dumps(data, ensure_ascii=False, indent=1) + "\n"
    return rendered + "\n" + "\n".join(listing(home, width)) + "\n"


def forget_windows(home: Path, which: str, model: str | None, json_out: bool) -> None:
    """`config --forget-window WHICH`: drop the windows kept for the endpoint WHICH names (every
    model there, or `model`'s when `-m` was given before `config`), or all of them; say each one.
    An endpoint with nothing kept is an error (a URL mistyped), `all` with nothing kept is not."""
    try:
        gone = forget(home, which, model)
    except OSError as e:
        raise fail(f"could not change {path_in(home)}: {e.strerror or e}") from None
    if not gone and which != "all":
        listed = sorted({endpoint_named(url) for url, _, _ in every(home)})
        there = f"{model} at {which}" if model else which
        known = f"; kept: {', '.join(listed)}" if listed else "; none is kept"
        raise fail(f"--forget-window: no window is remembered for {_shown(there)}{known}")
    if json_out:
        sys.stdout.write(json.dumps({"forgotten": [as_json(*row) for row in gone]}, ensure_ascii=False,
                                    indent=1) + "\n")
        return
    if not gone:
        sys.stdout.write("no server window was remembered\n")
    for url, m, kept in gone:
        sys.stdout.write(f"forgot the window of {_shown(m)} at {endpoint_named(url)}: {_detail(kept)}; sessions there, "
                         "new or resumed, start in the window given or assumed\n")
