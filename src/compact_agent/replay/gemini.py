"""Gemini CLI's context handling (`google-gemini/gemini-cli@5411f11`, packages/core/src/), replayed.

Before every request, in the order `GeminiClient.sendMessageStream` runs them (core/client.ts):

1. compression (context/chatCompressionService.ts), when the last request's prompt tokens
   (`getLastPromptTokenCount`) reach DEFAULT_COMPRESSION_TOKEN_THRESHOLD = 0.5 of the window:
   - the whole history first goes through the reverse function-response budget
     (COMPRESSION_FUNCTION_RESPONSE_TOKEN_BUDGET = 50,000 tokens, newest first): outputs past it are
     cut to a head 20% / tail 80% preview of DEFAULT_TRUNCATE_TOOL_OUTPUT_THRESHOLD = 40,000
     characters (config/config.ts; utils/fileUtils.ts `formatTruncatedToolOutput`);
   - the split (`findCompressSplitPoint`, COMPRESSION_PRESERVE_THRESHOLD = 0.3 kept) is the first user
     message that is not a function response after 70% of the characters, else everything when the
     history ends with a model answer that calls no tool, else the last such user message before;
     with none (a long tool loop after one prompt) nothing is compressed;
   - the summary is a separate request (the compressor's own system prompt: no cache hit) of the
     original part before the split, then a verification probe sharing that request's prefix;
   - new history: snapshot (user), "Got it. Thanks for the additional context!" (model), the kept
     part as truncated; a result with more tokens than before is rejected (INFLATED), and after
     that failure later automatic runs only apply the truncation, never summarize again
     (`hasFailedCompressionAttempt`; an empty summary does not set it);
2. tool output masking (context/toolOutputMaskingService.ts): walking back and skipping the latest
   message, the newest DEFAULT_TOOL_PROTECTION_THRESHOLD = 50,000 tokens of tool output are kept;
   older outputs become a `<tool_output_masked>` snippet with a 250 + 250 character preview, only if
   at least DEFAULT_MIN_PRUNABLE_TOKENS_THRESHOLD = 30,000 tokens can go. Persisted, like the
   compression (`setHistory`). Shell output's line-based preview is simplified to the same preview.
"""

from __future__ import annotations

from collections.abc import Sequence

from pydantic_ai.messages import (
    ModelMessage,
    ModelRequest,
    ModelResponse,
    TextPart,
    ToolCallPart,
    ToolReturnPart,
)

from ..context.compaction.cuts import join
from .rival import Base, fit, summarize, user_request, with_texts
from .simulate import SideCall, Sim, Step

GEMINI_PROMPT = ("Generate a <state_snapshot> of the history above: overall goal, active constraints, key "
                 "knowledge, artifact trail, file system state, recent actions and task state. First "
                 "reason in a private scratchpad, then write the snapshot.")
GEMINI_PROBE = ("Critically evaluate the <state_snapshot> you just wrote. If it omits technical details, file "
                "paths, tool results or user constraints, write a FINAL improved snapshot; otherwise repeat it.")
GEMINI_ACK = "Got it. Thanks for the additional context!"  # chatCompressionService.ts
COMPRESSION_THRESHOLD = 0.5  # chatCompressionService.ts DEFAULT_COMPRESSION_TOKEN_THRESHOLD
PRESERVE_THRESHOLD = 0.3  # chatCompressionService.ts COMPRESSION_PRESERVE_THRESHOLD
FUNCTION_RESPONSE_BUDGET = 50_000  # chatCompressionService.ts COMPRESSION_FUNCTION_RESPONSE_TOKEN_BUDGET
TRUNCATE_THRESHOLD_CHARS = 40_000  # config.ts DEFAULT_TRUNCATE_TOOL_OUTPUT_THRESHOLD
MASK_PROTECT = 50_000  # toolOutputMaskingService.ts DEFAULT_TOOL_PROTECTION_THRESHOLD
MASK_MIN_PRUNABLE = 30_000  # toolOutputMaskingService.ts DEFAULT_MIN_PRUNABLE_TOKENS_THRESHOLD
MASK_PREVIEW = 250  # toolOutputMaskingService.ts: head + tail characters of a masked output
MASK_TAG = "tool_output_masked"


def truncated_output(content: str, max_chars: int = TRUNCATE_THRESHOLD_CHARS) -> str:
    """`formatTruncatedToolOutput`: unchanged up to `max_chars`, else a 20% head / 80% tail preview."""
    if len(content) <= max_chars:
        return content
    head, tail = int(max_chars * 0.2), max_chars - int(max_chars * 0.2)
    return (f"Output too large. Showing first {head:,} and last {tail:,} characters. For full output see: "
            f"tool-outputs/output.txt\n{content[:head]}\n\n... [{len(content) - head - tail:,} characters "
            f"omitted] ...\n\n{content[-tail:]}")


def masked_output(content: str) -> str:
    preview = (f"{content[:MASK_PREVIEW]}\n... [TRUNCATED] ...\n{content[-MASK_PREVIEW:]}"
               if len(content) > 2 * MASK_PREVIEW else content)
    return f"<{MASK_TAG}>\n{preview}\nOutput too large. Full output available at: tool-outputs/output.txt\n</{MASK_TAG}>"


