"""How much the stand-in summary remembers, against the real summaries recorded in transcripts.

Summary-based rivals are judged through the stand-in summarizer (`standin.py`), so its recall must be
honest: no better and no worse than what a real model writes. Claude Code sessions record their own
summary at each compaction. At each such point this module takes the messages the summary replaced
and the responses that follow, and measures, for the real summary and for the stand-in's summary of
the same messages, the share of what those responses needed from before the compaction (the rule of
`recall.py`) that the summary holds. Items that the messages after the compaction hold again (a file
read anew) are not counted: no summary is needed for them.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from pydantic_ai.messages import ModelMessage, ModelRequest, UserPromptPart

from .importers import Transcript
from .recall import needs_of, norm, part_texts
from .standin import standin_summary


@dataclass(frozen=True)
class SummaryRecall:
    """One recorded compaction: items needed after it that only the replaced messages held."""

    transcript: str
    message_index: int
    needed: int
    real_kept: int
    standin_kept: int
    real_chars: int
    standin_chars: int

    @property
    def real(self) -> float:
        return self.real_kept / self.needed if self.needed else 1.0

    @property
    def standin(self) -> float:
        return self.standin_kept / self.needed if self.needed else 1.0


def recorded_summary(transcript: Transcript, index: int, chars: int) -> str | None:
    """The summary text the recording agent wrote at `index` (the user part of that length)."""
    m = transcript.messages[index] if 0 <= index < len(transcript.messages) else None
    if not isinstance(m, ModelRequest):
        return None
    return next((p.content for p in m.parts if isinstance(p, UserPromptPart) and isinstance(p.content, str)
                 and len(p.content) == chars), None)


def summary_recall(transcript: Transcript) -> list[SummaryRecall]:
    """A row per recorded compaction with its summary (see the module docstring)."""
    rows: list[SummaryRecall] = []
    for c in transcript.recorded_compactions:
        index, chars = c.get("message_index"), c.get("summary_chars")
        if not isinstance(index, int) or not isinstance(chars, int):
            continue
        real = recorded_summary(transcript, index, chars)
        if real is None:
            continue
        before, after = transcript.messages[:index], transcript.messages[index + 1:]
        standin = standin_summary(before, transcript.harness_texts)
        needed, kept = _recall(before, after, {"real": norm(real), "standin": norm(standin)})
        rows.append(SummaryRecall(str(transcript.source), index, needed, kept["real"], kept["standin"],
                                  len(real), len(standin)))
    return rows


def _recall(before: Sequence[ModelMessage], after: Sequence[ModelMessage], summaries: dict[str, str]
            ) -> tuple[int, dict[str, int]]:
    needs = needs_of([*before, *after])
    after_texts: list[str] = []  # normalised text of the messages after the compaction, one per message
    needed = 0
    kept = dict.fromkeys(summaries, 0)
    for i, m in enumerate(after):
        need = needs.by_point.get(len(before) + i)
        if need is not None:
            since = " ".join(after_texts)
            for item in need.items:
                if item in since:
                    continue
                needed += 1
                for name, text in summaries.items():
                    kept[name] += item in text
        after_texts.append(" ".join(t for _, t in part_texts(m)))
    return needed, kept
