"""What the next step needed from earlier context, and whether a strategy's request still held it.

A replay appends the recorded response whatever a strategy sent, so a strategy that drops what the
agent is about to use looks as good as one that keeps it. This module makes forgetting visible. At
each request point the recorded response that follows tells what the model used:

- *references*: distinctive tokens of its text and tool-call arguments — paths and dotted or
  underscored names (a run of word characters, ``.``, ``/`` and ``-`` that holds ``.``, ``/`` or
  ``_``, 8+ characters), camelCase names (6+), hexadecimal ids (10+ digits, letters and digits
  mixed), a name inside a longer one counted once, tool names not at all (every request carries
  the tool definitions) — that occur in the transcript's earlier messages but not in the messages that arrived
  since the previous response (those are in every strategy's request);
- *edits*: the old text of each edit it makes (``old_string`` / ``old_str`` of Edit, MultiEdit,
  edit_file and str_replace, the removed and context lines of each ``apply_patch`` hunk), 20+
  characters, that occurred earlier in the same sense.

An item is *kept* when it is in the request the strategy sent at that point: the text of everything
the model reads, whitespace-normalised, with the line-number gutters of file reads (``  12→`` and
``  12<tab>``) taken off so a multi-line edit matches the read it came from. A point where anything
needed was missing is a *stall*: a real model would look again. The look-again is priced by
:func:`reread_request` — one more request of that point's size, cached as that point's was, plus
each missing item's source (the newest earlier tool result that held it, cut as one read would
cut it) at the miss price, plus a short tool-call output.

`none` keeps everything, so it has every item and no stall by construction. *Line recall* asks
more: that the line each reference came from (in its newest holder) is still sent, so a list of
names kept without what they said does not count as memory. The rules for what a
response used are the live pipeline's own (`context/decisions/reuse.py`), which prices forgetting with them.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

from pydantic_ai.messages import ModelMessage, ModelResponse, ToolCallPart

from ..context.compaction.ledger import call_args
from ..context.decisions.reuse import REREAD_OUTPUT, arg_values, edit_texts, norm, part_texts, references

__all__ = ["REREAD_OUTPUT", "Need", "Needs", "Recall", "ViewText", "edit_texts", "lines_kept", "missing", "needs_of",
           "norm", "part_texts", "references", "reread_source_tokens"]

READ_MAX_LINES = 2_000  # one read_file call (ours and Claude Code's Read) returns at most 2,000 lines
READ_MAX_CHARS = 50_000  # ... and at most tool_result_max_chars (our default 50,000) characters


def response_text(response: ModelResponse) -> str:
    """The text of a response whose references count: its words and its tool calls' arguments."""
    return " ".join(t for _, t in part_texts(response))


@dataclass(frozen=True)
class Need:
    """What the response at one request point needs from earlier context."""

    refs: tuple[str, ...]
    edits: tuple[str, ...]
    source: dict[str, int] = field(default_factory=dict)  # item -> index into Needs.sources
    lines: tuple[str, ...] = ()  # per reference, the (normalised) line of its newest holder it came from

    @property
    def items(self) -> tuple[str, ...]:
        return self.refs + self.edits


@dataclass
class Needs:
    """Per request point (the index of its recorded response), what it needs; and the sources'
    sizes in tokens of our estimate (cut as one read would cut them)."""

    by_point: dict[int, Need] = field(default_factory=dict)
    source_tokens: list[int] = field(default_factory=list)


def _cut(text: str) -> str:
    lines = text.split("\n", READ_MAX_LINES)
    return "\n".join(lines[:READ_MAX_LINES])[:READ_MAX_CHARS]


