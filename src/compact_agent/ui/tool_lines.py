"""One short line per tool call and per result, as the REPL and `-p --verbose` show them.

A user watching a turn wants to know what the agent is doing (which file, which command) and how
it went (lines read, exit code, the error) without the output itself, which is in the session.
Both take the stream-json objects of `agent/run/stream_events.py`, so all three views agree.
"""

from __future__ import annotations

import contextlib
import json
import re
import shlex
from typing import Any

from rich.cells import cell_len

from .cells import clip, wrap

#: The argument that says the most about a call, per tool.
MAIN_ARG = {"read_file": "path", "write_file": "path", "edit_file": "path", "bash": "command",
            "grep": "pattern", "glob": "pattern", "todo_write": None}
WIDTH = 100


def _clip(text: str, n: int = WIDTH) -> str:
    """`text` on one line, within `n` columns of the screen: a Chinese character or an emoji takes
    two, so a line cut at `n` characters took up to twice the width and wrapped to column 0."""
    return clip(" ".join(str(text).split()), n)


#: Where the main argument of a call breaks its line, on the call's one line: joined by spaces,
#: `for f in a b; do echo $f` and `done` read as another command (`do echo $f done`).
BREAK = " ↵ "


def call_line(obj: dict[str, Any], width: int = WIDTH) -> str:
    """`● bash(pytest -q)` — the tool and its main argument, cut to fit `width` columns (wrapped by
    the terminal, its end stood at column 0 under the dot), a line break in it shown (`BREAK`)."""
    tool, head, shown = _called(obj)
    shown = BREAK.join(line for line in shown.strip().splitlines() if line.strip()) if "\n" in shown.strip() else shown
    room = max(10, width - cell_len(tool) - 4)
    if head:  # stream_events.call_args: said in our words, as written
        return f"● {tool}({head}{_clip(shown, max(5, room - cell_len(head) - 1))}>)"
    return f"● {tool}({_clip(shown, room)})"


def whole_call(obj: dict[str, Any]) -> str:
    """`bash(make -C services/billing-gateway integration-tests)`: the call as `call_line` names it,
    not cut and its white space as it came (the JSON result's `permission_denials`, read by programs:
    they were cut at the terminal's 100 columns, with `…`)."""
    tool, head, shown = _called(obj)
    return f"{tool}({head}{shown}>)" if head else f"{tool}({shown})"


def _called(obj: dict[str, Any]) -> tuple[str, str, str]:
    """A call's tool, the words before arguments it cannot take (else ""), and its main argument."""
    tool, args = str(obj.get("tool", "?")), obj.get("args") or {}
    key = MAIN_ARG.get(tool, "")
    if (raw := obj.get("args_raw")) is not None:
        return tool, f"<arguments that are {_not_an_object(str(raw))}: ", str(raw)
    if key is None:
        return tool, "", ""
    if key and key in args:
        shown = str(args[key])
        return tool, "", shown + (f" in {args['path']}" if tool == "grep" and args.get("path") else "")
    return tool, "", json.dumps(args, ensure_ascii=False, default=str) if args else ""


def _not_an_object(raw: str) -> str:
    """What is wrong with arguments a tool cannot take: `not JSON`, or JSON of another kind."""
    try:
        json.loads(raw)
    except (ValueError, RecursionError):  # nested past the parser's depth: no JSON we can read either
        return "not JSON"
    return "not a JSON object"


def result_line(obj: dict[str, Any], width: int = WIDTH, call: str | None = None) -> str:
    """`  ⎿ 120 lines` / `  ⎿ error: File not found: x.py` — how the call went, in one line, from the
    whole result (`summary`, computed before the event's `content` was cut to a preview). `call`
    (`read_file(a.py)`) names the call first, for a result not printed right under its call."""
    from ..agent.run.stream_events import result_summary

    summary = obj.get("summary") or result_summary(str(obj.get("tool", "")), str(obj.get("content", "")),
                                                   bool(obj.get("error")))
    prefix = "  ⎿ " + (f"{_clip(call, min(40, width // 2 - 4))}: " if call else "")  # room left for the result
    if (told := told_instead(obj)) is not None:
        return prefix + _clip(f"declined; the model is told: {told}", max(20, width - cell_len(prefix)))
    if obj.get("error") and not summary.startswith("exit code:"):
        prefix += "error: "
    room = max(20, width - cell_len(prefix))
    lines = summary.splitlines()
    if len(lines) < 2:
        return prefix + _clip(lines[0] if lines else "", room)
    # Several problems (a call's arguments: agent/tools/arg_errors.py) are a line each, aligned; one
    # too long for the terminal wraps under its own text (cut by the terminal, its end stood at column 0).
    shown = [part for line in lines for part in wrap(line, room, indent="  ")]  # in cells: cells.py
    return prefix + ("\n" + " " * cell_len(prefix)).join(shown)


