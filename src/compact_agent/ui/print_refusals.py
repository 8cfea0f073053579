"""What print mode refused (it never asks): each call, why, and the line that says so on stderr.

The JSON result lists each refused call whole, as it was made (`permission_denials`, strings, as
scripts have read them), and beside it, in the same order, the call with what refused it and why
(`permission_denial_details`): a deny rule (which `--yes` does not lift), or an action needing
approval that neither `--yes` nor `--allowed-tools` gave; a script could not tell the two apart.
Stderr says them in one line (tool_lines.refusal_line) once: at the run's end, before a failure's
own line, or before the line of a run ended by a signal (stop_signals.reporting).
"""

from __future__ import annotations

from typing import Any

from . import tool_lines

#: The reason of a refusal for want of an approval the allow rules did not explain.
NOT_ASKED = "needs approval, and print mode does not ask (--yes or --allowed-tools allows it)"


class Refusals:
    """The calls refused in one run, whole for the JSON result, short for the stderr line."""

    def __init__(self) -> None:
        self.denied: list[str] = []  # the calls refused, whole (the JSON's permission_denials)
        self.details: list[dict[str, str]] = []  # each with what refused it and why (permission_denial_details)
        #: (call, why) of those that needed approval, and of those a deny rule refused, till said (`said`)
        self.needing: list[tuple[str, str]] = []
        self.by_rule: list[tuple[str, str]] = []

    def add(self, made: dict[str, Any], kind: tuple[str, str]) -> None:
        """Call `made` (its tool_call event) was refused; `kind`: bash_rules.refusal_kind of the refusal."""
        whole = tool_lines.whole_call(made)
        self.denied.append(whole)
        denied = kind[0] == "deny"
        reason = kind[1] if denied else f"needs approval, and print mode does not ask: {kind[1]}" if kind[1] else NOT_ASKED
        self.details.append({"call": whole, "kind": "deny_rule" if denied else "needs_approval", "reason": reason})
        # a deny rule's refusal (--yes does not lift it), or why the --allowed-tools rules did not cover it
        (self.by_rule if denied else self.needing).append(
            (tool_lines.call_line(made)[2:], tool_lines.short_why(kind[1], made)))

    def said(self) -> str | None:
        """The stderr line of the refusals not said yet (without `compact-agent: `), once; None if none."""
        line = tool_lines.refusal_line(self.by_rule, self.needing) if self.by_rule or self.needing else None
        self.by_rule, self.needing = [], []
        return line

    def fields(self) -> dict[str, Any]:
        """The result object's fields of them."""
        return {"permission_denials": self.denied, "permission_denial_details": self.details}
