"""How big each replayed request is: the fit of a transcript's recorded usage, and what of the
transcript the strategies are given.

Transcripts omit the tool definitions (most omit the system prompt too), and our chars/4 estimate
is not the provider's tokenizer, so the recorded prompt sizes are fitted per transcript as
``recorded ≈ ratio × estimate + overhead`` over the requests before the agent's own first
compaction (:func:`calibrate`, the line itself in usage_fit.py). Every simulated request is sized
with that fit, for every strategy alike (simulate.py), and the fit's error is reported. A system
prompt the transcript does record at its start (and context the agent puts back after compacting, as
Codex does its AGENTS.md and environment) is the agent's fixed prompt and goes in the overhead
(:func:`fixed_prompt`); the recording agent's own summaries are left out (:func:`replay_messages`). Our
own sessions' requests are fitted as their layers sent them (:func:`kept_out`, from the session's event log).
"""

from __future__ import annotations

import statistics
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from pydantic_ai.messages import (
    ModelMessage,
    ModelRequest,
    ModelResponse,
    SystemPromptPart,
    UserPromptPart,
)

from ..context.compaction.cuts import join
from ..context.plumbing import tokens
from ._compact_agent import ViewEvent, utc
from .importers import Transcript
from .usage_fit import MAX_FIT_ERROR, best_fit, errors, leading_points

OVERHEAD_CAP = 40_000
"""Largest system prompt + tool schemas we believe (Claude Code's is ~26K tokens). A transcript whose
recorded prompts exceed its messages by more (a compaction sub-call whose prompt held the parent
conversation) is replayed with this overhead and a warning."""


# -- token model -----------------------------------------------------------------------------------
@dataclass(frozen=True)
class TokenModel:
    """Provider tokens of a request = ratio × our estimate of its messages + overhead."""

    ratio: float = 1.0
    overhead: int = 0
    samples: int = 0
    error_mean: float | None = None  # mean |fit − recorded| / recorded over the fitted requests
    error_max: float | None = None
    notes: tuple[str, ...] = ()
    assumed: bool = False  # the overhead holds OVERHEAD_CAP in place of a larger recorded excess

    def of(self, messages: Sequence[ModelMessage]) -> int:
        return round(self.ratio * tokens.estimate(messages))

    def request(self, messages: Sequence[ModelMessage]) -> int:
        return self.overhead + self.of(messages)

    def text(self, text: str) -> int:
        return round(self.ratio * tokens.text_tokens(text))


def recorded_points(transcript: Transcript, messages: Sequence[ModelMessage]) -> list[tuple[int, int]]:
    """(estimate of what was sent, recorded input tokens) per response before the first recorded
    compaction: the history, less what our own session's layers kept out of that request (`kept_out`)."""
    first = min(rebuilt := _rebuilt(transcript), default=len(messages))
    less = kept_out(transcript.view_events or [], messages, rebuilt)
    out: list[tuple[int, int]] = []
    est = 0
    for i, m in enumerate(messages):
        if i >= first:
            break
        if isinstance(m, ModelResponse) and m.usage.input_tokens and not m.usage.unmeasured_requests \
                and (saved := less.get(i, 0)) is not None:
            out.append((est - saved, m.usage.input_tokens))
        est += tokens.message_tokens(m)
    return out


def _rebuilt(transcript: Transcript) -> list[int]:
    """Where the compactions the transcript records are (the index of each one's message)."""
    return [c["message_index"] for c in transcript.recorded_compactions if isinstance(c.get("message_index"), int)]


def kept_out(events: Sequence[ViewEvent], messages: Sequence[ModelMessage], rebuilt: Sequence[int] = ()
             ) -> dict[int, int | None]:
    """What the view layers' `events` kept out of each request of `messages`, by its response's index,
    where they kept anything out: a decision counts for the first response after it and every later one
    until a compaction; a view fitted to the window alone makes its request's size unknown (None: not
    fitted), as does a compaction after the response that `rebuilt` (the recorded compactions' places)
    does not place after it (not one a rewind undid, `forget`, which only ends what was kept out): a history replayed from a compacted one (its archive missing) holds the
    rounds the compaction kept, whose requests had sent the longer history it replaced. Recorded
    usage is of what was sent: at a 12K window, a session whose five file reads were moved to files
    (previews sent) was fitted against the full reads and said 'best fit off by 157%: a stand-in model's
    numbers?'."""
    out: dict[int, int | None] = {}
    total, at = 0, 0
    for i, m in enumerate(messages):
        if not isinstance(m, ModelResponse):
            continue
        alone, when = False, utc(m.timestamp)
        while at < len(events) and events[at][0] <= when:
            _, freed, kind = events[at]
            total = 0 if kind in ("reset", "forget") else total + freed if kind == "kept" else total
            alone, at = alone or kind == "alone", at + 1
        resets = sum(kind == "reset" for _, _, kind in events[at:])
        if alone or resets > sum(c > i for c in rebuilt):
            out[i] = None
        elif total:
            out[i] = total
    return out