def needs_of(messages: Sequence[ModelMessage]) -> Needs:
    """What each recorded response needed from the messages before it (module docstring)."""
    from ..context.plumbing.tokens import text_tokens

    needs = Needs()
    earlier: list[list[tuple[bool, str]]] = []  # part texts per message, oldest first
    raw: list[list[str]] = []  # raw text of each part (to size a source, to find a reference's line)
    tools: set[str] = set()  # tool names: every request carries the tool definitions
    source_index: dict[tuple[int, int], int] = {}
    prev = -1  # index of the previous response
    for r, m in enumerate(messages):
        if isinstance(m, ModelResponse):
            fresh = " ".join(t for msg in earlier[prev + 1:] for _, t in msg)
            old = earlier[: prev + 1]
            tools.update(p.tool_name for p in m.parts if isinstance(p, ToolCallPart))
            # One scan per candidate finds where it was last read and its newest tool result.
            found = {x: _holders(x, old) for x in references(response_text(m))
                     if x not in fresh and x not in tools}
            olds = [e for e in edit_texts(m) if e not in fresh and e not in found]
            found.update({e: _holders(e, old) for e in olds})
            found = {x: h for x, h in found.items() if h[0] is not None}
            refs = [x for x in found if x not in olds]
            edits = [x for x in found if x in olds]
            if found:
                source: dict[str, int] = {}
                for item, (holder, result) in found.items():
                    where = result or holder
                    assert where is not None
                    if where not in source_index:
                        source_index[where] = len(needs.source_tokens)
                        text = raw[where[0]][where[1]] if result is not None else ""
                        needs.source_tokens.append(text_tokens(_cut(text)))
                    source[item] = source_index[where]
                lines = tuple(_line_of(x, raw, found[x][0]) for x in refs)
                needs.by_point[r] = Need(tuple(refs), tuple(edits), source, lines)
            prev = r
        texts = part_texts(m)
        earlier.append(texts)
        raw.append([_raw(p) for p in m.parts])
    return needs


def _raw(part: object) -> str:
    if isinstance(part, ToolCallPart):
        return "\n".join(arg_values(call_args(part)))
    content = getattr(part, "content", "")
    return content if isinstance(content, str) else str(content)


def _line_of(item: str, raw: list[list[str]], where: tuple[int, int] | None) -> str:
    """The normalised line of the newest holder's text that holds `item` (the item itself when none does)."""
    if where is not None:
        for line in raw[where[0]][where[1]].splitlines():
            if item in line:
                return norm(line)
    return item


def _holders(item: str, old: list[list[tuple[bool, str]]]
             ) -> tuple[tuple[int, int] | None, tuple[int, int] | None]:
    """(message, part) of the newest part holding `item` (where the model last read it), and of
    the newest tool result holding it (what a look-again reads; a path the user typed has none)."""
    newest: tuple[int, int] | None = None
    for i in range(len(old) - 1, -1, -1):
        for j in range(len(old[i]) - 1, -1, -1):
            is_result, text = old[i][j]
            if item in text:
                newest = newest or (i, j)
                if is_result:
                    return newest, (i, j)
    return newest, None


class ViewText:
    """The normalised text of what a strategy sends, memoised per message object (views reuse most
    messages from one request to the next)."""

    def __init__(self) -> None:
        self._memo: dict[int, tuple[ModelMessage, str]] = {}

    def of(self, view: Sequence[ModelMessage]) -> str:
        out: list[str] = []
        for m in view:
            hit = self._memo.get(id(m))
            if hit is None or hit[0] is not m:
                hit = (m, " ".join(t for _, t in part_texts(m)))
                self._memo[id(m)] = hit
            out.append(hit[1])
        if len(self._memo) > 4 * len(view) + 1_000:  # forget messages no longer sent
            keep = {id(m) for m in view}
            self._memo = {k: v for k, v in self._memo.items() if k in keep}
        return " ".join(out)


@dataclass
class Recall:
    """One strategy's memory over a replay: needed and kept references and edits, stalls."""

    refs: int = 0
    refs_kept: int = 0
    lines_kept: int = 0  # references whose whole line (not only the name) was still sent
    edits: int = 0
    edits_kept: int = 0
    stalls: int = 0

    def add(self, other: Recall) -> None:
        for k in ("refs", "refs_kept", "lines_kept", "edits", "edits_kept", "stalls"):
            setattr(self, k, getattr(self, k) + getattr(other, k))


def lines_kept(need: Need, sent: str) -> int:
    """How many of the needed references still have the line they came from in `sent`: a bare
    list of names is not memory of what the names said."""
    return sum(1 for line in need.lines if line in sent)


def missing(need: Need, sent: str) -> tuple[list[str], list[str]]:
    """The needed references and edits that are not in `sent` (a request's normalised text)."""
    return [x for x in need.refs if x not in sent], [e for e in need.edits if e not in sent]


def reread_source_tokens(need: Need, lost: Iterable[str], sizes: Sequence[int]) -> int:
    """Tokens of the distinct sources a look-again reads for the `lost` items (our estimate)."""
    return sum(sizes[i] for i in {need.source[x] for x in lost if x in need.source})
