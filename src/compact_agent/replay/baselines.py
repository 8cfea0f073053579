"""Rival compaction strategies, each implemented from its published source, for the replay.

All share the replay's interface (`step` shapes or rewrites the persisted history, `observe` hears
the size of what was sent) and the replay's summarizer, so summary quality is equal and what
differs is when they compact, what they keep and what their requests cost. Each rival is replayed
at its best: its own triggers and budgets, cited next to every constant, and where a constant would
not fit a small window it is scaled and the docstring says so. Sources: the seed
(`../shared/seeds/000_*.txt`), the research notes in `../shared/research/` (Claude Code, Codex,
OpenCode and Gemini CLI source), "The Complexity Trap", Cline's source (`cline/cline`,
sdk/packages/core/src/extensions/context/) and Anthropic's context-editing and compaction pages.

================  ==================================================================================
none              no compaction; requests over the window are counted (a provider would refuse them)
seed000           watermark window − 20K − 10K checked before every request; summary by a tool-less
                  agent (no shared cache); recently read files re-read (`seed000.py`)
seed000-submit    the same, checked once per user message as the seed does
codex             when the last request used ≥ 90% of the window: summary + the user's messages ≤ 20K
masking           every request: all but the newest 10 observations (tool results, or a text format's
                  output messages) become a one-line placeholder
opencode          when a turn ends, prune old tool outputs (newest 40K protected, only if > 20K can go,
                  never the last two turns); at window − max output − min(20K, max output), summarize
                  with a tail (`opencode.py`)
gemini            at 50% of the window: summarize all but the newest 30% (split at a user prompt),
                  truncation only after a failure; tool-output masking past 50K (`gemini.py`)
cline             Cline's deterministic compaction at 0.9 x 0.9 of the window: typed messages, the
                  latest turn's newest messages within ~45% of the window, older turns' last answers,
                  dropped work named per gap (files read / edited, commands); no model (`cline.py`)
anthropic-clear   Anthropic's clear_tool_uses_20250919: past min(100K, W/2) all but the newest 3 tool
                  results become a placeholder (frozen batches of >= 5K); past min(150K, 3W/4) its
                  server-side compaction summarizes (`anthropic_clear.py`)
================  ==================================================================================
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence

from pydantic_ai.messages import (
    ModelMessage,
    ModelRequest,
    ModelRequestPart,
    ModelResponse,
    ToolCallPart,
    ToolReturnPart,
    UserPromptPart,
)

from .anthropic_clear import AnthropicClear
from .cline import Cline
from .gemini import GEMINI_ACK, GEMINI_PROBE, GEMINI_PROMPT, Gemini
from .opencode import CLEARED, OPENCODE_PROMPT, OpenCode
from .ours import Ours
from .retention import typed_texts
from .rival import Base, as_text, fit, is_user_turn, shared_summary, summarize, user_request
from .seed000 import SEED_PROMPT, Seed000, Seed000Submit
from .simulate import Sim, Step, StrategyFactory

__all__ = ["CLEARED", "AnthropicClear", "Cline", "CODEX_LIMIT", "CODEX_PREFIX", "CODEX_PROMPT", "CODEX_USER_TOKENS", "GEMINI_ACK", "GEMINI_PROBE", "GEMINI_PROMPT", "MASK",
           "MASK_KEEP", "OPENCODE_PROMPT", "SEED_PROMPT", "STRATEGIES", "Codex", "Gemini", "Masking", "NoCompaction",
           "OpenCode", "Seed000", "Seed000Submit", "factories", "fit", "is_user_turn", "shared_summary",
           "summarize", "user_request"]


class NoCompaction(Base):
    name = "none"

    async def step(self, history: list[ModelMessage], sim: Sim) -> Step:
        return Step(list(history))


CODEX_PROMPT = ("You are performing a CONTEXT CHECKPOINT COMPACTION. Write a handoff summary for another "
                "language model that will resume this task: the goal, progress and key decisions, "
                "constraints and user preferences, the remaining steps, and the critical data "
                "(paths, commands, errors) needed to continue. Be concise and structured.")
CODEX_PREFIX = ("A previous model worked on this task and left the summary below. Build on its work "
                "and do not repeat what it already did.\n")
CODEX_LIMIT = 0.9  # codex-rs protocol/src/openai_models.rs: auto_compact_token_limit = 90% of the window
CODEX_USER_TOKENS = 20_000  # codex-rs core/src/compact.rs: COMPACT_USER_MESSAGE_MAX_TOKENS


class Codex(Base):
    """Summarize when the last request used ≥ 90% of the window; keep the user's own messages.

    New history: the user's messages (what a person typed: Codex's own history filter drops the
    context its harness injects, and the replay drops every harness's), newest first within 20K tokens (the one at the boundary cut),
    in their original order, then the summary as a user message. The summary request is the full
    history plus the compact prompt (same prefix). Below an 80K window the 20K budget is capped at a
    quarter of the window.
    """

    name = "codex"

    def __init__(self, sim: Sim) -> None:
        super().__init__(sim)
        self.limit = int(CODEX_LIMIT * sim.window)
        self.user_budget = min(CODEX_USER_TOKENS, sim.window // 4)

    async def step(self, history: list[ModelMessage], sim: Sim) -> Step:
        if self.last_total < self.limit:
            return Step(list(history))
        before = sim.tm.request(history)
        text, call = await shared_summary(sim, history, CODEX_PROMPT)
        if text is None or call is None:
            return Step(list(history), failed=True)
        users = [u for u in typed_texts(history, self.harness) if not u.startswith(CODEX_PREFIX)]
        kept: list[str] = []
        used = 0
        for u in reversed(users):
            n = sim.tm.text(u)
            if used + n > self.user_budget:
                room = (self.user_budget - used) * 4
                if room > 200:
                    kept.append(u[:room])
                break
            kept.append(u)
            used += n
        new: list[ModelMessage] = [user_request(*reversed(kept), CODEX_PREFIX + text)]
        history[:] = new
        self.forget_usage()
        return Step(list(new), compacted=True, side_calls=[call], compaction_freed=before - sim.tm.request(new))


MASK = "Old environment output: ({n} lines omitted)"  # the-complexity-trap: the placeholder's wording
MASK_KEEP = 10  # "The Complexity Trap" (Lindenbauer et al., 2025): the newest 10 observations stay


class Masking(Base):
    """Observation masking ("The Complexity Trap"): every request shows only the newest 10
    observations; older ones become a one-line placeholder. View only, no summary, no trigger.

    An observation is what the environment answered an action with: a tool result, or, where the
    agent's format has no tool calls (SWE-agent's and mini-swe-agent's text format: the command in the
    model's text, its output a user message), a user message the format marks as the harness's that
    answers the model. SWE-agent's own masking (the paper's) counts both kinds alike."""

    name = "masking"
    keep = MASK_KEEP

    def __init__(self, sim: Sim) -> None:
        super().__init__(sim)
        self._masked: dict[tuple[int, int], tuple[ModelMessage, ModelMessage]] = {}
        messages = sim.transcript.messages if sim.transcript is not None else []
        # the text format: no call in the whole transcript, so observations come as user messages
        self._text_format = not any(isinstance(p, ToolCallPart) for m in messages if isinstance(m, ModelResponse)
                                    for p in m.parts)

    def _observations(self, history: list[ModelMessage]) -> list[tuple[int, int]]:
        """(message, part) indexes of the observations in `history`, oldest first."""
        found: list[tuple[int, int]] = []
        answers = False  # whether the request at hand answers a response
        for i, m in enumerate(history):
            if isinstance(m, ModelRequest):
                found += [(i, j) for j, p in enumerate(m.parts) if isinstance(p, ToolReturnPart) or (
                    answers and self._text_format and isinstance(p, UserPromptPart) and isinstance(p.content, str)
                    and p.content.strip() in self.harness)]
            answers = isinstance(m, ModelResponse)
        return found

    async def step(self, history: list[ModelMessage], sim: Sim) -> Step:
        found = self._observations(history)
        old: dict[int, set[int]] = {}
        for i, j in found[: max(0, len(found) - self.keep)]:
            old.setdefault(i, set()).add(j)
        view: list[ModelMessage] = []
        for i, m in enumerate(history):
            masked = old.get(i)
            if not masked or not isinstance(m, ModelRequest):  # only requests carry observations
                view.append(m)
                continue
            hit = self._masked.get((id(m), len(masked)))
            if hit is None or hit[0] is not m:
                parts = [_masked(p) if j in masked else p for j, p in enumerate(m.parts)]
                hit = (m, dataclasses.replace(m, parts=parts))
                self._masked[(id(m), len(masked))] = hit
            view.append(hit[1])
        freed = sim.tm.of(history) - sim.tm.of(view)
        return Step(view, freed={"masking": round(freed / sim.tm.ratio)} if freed else {})


def _masked(part: ModelRequestPart) -> ModelRequestPart:
    """An observation as its placeholder: a tool result stays a result, a user message a message."""
    if isinstance(part, ToolReturnPart):
        return as_text(part, MASK.format(n=str(part.content).count("\n") + 1))
    if isinstance(part, UserPromptPart):
        return dataclasses.replace(part, content=MASK.format(n=str(part.content).count("\n") + 1))
    return part


STRATEGIES: dict[str, StrategyFactory] = {
    "ours": Ours, "none": NoCompaction, "seed000": Seed000, "seed000-submit": Seed000Submit, "codex": Codex, "masking": Masking,
    "opencode": OpenCode, "gemini": Gemini, "cline": Cline, "anthropic-clear": AnthropicClear,
}


def factories(names: Sequence[str] | None = None) -> dict[str, StrategyFactory]:
    """The named strategies in the canonical order; raises ValueError naming an unknown one."""
    if not names:
        return dict(STRATEGIES)
    unknown = [n for n in names if n not in STRATEGIES]
    if unknown:
        from ..setting_names import closest

        close = closest(unknown[0], list(STRATEGIES))  # `-s our`: ours
        guess = f"; did you mean {close}?" if close else ""
        if len(listed := [n.strip() for n in unknown[0].split(",") if n.strip()]) > 1:  # `-s ours,codex`
            guess = f"; name each with an -s of its own: {' '.join(f'-s {n}' for n in listed)}"
        raise ValueError(f"unknown strategy {unknown[0]!r}{guess} (choose from {', '.join(STRATEGIES)})")
    return {n: STRATEGIES[n] for n in STRATEGIES if n in names}


