"""One short line per tool call and per result, as the REPL and `-p --verbose` show them.

A user watching a turn wants to know what the agent is doing (which file, which command) and how
it went (lines read, exit code, the error) without the output itself, which is in the session.
Both take the stream-json objects of `agent/stream_events.py`, so all three views agree.
"""

from __future__ import annotations

import json
import re
from typing import Any

#: The argument that says the most about a call, per tool.
MAIN_ARG = {"read_file": "path", "write_file": "path", "edit_file": "path", "bash": "command",
            "grep": "pattern", "glob": "pattern", "todo_write": None}
WIDTH = 100


def _clip(text: str, n: int = WIDTH) -> str:
    text = " ".join(str(text).split())
    return text if len(text) <= n else text[: n - 1] + "…"


def call_line(obj: dict[str, Any]) -> str:
    """`● bash(pytest -q)` — the tool and its main argument."""
    tool, args = obj.get("tool", "?"), obj.get("args") or {}
    key = MAIN_ARG.get(tool, "")
    if key is None:
        shown = ""
    elif key and key in args:
        shown = str(args[key])
        if tool == "grep" and args.get("path"):
            shown += f" in {args['path']}"
    else:
        shown = json.dumps(args, ensure_ascii=False, default=str) if args else ""
    return f"● {tool}({_clip(shown, WIDTH - len(tool) - 4)})"


def result_line(obj: dict[str, Any]) -> str:
    """`  ⎿ 120 lines` / `  ⎿ error: File not found: x.py` — how the call went, in one line."""
    content = str(obj.get("content", ""))
    lines = content.splitlines()
    if obj.get("error"):
        return f"  ⎿ error: {_clip(_bash_tail(lines) if obj.get('tool') == 'bash' else content, WIDTH - 12)}"
    tool = obj.get("tool")
    if tool == "bash":
        return f"  ⎿ {_clip(_bash_tail(lines), WIDTH - 4)}"
    if tool == "read_file":
        numbered = [ln for ln in lines if re.match(r"^\s*\d+\t", ln)]
        return f"  ⎿ {len(numbered)} lines" if numbered else f"  ⎿ {_clip(content, WIDTH - 4)}"
    if tool in ("grep", "glob") and lines and not lines[0].startswith("No "):
        return f"  ⎿ {len(lines)} {'matches' if tool == 'grep' else 'files'}"
    return f"  ⎿ {_clip(lines[0] if lines else '(empty)', WIDTH - 4)}"


def _bash_tail(lines: list[str]) -> str:
    """The exit code and the last line of output before it."""
    code = lines[-1] if lines and lines[-1].startswith("exit code:") else ""
    body = [ln for ln in lines[:-1] if ln.strip()] if code else [ln for ln in lines if ln.strip()]
    last = body[-1] if body else "(no output)"
    return f"{code} · {last}" if code else last
