"""The toolbar under the REPL's prompt: context used / window, cost so far (the whole session's,
`session $…`, once it has earlier runs), the model, and a mark when nothing is asked (--yes);
`starting…` while the session is being built. Its parts are worked out once per prompt and fitted
to the terminal's width each time it is drawn (`fit`): after a resize it was cut mid-number until the
next prompt."""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from ..agent.run.runner import AgentSession

BYPASS = "⏵⏵ bypass permissions (--yes)"
BYPASS_SHORT = "⏵⏵ --yes"
SEP = " · "


def starting_line(bypass: bool, model: str) -> str:
    return " " + " · ".join([BYPASS] * bypass + ["starting…", model])


def status_line(s: AgentSession, width: int | None = None) -> str:
    """The toolbar: context used / window, cost so far, the model, and a mark when nothing is asked
    (--yes). Parts that do not fit the width are left out, least useful first (`fit`); without a
    width, all of them (the REPL fits them as the toolbar is drawn: `drawn`)."""
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
    return fit(" " + SEP.join(parts), width)


def fit(line: str, width: int | None) -> str:
    """`line` (a toolbar's parts joined by ` · `) in `width` columns (None: as it is): the --yes mark
    shortened first (`⏵⏵ --yes`), then the cost left out, then the model, then the mark; the context
    figure stays longest, then says its share alone (`context 4%`), then is cut with `…`."""
    parts = line.strip().split(SEP)
    if width is None or not parts:
        return line
    room = width - 2

    def long() -> bool:
        return len(SEP.join(parts)) > room

    if long() and BYPASS in parts:
        parts[parts.index(BYPASS)] = BYPASS_SHORT
    for drop in ("cost", "model", "mark"):
        if not long() or len(parts) < 2:
            break
        marked = parts[0] in (BYPASS, BYPASS_SHORT)
        rest = parts[1:] if marked else parts
        if drop == "mark":
            if marked:
                parts.pop(0)
        elif len(rest) >= 2:  # context (or `starting…`), [cost], model
            parts.remove(rest[-2] if drop == "cost" and len(rest) >= 3 else rest[-1])
    text = SEP.join(parts)
    if len(text) > room and (m := re.fullmatch(r"context \S+ \((\d+%)\)", text)) is not None:
        text = f"context {m[1]}" if len(f"context {m[1]}") <= room else m[1]  # the share of the window
    if len(text) > room:
        text = text[: max(0, room - 1)] + "…"
    return " " + text


def drawn(text: Callable[[], str]) -> Callable[[], str]:
    """The toolbar as prompt_toolkit asks for it, at each drawing: `text` fitted to the terminal's
    width then (a resize redraws it)."""
    from prompt_toolkit.application.current import get_app

    return lambda: fit(text(), get_app().output.get_size().columns)
