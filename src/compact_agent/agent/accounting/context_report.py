"""What fills the context window, and what the session has cost: the data behind /context and /cost.

The picture is of the view the next request would send (layers applied to copies of their
decisions: looking decides nothing, `context/shaping.py`), split by what each part
is: system prompt, project instructions file, tool definitions (built-in vs MCP), the plan, the
compaction summary, hook/MCP context, restored files, messages, and tool results by the state
the layers left them in — live, spilled to a file (budget), cleared (microcompact) or folded into
a collapse digest. States are read from the markers the layers and the compactor leave
(metadata `compact_agent.<layer>`, `[compact-agent: …]` heads, synthetic `restore_`/`mention_` ids).

Per-category sizes are local estimates; the total is anchored to the provider's own count when
the view ends with a response that reported usage (its input + output tokens), else it is the
calibrated estimate /compact begins from (run/in_use.py), and the categories are scaled to add up
to it exactly, so /context agrees with the bill and with /compact.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Any

from pydantic_ai.messages import (
    ModelMessage,
    SystemPromptPart,
    ToolCallPart,
    ToolReturnPart,
    UserPromptPart,
)

from ...config import Limits
from ...context.compaction.summary import SUMMARY_MARK, UPDATE_HEADS
from ...context.decisions.fit import CARRIED
from ...context.decisions.schedule import MIN_RESERVE
from ...context.layers.digest import DIGEST_HEADER
from ...context.plumbing import tokens
from ...context.shaping import preview
from ...models import model_info, provider_for
from ..integrations.mcp_servers import MCP_HEAD
from ..run.extensions import HOOK_HEAD
from ..run.first_request import settings
from ..run.in_use import estimated_size, reasoning_unsure, reported_size
from ..run.request_settings import answer_asked
from ..run.window_check import tool_definitions
from ..tools.todos import PLAN_HEAD
from .costs import CostReport, report
from .kept_out import kept_out

if TYPE_CHECKING:
    from ..run.runner import AgentSession

CATEGORIES: list[tuple[str, str]] = [
    ("system", "system prompt"),
    ("instructions_file", "project instructions file"),
    ("tools", "tool definitions"),
    ("mcp_tools", "MCP tool definitions"),
    ("plan", "plan (todo list)"),
    ("summary", "compaction summary"),
    ("context", "hook & MCP context"),
    ("files", "restored / mentioned files"),
    ("messages", "messages"),
    ("results_live", "tool results: live"),
    ("results_spilled", "tool results: spilled (preview)"),
    ("results_cleared", "tool results: cleared"),
    ("collapsed", "collapsed rounds (digest)"),
]
SYNTHETIC_IDS = ("restore_", "mention_")


@dataclass
class ContextPicture:
    rows: dict[str, int]  # category -> tokens; the values add up to `used`
    used: int
    window: int
    threshold: int
    anchored: bool  # `used` is the provider's count for the last request (+ what came after)
    results: dict[str, int] = field(default_factory=dict)  # tool results per state (counts)
    # The reserve's two parts, room for an answer and the buffer, and what sized the first
    # (`reserve_source`): the threshold moves when the room does, and /context says why.
    answer_room: int = 0
    buffer: int = 0
    room_source: str = ""
    # What each layer keeps out of this view, each tool result under the layer it shows (/status).
    kept_out: dict[str, int] = field(default_factory=dict)
    # Of an anchored `used`, the last answer's reasoning counted before the provider's reports told
    # whether it counts reasoning sent back (in_use.reasoning_unsure).
    reasoning_unsure: int = 0
    # The `max_tokens` the requests ask for (0: none sent), and whether the provider holds it against
    # the window (then the answer's room above is at least that); Anthropic's, the model's most, it
    # does not, and /context said a reserve of 12.0k while 64,000 went out (request_settings.py).
    asked: int = 0
    asked_counted: bool = False

    @property
    def reserved(self) -> int:
        """Output reserve + auto-compact buffer: the part of the window compaction keeps free, less
        what the context already uses of it (past the threshold, where a compaction that would not
        pay waits for the hard limit): used + free + reserved make the window."""
        return max(0, self.window - max(self.threshold, self.used))

    @property
    def free(self) -> int:
        return max(0, self.threshold - self.used)


def _text(part: Any) -> str:
    c = getattr(part, "content", None)
    return c if isinstance(c, str) else ""


def classify_part(part: Any) -> str:
    if isinstance(part, SystemPromptPart):
        return "system"
    if isinstance(part, UserPromptPart):
        text = _text(part)
        for head, cat in ((SUMMARY_MARK, "summary"), *((h, "summary") for h in UPDATE_HEADS), (PLAN_HEAD, "plan"),
                          (HOOK_HEAD, "context"), (MCP_HEAD, "context"), (CARRIED, "messages"),
                          (DIGEST_HEADER, "collapsed")):
            if text.startswith(head):
                return cat
        return "messages"
    if isinstance(part, ToolCallPart | ToolReturnPart) and part.tool_call_id.startswith(SYNTHETIC_IDS):
        return "files"
    if isinstance(part, ToolReturnPart):
        meta = part.metadata.get("compact_agent", {}) if isinstance(part.metadata, dict) else {}
        if isinstance(meta, dict) and "microcompact" in meta:
            return "results_cleared"
        if isinstance(meta, dict) and "budget" in meta:
            return "results_spilled"
        return "results_live"
    return "messages"


def estimate_rows(view: list[ModelMessage], system_text: str, instructions_text: str,
                  tool_defs: list[Any], mcp_tools: set[str]) -> tuple[dict[str, int], dict[str, int]]:
    rows = {key: 0 for key, _ in CATEGORIES}
    results: dict[str, int] = {}
    instr = tokens.text_tokens(instructions_text) if instructions_text and instructions_text in system_text else 0
    rows["instructions_file"] = instr
    rows["system"] = max(0, tokens.text_tokens(system_text) - instr)
    for td in tool_defs:
        rows["mcp_tools" if getattr(td, "name", "") in mcp_tools else "tools"] += tokens.request_overhead("", [td])
    for m in view:
        rows["messages"] += tokens.PER_MESSAGE_OVERHEAD
        for p in m.parts:
            cat = classify_part(p)
            rows[cat] += tokens.part_tokens(p)
            if cat.startswith("results_"):
                results[cat] = results.get(cat, 0) + 1
    return rows, results


def scale_to(rows: dict[str, int], total: int) -> dict[str, int]:
    """Scale so the values add up to `total` exactly (largest remainder), zeros staying zero."""
    est = sum(rows.values())
    if est <= 0:
        return dict(rows)
    raw = {k: v * total / est for k, v in rows.items()}
    out = {k: math.floor(v) for k, v in raw.items()}
    short = total - sum(out.values())
    for k in sorted(raw, key=lambda k: (out[k] - raw[k], k))[:max(0, short)]:
        out[k] += 1
    return out


def picture(session: AgentSession) -> ContextPicture:
    cm = session.cm
    # A look: the layers decide on copies, so showing the context never decides for the next request.
    shaped = preview(cm, list(session.messages))
    view = shaped.messages
    params = cm.last_params
    tool_defs = list(getattr(params, "function_tools", None) or [])
    if not tool_defs:  # no request yet: the tools this session will send
        tool_defs = tool_definitions(session)
    mcp_tools = {t for s in session.ext.mcp.live.values() for t in s.tools} if session.ext.mcp else set()
    rows, results = estimate_rows(view, session.system_prompt(), session.instructions, tool_defs, mcp_tools)
    # The earlier turns' thinking a provider leaves out of its count (measuring.py `left_out`): not in use.
    rows["messages"] = max(0, rows["messages"] - cm.left_out(view))
    fixed = cm.overhead_estimate or tokens.request_overhead(session.system_prompt(), tool_defs)  # as the request sent them
    # As /compact counts it (in_use.py): the provider's count of the last request where it still
    # holds, else the calibrated estimate. Summed from the rows, that estimate counted the thinking
    # the provider leaves out: a session resumed after /compact said 7,908 tokens, /compact 7,283.
    reported = reported_size(cm, view, session.compacted_at, fixed)
    total = reported if reported is not None else estimated_size(cm, view, fixed)
    limits = cm.limits
    asked = answer_asked(session.model, cm.last_settings if cm.last_settings is not None else settings(session))
    return ContextPicture(scale_to(rows, total), total, limits.window, limits.threshold, reported is not None,
                          results, limits.output_reserve, limits.buffer, reserve_source(cm),
                          kept_out(session.messages, view, shaped.savings, shaped.layers),
                          reasoning_unsure(cm.calibration, view) if reported is not None else 0,
                          asked.tokens, asked.counted)


def reserve_source(cm: Any) -> str:
    """What sized the room kept for an answer, in a few words. It follows what the model writes
    (`Schedule.output_limits`, at each answer): the longest answer so far, or room for a summary as
    long as the ones written; at most the configured reserve, the least of the model's max output,
    a quarter of the window and `summary_output_reserve`. So the threshold moves (11.7k, then 10.4k
    after a compaction and an answer), which /context showed with nothing said."""
    reserve, window = cm.limits.output_reserve, cm.limits.window
    configured = Limits.for_window(window, cm.max_output, cm.settings).output_reserve
    if reserve == configured:
        return "cap: a quarter of the window" if reserve == window // 4 else \
            "cap: the model's max output" if reserve == cm.max_output else "cap: summary_output_reserve"
    if reserve == round(1.25 * cm.schedule.max_output_seen):
        return "1.25x longest answer so far"
    return "the minimum" if reserve == MIN_RESERVE else "room for a summary"


# -- /cost ---------------------------------------------------------------------------------------
def sync_costs(session: AgentSession) -> None:
    """Price summary and notes requests not recorded yet, with the models that made them."""
    ledger = session.ext.ledger
    ledger.add_side("summary", session.summary_usage, _info_for(session, session.settings.summary_model))
    if session.memory is not None:
        ledger.add_side("notes", session.memory.usage, _info_for(session, session.settings.memory_model))


def _info_for(session: AgentSession, name: str | None) -> Any:
    if not name:
        return session.info
    return model_info(name, provider=provider_for(name, session.opts.base_url))


def cost_report(session: AgentSession, whole: bool = False) -> CostReport:
    """This run's requests, or (`whole`) every request of the session, earlier runs included.

    A request made without prices (a model the registry does not know, before `--prices` or a
    config's `prices` gave them) is priced at the prices its model has now: given on resuming the
    session, they were the model's, and /cost went on saying 'prices unknown for this model' and
    'cost unknown' of every earlier request. One made at other prices keeps them."""
    sync_costs(session)
    ledger = session.ext.ledger
    entries = ledger.all_entries if whole else ledger.entries
    now = session.info
    if not now.has_prices:
        return report(entries)
    unpriced = [not e.info.has_prices and e.info.name == now.name for e in entries]
    out = report([replace(e, info=now) if late else e for e, late in zip(entries, unpriced, strict=True)])
    out.repriced = sum(unpriced)
    return out