def calibrate(transcript: Transcript) -> TokenModel:
    """Fit ratio and overhead (usage_fit.py); a fit worse than 12% is not believed (a stand-in
    model's made-up usage) and sizes fall back to our estimate. When the recording agent trimmed
    what it sent before any compaction, the requests before its first trim are fitted."""
    pts = recorded_points(transcript, transcript.messages)
    fixed = fixed_prompt(transcript.messages, transcript.opening_context)[1]
    less = kept_out(transcript.view_events or [], transcript.messages, _rebuilt(transcript))
    if not pts:
        what = "no recorded usage" if not less else "no recorded usage of a request the replay holds as it was sent"
        return TokenModel(overhead=fixed, notes=(f"{what}: sizes are our estimate, tool definitions not counted",))
    notes = ["fitted on what its own layers sent (its event log)"] if any(less.values()) else []
    ratio, overhead = best_fit(pts)
    if statistics.fmean(errors(pts, ratio, overhead)) > MAX_FIT_ERROR and (n := leading_points(pts)):
        notes.append(f"fitted on the first {n}, before the recording agent trimmed what it sent")
        pts = pts[:n]
        ratio, overhead = best_fit(pts)
    errs = errors(pts, ratio, overhead)
    if statistics.fmean(errs) > MAX_FIT_ERROR:
        return TokenModel(overhead=fixed, samples=len(pts), notes=(
            f"recorded usage does not follow the messages (best fit off by {100 * statistics.fmean(errs):.0f}%"
            f" on average{_unfitted(transcript)}); sizes are our estimate, tool definitions not counted",))
    assumed = overhead > OVERHEAD_CAP
    if assumed:
        notes.append(f"recorded prompts exceed the messages by {overhead:,.0f} tokens (content this file "
                     f"does not hold); replayed with a {OVERHEAD_CAP:,} overhead")
        overhead = OVERHEAD_CAP
    overhead += ratio * fixed
    return TokenModel(round(ratio, 4), round(overhead), len(pts), statistics.fmean(errs), max(errs),
                      tuple(notes), assumed)


def _unfitted(transcript: Transcript) -> str:
    """Why recorded usage may not follow the messages: a stand-in model's, made up, or in our own
    session, the layers' previews sent in place of results the history holds, when its event log,
    which says what they kept out, is not there (a session file copied without its side folder)."""
    if transcript.format != "compact-agent" or transcript.view_events is not None:
        return ": a stand-in model's numbers?"
    return (f"; what this agent's layers kept out of its requests is not known: the event log that says it "
            f"({transcript.source.stem}/events.jsonl beside the file) is not there")


def fixed_prompt(messages: Sequence[ModelMessage], opening: frozenset[str] = frozenset()
                 ) -> tuple[list[ModelMessage], int]:
    """`messages` without the system prompt parts of their first request, nor its user texts in
    `opening` (`Transcript.opening_context`: context the agent puts back after every compaction), and
    our estimate of the tokens those parts took (their message's own overhead with them when nothing
    else is left in it).

    That opening prompt is the recording agent's fixed prompt: it goes with every request, so the
    replay counts it in the overhead, which every strategy sends and the prompt cache keeps, rather
    than as a message a compaction could drop (each strategy's agent sends its own fixed prompt)."""
    first = next((i for i, m in enumerate(messages) if isinstance(m, ModelRequest)), None)
    if first is None:
        return list(messages), 0
    head = messages[first]
    assert isinstance(head, ModelRequest)
    rest = [p for p in head.parts if not isinstance(p, SystemPromptPart)
            and not (isinstance(p, UserPromptPart) and isinstance(p.content, str) and p.content.strip() in opening)]
    if len(rest) == len(head.parts):
        return list(messages), 0
    kept: list[ModelMessage] = [ModelRequest(parts=rest, timestamp=head.timestamp, metadata=head.metadata)] \
        if rest else []
    out = [*messages[:first], *kept, *messages[first + 1:]]
    return out, tokens.estimate([head]) - tokens.estimate(kept)


# -- the transcript as replay input -------------------------------------------------------------------
def replay_messages(transcript: Transcript) -> list[ModelMessage]:
    """The transcript without the recording agent's own summaries (its compaction, not ours to
    replay) and without its opening system prompt (`fixed_prompt`: in the overhead)."""
    drop: dict[int, int] = {}
    for c in transcript.recorded_compactions:
        idx, chars = c.get("message_index"), c.get("summary_chars")
        if isinstance(idx, int) and isinstance(chars, int) and chars > 0:
            drop[idx] = chars
    if not drop:
        return fixed_prompt(transcript.messages, transcript.opening_context)[0]
    out: list[ModelMessage] = []
    for i, m in enumerate(transcript.messages):
        if i in drop and isinstance(m, ModelRequest):
            parts = [p for p in m.parts if not (isinstance(p, UserPromptPart) and isinstance(p.content, str)
                                                 and len(p.content) == drop[i])]
            if not parts:
                continue
            m = ModelRequest(parts=parts, timestamp=m.timestamp, metadata=m.metadata)
        out.append(m)
    return fixed_prompt(join(out), transcript.opening_context)[0]


def output_tokens(response: ModelResponse, tm: TokenModel) -> int:
    """Recorded output tokens, or the fitted size of the response when none were recorded."""
    if response.usage.output_tokens and not response.usage.unmeasured_requests:
        return response.usage.output_tokens
    return tm.of([response])


def describe_fit(tm: TokenModel) -> dict[str, Any]:
    return {"ratio": tm.ratio, "overhead": tm.overhead, "samples": tm.samples,
            "error_mean": tm.error_mean, "error_max": tm.error_max, "notes": list(tm.notes)}
