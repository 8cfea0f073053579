"""Anthropic's server-side tool-result clearing (`clear_tool_uses_20250919`), replayed.

The rule, from Anthropic's context-editing page (platform.claude.com/docs/en/build-with-claude/
context-editing, beta header context-management-2025-06-27) and its API reference:

- `trigger` (default `{type: input_tokens, value: 100000}`): clearing activates once the prompt is
  past this many input tokens;
- `keep` (default `{type: tool_uses, value: 3}`): the newest three tool uses keep their results;
  every older result is cleared, oldest first, and replaced by a placeholder that tells the model a
  result was removed (`clear_tool_inputs` defaults to false: the calls and their arguments stay, so
  each call keeps its - now short - result and the conversation stays valid);
- `clear_at_least` (no default): a clearing that would free fewer tokens is not applied. The page
  recommends setting it because a clearing invalidates the cached prefix from the first cleared
  result on ("clear enough tokens to make the cache invalidation worthwhile"); we set the page's own
  example value, 5,000 tokens;
- clearing is a view edit made by the server: the client's history is unchanged.

The exact placeholder wording is not published (the page says only that the result is replaced by
placeholder text); ours is `CLEARED`. Nor is how the stateless server keeps a clearing stable from
one request to the next; the page's caching note ("subsequent requests can reuse the newly cached
prefix") implies it does, so a decision once made is frozen here and the trigger reads the size of
the view as already cleared. Clearing therefore comes in batches: all but the newest three results
at once, then nothing until the cleared view has grown past the trigger again.

What clearing cannot save. When the view is still too long after clearing (long conversations
whose text, calls and kept results alone outgrow the window), the API would refuse the request.
Anthropic's documented answer is its server-side compaction: the context-editing page opens with
"for most use cases, server-side compaction is the primary strategy for managing context in
long-running conversations", and the context-windows page names it the primary strategy for agentic
workflows. So this rival pairs clearing with `compact_20260112` (compaction-threshold page: it starts
at 150,000 input tokens by default): once the cleared view passes that threshold the API summarizes
the conversation inside the same request (a request sharing the conversation's prefix, so cached)
and continues from the summary alone. Both edits run in the order listed, clearing first.

Small windows. The defaults are sized for Claude's 200K window (clearing at half of it, compaction
at three quarters); below 200K both scale with the window (trigger = min(100K, W/2), compaction =
min(150K, 3W/4), below Anthropic's 50K compaction floor for windows under ~67K, which no Claude model
has), and `clear_at_least` = min(5,000, trigger/20). Where the system prompt and tools alone pass
a scaled threshold (Claude Code's ~26K at a 32K window) clearing and compaction act on every request:
the configuration, not the replay, is then at fault, and the figures show it.
"""

from __future__ import annotations

import dataclasses

from pydantic_ai.messages import ModelMessage, ModelRequest, ToolReturnPart, UserPromptPart

from ..context.plumbing import tokens
from .rival import Base, as_text, shared_summary, user_request
from .simulate import Sim, Step

CLEAR_TRIGGER = 100_000  # context-editing page: trigger default {type: input_tokens, value: 100000}
CLEAR_KEEP = 3  # context-editing page: keep default {type: tool_uses, value: 3}
CLEAR_AT_LEAST = 5_000  # context-editing page: the clear_at_least example value (no default)
COMPACT_TRIGGER = 150_000  # compaction-threshold page: compact_20260112 starts at 150,000 input tokens
CLEARED = "[Tool result cleared to save context]"  # our wording: Anthropic does not publish its placeholder
ANTHROPIC_PROMPT = ("Write a summary of this conversation so far that lets the work continue from it alone: "
                    "the task and the user's requests, what has been done and found, the current state, "
                    "files and commands that matter, and the next steps.")
ANTHROPIC_PREFIX = "[Summary of the conversation so far]\n"


