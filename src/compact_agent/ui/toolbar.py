"""The toolbar under the REPL's prompt: context used / window, cost so far (the whole session's,
`session $…`, once it has earlier runs), the model, and a mark when nothing is asked (--yes);
`starting…` while the session is being built."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from ..agent.run.runner import AgentSession

BYPASS = "⏵⏵ bypass permissions (--yes)"


def starting_line(bypass: bool, model: str) -> str:
    return " " + " · ".join([BYPASS] * bypass + ["starting…", model])


def status_line(s: AgentSession, width: int) -> str:
    """The toolbar: context used / window, cost so far, the model, and a mark when nothing is asked
    (--yes). Parts that do not fit the width are left out, least useful first."""
    from ..agent.accounting.context_report import cost_report, picture
    from ..agent.accounting.costs import cost_words

    try:
        used, window = picture(s).used, s.cm.limits.window
        earlier = bool(s.ext.ledger.earlier)  # a session resumed: what its earlier runs spent counts too
        cost = cost_words(cost_report(s, whole=earlier))
    except Exception:  # noqa: BLE001 - a status line must never break the prompt
        return f" {s.info.name}"
    # After -c or /resume it said this run's `$0.0000` where /cost's whole session said $0.0080: the
    # session's, said so. By /cost's rule (costs.cost_words): after a switch to a model without prices
    # it said `cost unknown` of a session that had spent $0.09, and after one back, $0.0906 alone; now
    # `$0.0906 + 3 requests at unknown prices`. A model without prices that has made no request has
    # cost nothing yet.
    spent = f"{'session ' if earlier else ''}{cost}"
    parts = [f"context {used / 1000:.1f}k/{window / 1000:.1f}k ({100 * used / max(1, window):.0f}%)",
             spent, s.info.name]
    if s.permissions.mode == "yes":
        parts.insert(0, BYPASS)
    while len(parts) > 1 and len(" · ".join(parts)) > width - 2:
        parts.pop(-2 if len(parts) > 2 else -1)
    return " " + " · ".join(parts)