def _replace(history: list[ModelMessage], where: dict[int, dict[int, str]]) -> list[ModelMessage]:
    out = list(history)
    for i, texts in where.items():
        out[i] = with_texts(out[i], texts)
    return out


def truncate_to_budget(history: list[ModelMessage], sim: Sim) -> list[ModelMessage]:
    """The reverse function-response budget (`truncateHistoryToBudget`)."""
    used = 0
    where: dict[int, dict[int, str]] = {}
    for i in range(len(history) - 1, -1, -1):
        m = history[i]
        for j in range(len(m.parts) - 1, -1, -1):
            p = m.parts[j]
            if not isinstance(p, ToolReturnPart):
                continue
            content = str(p.content)
            n = sim.tm.text(content)
            if used + n > FUNCTION_RESPONSE_BUDGET:
                cut = truncated_output(content)
                used += sim.tm.text(cut)
                if cut != content:
                    where.setdefault(i, {})[j] = cut
            else:
                used += n
    return _replace(history, where) if where else history


def split_point(history: Sequence[ModelMessage], sim: Sim) -> int:
    """`findCompressSplitPoint` with fraction 1 − 0.3."""
    sizes = [sim.tm.of([m]) for m in history]
    target = (1 - PRESERVE_THRESHOLD) * sum(sizes)
    last = cumulative = 0
    for i, m in enumerate(history):
        if isinstance(m, ModelRequest) and not any(isinstance(p, ToolReturnPart) for p in m.parts):
            if cumulative >= target:
                return i
            last = i
        cumulative += sizes[i]
    end = history[-1] if history else None
    if isinstance(end, ModelResponse) and not any(isinstance(p, ToolCallPart) for p in end.parts):
        return len(history)  # the history ends with a finished answer: everything can go
    return last


class Gemini(Base):
    """Compression at half the window, then tool-output masking, before every request (module docstring)."""

    name = "gemini"

    def __init__(self, sim: Sim) -> None:
        super().__init__(sim)
        self.failed = False  # hasFailedCompressionAttempt

    split_point = staticmethod(split_point)

    def mask(self, history: list[ModelMessage], sim: Sim) -> int:
        """Tool output masking, persisted; returns the tokens it removed."""
        protected = prunable = 0
        boundary = False
        victims: list[tuple[int, int, str, int]] = []
        for i in range(len(history) - 2, -1, -1):  # the latest message is protected
            m = history[i]
            for j in range(len(m.parts) - 1, -1, -1):
                p = m.parts[j]
                if not isinstance(p, ToolReturnPart) or f"<{MASK_TAG}>" in str(p.content):
                    continue
                n = sim.tm.text(str(p.content))
                if not boundary:
                    protected += n
                    if protected <= MASK_PROTECT:
                        continue
                    boundary = True
                prunable += n
                victims.append((i, j, str(p.content), n))
        if prunable < MASK_MIN_PRUNABLE:
            return 0
        where: dict[int, dict[int, str]] = {}
        saved = 0
        for i, j, content, n in victims:
            snippet = masked_output(content)
            if n - sim.tm.text(snippet) > 0:
                where.setdefault(i, {})[j] = snippet
                saved += n - sim.tm.text(snippet)
        history[:] = _replace(history, where)
        return saved

    async def step(self, history: list[ModelMessage], sim: Sim) -> Step:
        step = await self.compress(history, sim)
        masked = self.mask(history, sim)
        if masked:
            step.freed["output-mask"] = round(masked / sim.tm.ratio)
            step.view = list(history)
        return step

    async def compress(self, history: list[ModelMessage], sim: Sim) -> Step:
        if self.last_input < COMPRESSION_THRESHOLD * sim.window or len(history) < 2:
            return Step(list(history))
        # Compression runs before the pending message joins the history, as in the CLI.
        past, pending = history[:-1], history[-1:]
        before = sim.tm.request(history)
        truncated = truncate_to_budget(past, sim)
        if self.failed:  # only the truncation, no summary, after an inflated result
            if sim.tm.request([*truncated, *pending]) < before:
                history[:] = join(truncated, pending)
                return Step(list(history), freed={"truncate": round((before - sim.tm.request(history)) / sim.tm.ratio)})
            return Step(list(history))
        split = self.split_point(truncated, sim)
        if split == 0:
            return Step(list(history))
        original = past[:split]
        head = original if sim.tm.request(original) < sim.window else truncated[:split]
        head = fit(list(head), sim.window - sim.max_output, sim)
        overhead = sim.tm.text(GEMINI_PROMPT)
        text = await summarize(sim, head, GEMINI_PROMPT)
        if text is None:
            return Step(list(history), failed=True)  # an empty summary: tried again next time
        first = SideCall(join(head, [user_request(GEMINI_PROMPT)]), text, "gemini-compressor", overhead)
        probe_msgs = [*head, ModelResponse(parts=[TextPart(text)]), user_request(GEMINI_PROBE)]
        probe = SideCall(probe_msgs, text, "gemini-compressor", overhead, kind="probe")
        new = join([user_request(text), ModelResponse(parts=[TextPart(GEMINI_ACK)])], truncated[split:], pending)
        if sim.tm.request(new) > before:
            self.failed = True
            return Step(list(history), failed=True, side_calls=[first, probe])
        history[:] = new
        self.forget_usage()
        return Step(list(new), compacted=True, side_calls=[first, probe], compaction_freed=before - sim.tm.request(new))