def told_instead(obj: dict[str, Any]) -> str | None:
    """The user's instruction of a call declined with one ("No, and tell the model what to do
    instead": permissions.py), else None. The result is the user's answer, not a failure, and its
    line shows it as a result (not in red, not cut before the user's words)."""
    from ..agent.safety.permissions import COPIED_INSTEAD, INSTEAD

    text = str(obj.get("content") or obj.get("summary") or "")
    if not obj.get("error") or not text.startswith("permission denied: the user declined") or INSTEAD not in text:
        return None
    if COPIED_INSTEAD in text:  # a command printed one (a failing `cat` of it): not the user's answer
        return None
    return " ".join(text.split(INSTEAD, 1)[1].split())


class Lines:
    """The call and result lines of one stream of tool events. Calls made together (parallel tool
    calls) print first and their results come back in the order they finish, so a result that is
    not right under its own call line names its call: `⎿ grep(item1399): 1 match`."""

    def __init__(self) -> None:
        self.calls: dict[str, str] = {}
        self.last: str | None = None  # the id of the call whose line was printed last

    def line(self, obj: dict[str, Any], width: int = WIDTH) -> str:
        key = str(obj.get("id", ""))
        if obj.get("type") == "tool_call":
            text = call_line(obj, width)
            self.calls[key], self.last = text[2:], key
            return text
        call = None if key == self.last else self.calls.get(key, str(obj.get("tool", "tool")))
        self.last = None
        return result_line(obj, width, call)


#: How many characters a list in print mode's refusal line takes (`listed`), its calls each with why it
#: was refused (`refusal_line`).
LISTED_CHARS = 300
PAIRED_CHARS = 400


def listed(items: list[str], room: int = LISTED_CHARS) -> str:
    """`items` joined by `; `, as many whole ones as fit in `room` characters (the first always),
    the rest counted: `bash(make a); bash(make b) and 3 more`. The refusal line cut its list at 300
    characters, mid-word and with nothing said: the last call refused, or the rule that would cover
    it, did not show."""
    shown: list[str] = []
    for item in items:
        if shown and len("; ".join([*shown, item])) > room:
            break
        shown.append(item)
    left = len(items) - len(shown)
    return "; ".join(shown) + (f" and {left:,} more" if left else "")


#: How many cells a reason takes in the refusal line, and a command quoted in it (`short_why`).
WHY_CELLS = 240
QUOTED_CELLS = 40
_QUOTED = re.compile(r"`([^`]*)`")


def refusal_line(by_rule: list[tuple[str, str]], needing: list[tuple[str, str]]) -> str:
    """Print mode's line of what it refused (it never asks; a deny rule holds even with --yes), each
    call (`call_line`'s) with why, short (`short_why`), the rest counted: `refused 7 actions needing
    approval: bash(make build) (not covered by bash(python *)); … and 5 more — print mode does not
    ask; …`. The calls and the reasons were two lists counted apart (`… and 3 more (… and 5 more)`,
    read as five more rules), and each reason quoted the whole command again: a 1,500-character
    command made a line of 1,776."""
    from ..words import plural

    said = [f"{plural(len(by_rule), 'action')} by the deny rules, which --yes does not lift: "
            f"{paired(by_rule)}"] if by_rule else []
    if needing:
        said.append(f"{plural(len(needing), 'action')} needing approval: {paired(needing)} — "
                    "print mode does not ask; rerun with --yes, or allow them with --allowed-tools")
    return f"refused {said[0]}" if len(said) == 1 else \
        f"refused {plural(len(by_rule) + len(needing), 'action')}: {'; '.join(said)}"


def paired(calls: list[tuple[str, str]]) -> str:
    """`bash(make a) (not covered by bash(python *)); write_file(b.py) and 4 more`: each call with
    its reason, as many as fit in `PAIRED_CHARS` (`listed`), the rest counted."""
    return listed([f"{call} ({why})" if why else call for call, why in calls], PAIRED_CHARS)


def short_why(why: str, call: dict[str, Any]) -> str:
    """Why `call` was refused, in words that do not repeat it: the rules' reason quotes the command
    (`` `make build` is not covered by bash(python *) ``), which the line names already; said of
    the whole command, `not covered by bash(python *)`; a part of it (one command of a compound
    line) stays, cut to a few words; the reason cut to `WHY_CELLS`."""
    whole = _spellings(call)

    def quoted(m: re.Match[str]) -> str:
        words = " ".join(m[1].split())
        return "it" if words in whole else f"`{clip(words, QUOTED_CELLS)}`"

    said = " ".join(_QUOTED.sub(quoted, why).split())
    return clip(said.removeprefix("it is ") if said.startswith("it is not covered") else said, WHY_CELLS)


def _spellings(call: dict[str, Any]) -> set[str]:
    """How a reason may quote the whole of `call`'s command: as it came, and as a shell line of its
    words (bash_rules.shown), white space taken as one space."""
    command = str((call.get("args") or {}).get("command") or "") if call.get("tool") == "bash" else ""
    if not command.strip():
        return set()
    from ..agent.safety.bash_rules import shown

    said = {" ".join(command.split())}
    with contextlib.suppress(ValueError):  # an open quote: the reason quotes none of it whole
        said.add(" ".join(shown(shlex.split(command)).split()))
    return said
