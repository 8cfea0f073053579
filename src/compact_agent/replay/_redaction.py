"""Expansion of upstream redaction markers (the Codex fixtures) into realistic, deterministic filler.

The Codex data was sanitised upstream: every free text became ``[REDACTED_<KIND> len=N sha=H]``.
Sizes survived, words did not. Replays measure context size and cost, so a marker is replaced by
exactly N characters of pseudo-English filler chosen by its hash: token counts stay realistic, the
same marker always expands to the same text, and nobody mistakes the filler for the original.
"""

from __future__ import annotations

import functools
import random
import re
from dataclasses import dataclass

from ._common import IMAGE_PLACEHOLDER, counted

REDACTION_RE = re.compile(r"\[REDACTED_([A-Z_]+) len=(\d+) sha=([0-9a-fA-F]+)\]")
_FILLER_WORDS = (
    "the", "file", "test", "value", "return", "error", "check", "update", "module", "import", "class",
    "data", "result", "change", "line", "path", "config", "run", "build", "output", "input", "function",
    "should", "with", "from", "this", "that", "when", "then", "before", "after", "field", "request",
    "response", "session", "state", "event", "handler", "message", "index", "cache", "token", "call",
)  # fmt: skip


@functools.cache
def _filler_corpus() -> str:
    """A fixed pseudo-English corpus (~64 KB): common short words tokenise like real prose and code."""
    rng = random.Random(0x5EED)
    words: list[str] = []
    size = 0
    while size < 1 << 16:
        word = rng.choice(_FILLER_WORDS)
        words.append(word)
        size += len(word) + 1
    return " ".join(words)


def filler(length: int, key: str) -> str:
    """Deterministic filler text of exactly ``length`` characters; ``key`` (a hash) picks the offset."""
    if length <= 0:
        return ""
    corpus = _filler_corpus()
    start = corpus.find(" ", int(key[:8] or "0", 16) % len(corpus)) + 1  # begin on a word
    repeats = (start + length) // len(corpus) + 1
    return (corpus * repeats)[start : start + length]


@dataclass
class RedactionStats:
    """How many upstream redaction markers were expanded, for an honest warning line."""

    markers: int = 0
    chars: int = 0
    images: int = 0

    def expand(self, text: str) -> str:
        """Replace ``[REDACTED_<KIND> len=N sha=H]`` by N characters of filler (images by a placeholder).

        The Codex fixtures keep sizes but not text; filler of the recorded length keeps token counts
        realistic for cost and context-size simulation while staying deterministic (same sha, same
        text). Filler consists of letters and spaces only, so it is also safe inside JSON strings.
        """
        if "[REDACTED_" not in text:
            return text

        def replace(match: re.Match[str]) -> str:
            kind, length, sha = match.group(1), int(match.group(2)), match.group(3)
            if kind.startswith("IMAGE"):
                self.images += 1
                return IMAGE_PLACEHOLDER
            self.markers += 1
            self.chars += length
            return filler(length, sha)

        return REDACTION_RE.sub(replace, text)

    def expand_json_args(self, text: str) -> str:
        """Expand redacted tool-call arguments into a *valid JSON object* of the recorded length.

        A marker standing for a whole arguments string would otherwise become prose, which providers
        reject as tool-call arguments; ``{"_":"<filler>"}`` keeps both validity and size.
        """
        match = REDACTION_RE.fullmatch(text.strip())
        if match is None:
            return self.expand(text)
        length, sha = int(match.group(2)), match.group(3)
        self.markers += 1
        self.chars += length
        return '{"_":"' + filler(length - 8, sha) + '"}' if length > 8 else "{}"

    def warning(self) -> str | None:
        if not (self.markers or self.images):
            return None
        return (
            f"expanded {counted(self.markers, 'redaction marker')} into {counted(self.chars, 'char')} of deterministic "
            f"filler and {counted(self.images, 'redacted image')} into {IMAGE_PLACEHOLDER!r} placeholders"
        )


def redaction_note(stats: RedactionStats) -> str | None:
    """What the replay runs on in place of the redacted text and images, for the table's reader too."""
    said = []
    if stats.markers:
        said.append(f"expanded {counted(stats.markers, 'redaction marker')} into {counted(stats.chars, 'character')} "
                    "of deterministic filler (the text itself was not recorded)")
    if stats.images:
        said.append(f"{counted(stats.images, 'image')} became {IMAGE_PLACEHOLDER!r}")
    return "; ".join(said) or None
