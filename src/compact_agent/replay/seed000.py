"""The seed design (`../shared/seeds/000_*.txt`): summarize everything at a watermark, re-read recent files.

What the seed does, with where it says so:

- watermark = CONTEXT_WINDOW − COMPACT_OUTPUT_RESERVE (20,000) − AUTO_COMPACT_BUFFER (10,000)
  (`compact_threshold()`). The reserve is room for the summarizer's output, which can never exceed
  the model's output limit, so both are scaled by the rule our own settings use for the same two
  constants (`Limits.for_window`): reserve = min(20K, max output, W/4), buffer = min(10K, W/10). At
  64K with an 8,192-token output limit that is 49,408 (unscaled it would be 34K, less than Claude
  Code's 26K system prompt and tools leave room for);
- measure = the last response's reported input + output tokens (`context_tokens()`), checked in
  `on_submit`, i.e. once per user message, before that message joins the history;
- the summary is written by `summarizer = Agent(model)`: no system prompt and no tools, so it shares
  nothing with the conversation's cached prefix and pays the miss price for its whole input;
- the new history is the summary message plus the most recently read files re-read
  (`restore_file_messages`: newest first, RESTORE_MAX_FILES / RESTORE_MAX_CHARS);
- after MAX_COMPACT_FAILURES failures in a row automatic compaction stops (a rebuilt history that
  would not be smaller than before counts as a failure here, as it does in our compactor).

Two replays of it: `seed000` at its best, checked before every request with the last reported usage
plus our estimate of what came after it (the once-per-submit check sends long tool loops far over
the window), and `seed000-submit`, the seed as written. Both restore with the budgets our own
pipeline uses (`Limits.for_window`: 5 files, 5K tokens each, 50K in all, at most a quarter of the
window) and, like our compactor, cap them at half the room left under the watermark once the summary
is in, so the rebuilt history does not start over the watermark and compact again at once.
"""

from __future__ import annotations

import dataclasses
import shutil
import tempfile
from pathlib import Path

from pydantic_ai.messages import ModelMessage, ModelRequest, ToolReturnPart

from ..agent.run.summary_wording import CODING
from ..config import Limits, Settings
from ..context.compaction import summary, summary_prompt
from ..context.compaction.cuts import join
from ..context.compaction.restore import Restorer, restore_messages
from .ours import TranscriptFiles, default_settings
from .rival import Base, fit, is_user_turn, last_response_index, summarize, user_request
from .simulate import SideCall, Sim, Step

#: The seed's prompt asks for every user message word for word (its section 5), where ours asks for
#: none (the compaction message carries them): the seed's request is ours with that section as the seed has it.
SEED_USER_SECTION = ("6. All User Messages: list EVERY user message that is not a tool result, verbatim — they are "
                     "the key to the user's feedback and changing intent.")
SEED_PROMPT = summary_prompt.compact_prompt(wording=CODING).replace(summary_prompt.USER_SECTION, SEED_USER_SECTION)
COMPACT_OUTPUT_RESERVE = 20_000  # seed 000: COMPACT_OUTPUT_RESERVE
AUTO_COMPACT_BUFFER = 10_000  # seed 000: AUTO_COMPACT_BUFFER
MAX_COMPACT_FAILURES = 3  # seed 000: MAX_COMPACT_FAILURES (the circuit breaker's 3)
SUMMARIZER_KEY = "seed000-summarizer"  # its own Agent(model): another system prompt, no tools


def watermark(window: int, max_output: int) -> int:
    reserve = min(COMPACT_OUTPUT_RESERVE, max_output, window // 4)
    return window - reserve - min(AUTO_COMPACT_BUFFER, window // 10)


class Seed000(Base):
    """The seed at its best: the watermark checked before every request (see the module docstring)."""

    name = "seed000"
    per_submit = False

    def __init__(self, sim: Sim, settings: Settings | None = None) -> None:
        super().__init__(sim)
        self.watermark = watermark(sim.window, sim.max_output)
        self.limits = Limits.for_window(sim.window, sim.max_output, settings or default_settings())
        self.failures = 0
        self.root = Path(tempfile.mkdtemp(prefix="compact-agent-seed000-"))
        self.files = TranscriptFiles(self.root)
        self.restorer = Restorer(recent_files=self.files.recent, reread=self.files.reread,
                                 resolve=self.files.resolve)

    def close(self) -> None:
        shutil.rmtree(self.root, ignore_errors=True)

    def used(self, history: list[ModelMessage]) -> int:
        """Last reported usage plus an estimate of the messages after that response; with no usage
        since the last compaction, the estimate of the whole request."""
        last = last_response_index(history)
        if not self.last_total or last < 0:
            return self.sim.tm.request(history)
        return self.last_total + self.sim.tm.of(history[last + 1:])

    def due(self, history: list[ModelMessage], sim: Sim) -> bool:
        return self.used(history) >= self.watermark

    async def step(self, history: list[ModelMessage], sim: Sim) -> Step:
        self.files.observe(sim.added)
        if self.failures >= MAX_COMPACT_FAILURES or not self.due(history, sim):
            return Step(list(history))
        before = sim.tm.request(history)
        cut = self.cut(history)
        done, pending = history[:cut], history[cut:]
        sent = fit(list(done), sim.window - sim.max_output, sim)
        text = await summarize(sim, sent, SEED_PROMPT)
        try:
            body = summary_prompt.extract_summary(text or "")
        except ValueError:
            self.failures += 1
            return Step(list(history), failed=True)
        self.failures = 0
        call = SideCall(join(sent, [user_request(SEED_PROMPT)]), text or "", SUMMARIZER_KEY,
                        overhead=0)  # no system prompt, no tool schemas: only the messages are sent
        head = summary.summary_message(body, None, [], "seed000")
        new = join([head], self.restored(head, pending, sim), pending)
        if sim.tm.request(new) >= before:  # at its best: a summary that does not shrink is not taken
            self.failures += 1
            return Step(list(history), failed=True, side_calls=[call])
        history[:] = new
        self.forget_usage()
        return Step(list(new), compacted=True, side_calls=[call], compaction_freed=before - sim.tm.request(new))

    def cut(self, history: list[ModelMessage]) -> int:
        """Where the summarized part ends: everything (the at-its-best check runs mid-loop too)."""
        return len(history)

    def restored(self, head: ModelMessage, pending: list[ModelMessage], sim: Sim) -> list[ModelMessage]:
        """Recently read files within the budgets, capped at half the room left under the watermark."""
        base = sim.tm.request([head, *pending])
        room = max(0, int((self.watermark - base) / (sim.tm.ratio or 1.0)) // 2)
        limits = self.limits
        if room < limits.restore_total_tokens:
            limits = dataclasses.replace(limits, restore_total_tokens=room)
        return restore_messages(self.restorer, limits)


class Seed000Submit(Seed000):
    """The seed as written: checked once per user message, before it joins the history, on the last
    reported usage alone; the message is then sent after the rebuilt history."""

    name = "seed000-submit"
    per_submit = True

    def due(self, history: list[ModelMessage], sim: Sim) -> bool:
        if not any(is_user_turn(m, self.harness) for m in sim.added):
            return False
        cut = self.cut(history)
        if any(isinstance(p, ToolReturnPart) for m in history[cut:] if isinstance(m, ModelRequest) for p in m.parts):
            return False  # the message answers tool calls (an interrupted loop): it cannot follow a summary
        return self.last_total >= self.watermark

    def cut(self, history: list[ModelMessage]) -> int:
        return last_response_index(history) + 1