def result_ids(history: list[ModelMessage]) -> list[str]:
    return [p.tool_call_id for m in history if isinstance(m, ModelRequest)
            for p in m.parts if isinstance(p, ToolReturnPart)]


class AnthropicClear(Base):
    """Clear all but the newest three tool results in frozen batches; compact past the threshold."""

    name = "anthropic-clear"
    keep = CLEAR_KEEP

    def __init__(self, sim: Sim) -> None:
        super().__init__(sim)
        self.trigger = min(CLEAR_TRIGGER, sim.window // 2)
        self.compact_at = min(COMPACT_TRIGGER, 3 * sim.window // 4)
        self.at_least = min(CLEAR_AT_LEAST, self.trigger // 20)
        self.cleared: set[str] = set()  # tool call ids whose result is cleared: frozen
        self._views: dict[int, tuple[ModelMessage, ModelMessage, int]] = {}  # id -> (message, view, n cleared)

    def _view_of(self, m: ModelMessage) -> ModelMessage:
        if not isinstance(m, ModelRequest):
            return m
        n = sum(1 for p in m.parts if isinstance(p, ToolReturnPart) and p.tool_call_id in self.cleared)
        if not n:
            return m
        hit = self._views.get(id(m))
        if hit is None or hit[0] is not m or hit[2] != n:  # same bytes as last time: the cache prefix holds
            parts = [as_text(p, CLEARED)
                     if isinstance(p, ToolReturnPart) and p.tool_call_id in self.cleared else p for p in m.parts]
            hit = (m, dataclasses.replace(m, parts=parts), n)
            self._views[id(m)] = hit
        return hit[1]

    def view(self, history: list[ModelMessage]) -> list[ModelMessage]:
        return [self._view_of(m) for m in history]

    def clearable(self, history: list[ModelMessage]) -> tuple[set[str], int]:
        """Results a clearing would replace now and the tokens it would free."""
        ids = result_ids(history)
        victims = {i for i in ids[: max(0, len(ids) - self.keep)] if i not in self.cleared}
        if not victims:
            return victims, 0
        placeholder = tokens.text_tokens(CLEARED)
        freed = sum(max(0, tokens.part_tokens(p) - placeholder - tokens.text_tokens(p.tool_call_id) - 3)
                    for m in history if isinstance(m, ModelRequest)
                    for p in m.parts if isinstance(p, ToolReturnPart) and p.tool_call_id in victims)
        return victims, round(self.sim.tm.ratio * freed)

    async def step(self, history: list[ModelMessage], sim: Sim) -> Step:
        view = self.view(history)
        freed: dict[str, int] = {}
        if sim.tm.request(view) > self.trigger:
            victims, n = self.clearable(history)
            if victims and n >= self.at_least:
                self.cleared |= victims
                view = self.view(history)
        if sim.tm.request(view) > self.compact_at:
            return await self.compact(history, view, sim)
        removed = sim.tm.of(history) - sim.tm.of(view)
        if removed:
            freed["clear"] = round(removed / sim.tm.ratio)
        return Step(view, freed=freed)

    async def compact(self, history: list[ModelMessage], view: list[ModelMessage], sim: Sim) -> Step:
        """compact_20260112: summarize what would be sent (same prefix) and continue from the summary."""
        before = sim.tm.request(view)
        text, call = await shared_summary(sim, view, ANTHROPIC_PROMPT)
        if text is None or call is None:
            return Step(view, failed=True)
        summary = UserPromptPart(ANTHROPIC_PREFIX + text, timestamp=sim.now) if sim.now else None
        new: list[ModelMessage] = [ModelRequest(parts=[summary]) if summary else user_request(ANTHROPIC_PREFIX + text)]
        history[:] = new
        self.cleared.clear()
        self._views.clear()
        self.forget_usage()
        return Step(list(new), compacted=True, side_calls=[call], compaction_freed=before - sim.tm.request(new))
