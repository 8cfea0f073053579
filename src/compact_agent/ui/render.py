"""Terminal rendering: the context bar, compaction and layer lines, status tables. Besides layout, it
decides one thing: which of a layer's savings are news (`layer_line`: under a hundredth of the window
is not, and the last resort's `budget`/`shrink` events, from fit.py, are said by what they left out)."""

from __future__ import annotations

import functools
from typing import TYPE_CHECKING, Any

from rich.console import Console, ConsoleOptions, RenderResult
from rich.table import Table

from .. import secrets
from ..words import plural, wait_words
from .visible import one_line, visible, visible_segments

if TYPE_CHECKING:  # the REPL draws its banner and prompt before the library is imported
    from collections.abc import Iterable

    from rich.segment import Segment
    from rich.text import Text

    from ..context.plumbing.events import Event


def bar(used: int, threshold: int, window: int, width: int = 40) -> str:
    """`[█████░░░░|░░]` — filled up to `used`, a `|` at the auto-compact threshold."""
    window = max(window, 1)
    fill = min(width, round(width * used / window))
    mark = min(width - 1, round(width * threshold / window))
    cells = ["█" if i < fill else "░" for i in range(width)]
    cells[mark] = "|"
    return "[" + "".join(cells) + "]"


def auto_compaction(failures: int, paused: bool, retry_in: int | None = None, retry_in_s: float | None = None) -> str:
    """Whether automatic compaction runs, for /status: after `max_consecutive_failures` automatic
    compactions in a row that failed or would not shrink the context, none is tried until its
    cool-down ends, `retry_in_s` seconds on (the time is saved with the session: `-c` goes on paused
    until then; it used to stay paused for good, however long ago the provider came back), or one
    made with /compact succeeds, or `/compact --resume-auto` resumes it; where the latest could not
    write its archive (a full disk), it is tried again `retry_in` requests on, and resumes once that
    is written."""
    if not paused:
        return "auto-compaction on"
    if retry_in is not None:
        return (f"auto-compaction paused: the last {failures} tried in a row failed, the latest unable to archive the "
                f"transcript; it is tried again in {plural(max(1, retry_in), 'request')}, and resumes once the archive "
                "is written (a /compact that succeeds, or /compact --resume-auto, resumes it now)")
    said = f"auto-compaction paused: the last {failures} tried in a row failed or would not shrink the context; "
    if retry_in_s is not None:
        return (said + f"it is tried again in {wait_words(retry_in_s)}, and resumes if that succeeds (a /compact "
                "that succeeds, or /compact --resume-auto, resumes it now)")
    return said + "it stays paused in this session until a /compact succeeds, or /compact --resume-auto resumes it"


def failed_line(ev: Event, auto: str = "") -> str:
    """A compaction that did not happen: `skipped` where it would not have shrunk the context (the
    history is as it was, nothing broke), else `failed`; after how long, from a second (slow hooks,
    a summary request that timed out: the user waited for them); and when it paused automatic
    compaction (one an archive not written paused is tried again: `retry_after` requests on; another,
    once its cool-down has passed: `retry_in_s` seconds on)."""
    waited = f" after {_duration(ev.duration_ms)}" if ev.duration_ms >= HOOK_SAID_MS else ""
    line = f"{auto}compaction {'skipped' if ev.detail.get('skipped') else 'failed'}{waited}: {ev.detail.get('error', '')}"
    if ev.detail.get("paused"):
        retry, cool = ev.detail.get("retry_after"), ev.detail.get("retry_in_s")
        line += (f"; {ev.detail.get('failures', 3)} in a row, so automatic compaction is paused"
                 + (f", tried again in {plural(retry, 'request')}" if isinstance(retry, int) else
                    f", tried again in {wait_words(cool)}" if isinstance(cool, int | float) else "")
                 + " (/compact still works)")
    return line


def compact_line(ev: Event) -> str:
    if ev.action == "failed":
        return failed_line(ev)
    if ev.action == "blocked":
        from ..agent.run.stream_events import blocked_line

        return blocked_line(ev)
    return compacted_text(ev, took(ev))


#: Compactions that make no model request: a record of the steps, the session notes standing in.
NO_REQUEST = ("record", "session_memory")
#: What a compaction's line calls the kinds the bare name does not explain (`full` is in /help): a
#: line that said `record` left the user to guess that no model was asked.
KIND_WORDS = {"record": "record written without a model", "session_memory": "session notes as the summary"}


#: The hooks' share of a compaction's time is said from this long on (milliseconds).
HOOK_SAID_MS = 1_000


def took(ev: Event) -> str:
    """` in 2.3s`, ` in 40 ms`: how long a compaction that asked a model for its summary took, the
    hooks run before it included (PreCompact, SessionStart "compact": the user waited for them), and
    their share when it is a second or more (` in 9.2s, 8.0s of it in hooks`): their time was left
    out, and the line said 'in 1.2s' of a /compact that kept the user waiting ten. Nothing for one
    that asked no model and waited for no slow hook (milliseconds of the program's own work): every
    record said `in 0.0s`, and so did a summary from a fast local server, rounded to tenths of a second."""
    hook = ev.detail.get("hook_ms")
    hook_ms = float(hook) if isinstance(hook, int | float) and not isinstance(hook, bool) else 0.0
    if ev.action in NO_REQUEST and hook_ms < HOOK_SAID_MS:
        return ""
    line = f" in {_duration(ev.duration_ms)}"
    if hook_ms >= HOOK_SAID_MS:
        line += f", {_duration(hook_ms)} of it in hooks"
    return line


def _duration(ms: float) -> str:
    return f"{ms / 1000:.1f}s" if ms >= 1000 else f"{max(1, round(ms))} ms"


def compacted_text(ev: Event, took: str = "") -> str:
    """`compacted (auto, record written without a model): 21,649 → 7,160 tokens` (then `took`);
    one made before the threshold because the model's prices say it pays (`detail["reason"]`
    "priced") says so, or it would look like a compaction come too soon: `compacted early (...):
    ..., cheaper than carrying 14,489 more to the 112,500 threshold`. One a `/model --window N`
    made (`detail["switched_window"]`) is said as made for that window: it read `(manual, full)`,
    as if the user had typed /compact. Where it cut or left out messages the user typed, it says so
    (`typed_words`)."""
    sizes = f"{ev.tokens_before:,} → {ev.tokens_after:,} tokens{took}"
    what = KIND_WORDS.get(ev.action, ev.action)
    kind = f"{ev.trigger}, {what}"
    # What it did to the user's own messages, then whether it was made while automatic compaction was paused.
    notes = typed_words(ev.detail) + ("; automatic compaction resumed" if ev.detail.get("resumed") else "")
    window = ev.detail.get("switched_window")
    if isinstance(window, int) and not isinstance(window, bool):
        return f"compacted to fit the new {window:,}-token window ({what}): {sizes}{notes}"
    if ev.detail.get("reason") != "priced":
        return f"compacted ({kind}): {sizes}{notes}"
    threshold = ev.detail.get("threshold")
    to = f" to the {threshold:,} threshold" if isinstance(threshold, int) else " to the threshold"
    return (f"compacted early ({kind}): {sizes}, cheaper than carrying "
            f"{max(0, ev.tokens_before - ev.tokens_after):,} more{to}{notes}")


def typed_words(detail: dict[str, Any]) -> str:
    """`; 2 long messages of yours cut short (their full text is in the archive)`: what a compaction
    did to the messages the user typed, which it carries word for word up to a budget
    (user_messages.py): cut to their ends or heads (`typed_cut`), or left out (`typed_left_out`).
    Nothing said, a user whose long paste a fold had cut to its first lines was not told."""
    def count(key: str) -> int:
        n = detail.get(key)
        return n if isinstance(n, int) and not isinstance(n, bool) and n > 0 else 0
    cut, out = count("typed_cut"), count("typed_left_out")
    if not cut and not out:
        return ""
    said = [f"{cut:,} long message{'s' if cut != 1 else ''} of yours cut short"] if cut else []
    if out:
        said.append(f"{out:,} left out" if cut else f"{out:,} message{'s' if out != 1 else ''} of yours left out")
    its = "its" if cut + out == 1 else "their"
    return f"; {' and '.join(said)} ({its} full text is in the archive)"


def archive_line(ev: Event) -> str | None:
    """`full transcript archived at PATH`, under the line of a compaction the program started (auto,
    reactive): /compact says it itself, and the automatic one left the user not knowing where the
    conversation before it went. None for a failure, a refusal, or a compaction without an archive."""
    path = ev.detail.get("archive")
    if ev.layer != "compact" or ev.trigger == "manual" or ev.action in ("failed", "blocked") or not path:
        return None
    return archived_at(path)


def archived_at(path: object) -> str:
    """`full transcript archived at PATH`, a provider key in the path redacted (a home folder inside
    a directory named with the key; the sessions folder's own name holds none, session/files.py)."""
    return f"full transcript archived at {secrets.redact(str(path))}"


LAYER_WORDS = {
    "budget": "large tool results moved to files (a preview stays)",
    "snip": "empty results, repeated reminders, earlier identical reads dropped",
    "microcompact": "old tool results cleared",
    "collapse": "old rounds folded into a digest",
}


def layer_line(ev: Event, window: int = 0) -> str | None:
    """`context: old tool results cleared (3 results), freed 4,120 tokens` — what a layer did, in words;
    None for the pipeline's own bookkeeping (a thrash escalation, a rejected calibration), and for a
    saving under a hundredth of `window` (36 tokens of a 16K window), which are in the event log
    and /status, not news for the user."""
    if ev.layer not in LAYER_WORDS or ev.tokens_freed * 100 < window:
        return None
    if (ev.layer, ev.action) == ("budget", "shrink"):  # the last resort (fit.py): said by what it did
        return f"context: {fit_words(ev.detail or {})} to fit the window, freed {ev.tokens_freed:,} tokens"
    n = len(ev.ids)
    what = "tool result{} among them" if ev.layer == "collapse" else "result{}"  # rounds folded: the results they held
    ids = f" ({n} {what.format('s' if n != 1 else '')})" if ev.ids else ""
    return f"context: {LAYER_WORDS[ev.layer]}{ids}, freed {ev.tokens_freed:,} tokens"


def fit_words(detail: dict[str, Any]) -> str:
    """What the last resort left out of a request (`budget`/`shrink`): the model's earlier reasoning
    alone was said as "large tool results moved to files", where no result was touched."""
    def count(key: str, one: str, many: str) -> str:
        n = int(detail.get(key) or 0)
        return (one if n == 1 else many.format(f"{n:,}")) if n > 0 else ""
    said = [count("previews", "a large tool result cut to a preview", "{} large tool results cut to previews"),
            count("rounds_left_out", "the oldest round left out", "the {} oldest rounds left out"),
            count("thinking_left_out", "the model's reasoning in an answer left out",
                  "the model's reasoning in {} answers left out"),
            count("reasoning_emptied", "the model's reasoning in a tool call sent empty",
                  "the model's reasoning in {} tool calls sent empty"),
            "the first message shortened" if detail.get("first_message_cut") else "",
            count("steps_folded", "the newest step folded into a note", "the {} newest steps folded into a note")]
    said = [w for w in said if w]
    return ", ".join(said) if said else "the request shrunk"


def served_by(provider: str, base_url: str | None, *, url: bool = True) -> str:
    """Who answers a model, for /status and /model: its provider, or the kind of endpoint it was
    given, with its address unless `url` is false (`OpenAI-compatible, http://127.0.0.1:8000/v1`):
    a local server's model read "(openai)", as if OpenAI served it."""
    if not base_url:
        return provider
    kind = "Anthropic-compatible" if provider == "anthropic" else "OpenAI-compatible"
    return f"{kind}, {base_url}" if url else kind


def clip_words(text: str, n: int) -> str:
    """One line of at most `n` cells of the screen (a Chinese character or an emoji takes two), cut
    at a word boundary with `…` when it is longer; a control character in it stays, for the console
    to show as its escape."""
    from rich.cells import cell_len

    from .cells import head

    text = one_line(str(text))
    if cell_len(text) <= n:
        return text
    cut = head(text, n - 1)
    if " " in cut[len(head(cut, n // 2)):]:
        cut = cut[: cut.rindex(" ")]
    return cut.rstrip(" ,;:") + "…"


def when(iso: str) -> str:
    """`2026-12-01 18:29` from an ISO timestamp (UTC shown in local time); the text as is otherwise."""
    from datetime import datetime

    try:
        return datetime.fromisoformat(iso).astimezone().strftime("%Y-%m-%d %H:%M")
    except (TypeError, ValueError):
        return iso


def savings_table(savings: dict[str, int]) -> Table:
    """What each layer keeps out of the context now (`savings`: the tokens each takes out of the
    context as it stands), in words (not the layers' names), in a table that fits 80 columns: what
    the conversation holds and the requests do not, beside the context /context pictures. Headed
    'tokens freed this run', 93,642 in a 16K window read as a saving of that context."""
    from ..context.plumbing.events import LAYER_NAMES  # late: the REPL draws before pydantic-ai loads

    t = Table(show_header=True)
    t.add_column("what the layers keep out of the context now")
    t.add_column("tokens", justify="right", no_wrap=True)
    for layer in LAYER_NAMES:
        t.add_row(LAYER_WORDS[layer], f"{max(0, savings.get(layer, 0)):,}")
    return t


def path_line(c: Console, path: object, style: str = "", indent: str = "  ") -> None:
    """A path on a line of its own, from the left (after `indent`): never split by us, the terminal
    may wrap it, we do not, so it is copied whole; a pipe (print mode, laid out at 80 columns) gets
    it on one line. `/history`, `/memory`, `/permissions` and `/notes` print their paths so, a
    provider key in one redacted (a working directory named with it)."""
    c.print(f"{indent}{secrets.redact(str(path))}", style=style, soft_wrap=True, markup=False, highlight=False)


def fits(c: Console, line: str) -> bool:
    """Whether `line` goes on one line of `c` without being wrapped (a path in it then split)."""
    from rich.cells import cell_len

    return cell_len(line) <= c.width


def make_console(*, markup: bool = False) -> Console:
    """Markup off: paths, commands, prompts and model text contain `[...]` that must print as typed.
    Our own styling goes through `style=` and `Text`, never through markup in a string.

    Lines longer than the terminal are wrapped by rich at word boundaries (soft wrap would leave it
    to the terminal, which breaks words: `the out|put`). Output that must keep its lines whole (a
    settings table, a command's tail) says so where it is printed."""
    return SafeConsole(highlight=False, soft_wrap=False, markup=markup)


class SafeConsole(Console):
    """A console that shows the control characters in what it prints as escapes (visible.py)."""

    def render_str(self, text: str, **options: Any) -> Text:
        """A string's controls shown before rich makes it text: rich drops `\\r` and the bell,
        which the user then never sees (the guarantee is that they are shown)."""
        return super().render_str(visible(text), **options)

    def _render_buffer(self, buffer: Iterable[Segment]) -> str:  # where rich joins its output
        return super()._render_buffer(visible_segments(buffer))


def markdown(markup: str, **options: Any) -> Any:
    """rich's `Markdown` (imported here, when an answer is first shown) with HTML read as text: an answer's `List<String>` or `<script>` is shown as
    written (rich drops HTML tags, so the user saw `List`, and not what the model said). Its control
    characters are shown as escapes before it is parsed: markdown takes a `\\r` for a line break and
    rich drops the bell, so neither would reach the screen as the escape print mode shows."""
    markup = visible(markup)
    md = _answer_markdown()(markup, **options)
    md.parsed = _parser().parse(markup)
    return md


def _parser() -> Any:
    from markdown_it import MarkdownIt

    return MarkdownIt("commonmark", {"html": False}).enable("strikethrough").enable("table")


def fenced_parts(block: str) -> list[tuple[str, Any]]:
    """A block of an answer cut where a fenced code block stands at its top level (one in a list
    or a quote stays in rich's layout, its lines whole: whole_code.py): `(text, None)` for
    markdown, `(text, token)` for the code, `token` markdown-it's fence (its `info` names the
    language, its `content` is the code)."""
    block = visible(block)  # as `markdown` parses it: a `\r` is no line break of the parser's
    lines = block.split("\n")
    parts: list[tuple[str, Any]] = []
    at = 0
    for token in _parser().parse(block):
        if token.type == "fence" and token.level == 0 and token.map:
            start, end = token.map
            if "\n".join(lines[at:start]).strip():
                parts.append(("\n".join(lines[at:start]), None))
            parts.append(("\n".join(lines[start:end]), token))
            at = end
    if "\n".join(lines[at:]).strip():
        parts.append(("\n".join(lines[at:]), None))
    return parts


@functools.cache
def _answer_markdown() -> Any:
    """rich's `Markdown` with every heading at the left: rich centres a `# Title`, which then stood
    far right of the answer's `⏺`, apart from the words under it. A table too wide for its values
    to stay whole is shown as records (`_records_table`)."""
    from rich.markdown import Heading, TableElement
    from rich.markdown import Markdown as RichMarkdown

    from .whole_code import marked_code_block

    class LeftHeading(Heading):
        LEVEL_ALIGN = dict.fromkeys(Heading.LEVEL_ALIGN, "left")

    class RecordsTable(TableElement):
        def __rich_console__(self, console: Console, options: ConsoleOptions) -> RenderResult:
            yield from _records_table(self, console, options, super().__rich_console__(console, options))

    code = marked_code_block()  # a code block's lines whole, where its caller asks (whole_code.py)

    class Answer(RichMarkdown):
        elements = {**RichMarkdown.elements, "heading_open": LeftHeading, "table_open": RecordsTable,
                    "fence": code, "code_block": code}

    return Answer


def _records_table(element: Any, console: Console, options: ConsoleOptions, drawn: RenderResult) -> RenderResult:
    """A markdown table as rich draws it where its columns fit with every value's longest word whole;
    where they do not (8 columns in 40), rich cut each cell to `1…`, so each row is shown as a record
    instead, a `heading: value` line for each cell, a blank line between rows."""
    from rich.console import Group
    from rich.text import Text

    table = [*drawn]  # rich's Table, whose measure's minimum is its columns' longest words (and rules)
    if element.body is None or all(not isinstance(t, Table) or t.__rich_measure__(console, options).minimum
                                   <= options.max_width for t in table):
        yield from table
        return
    headings = [cell.content for cell in element.header.row.cells] if element.header and element.header.row else []
    records: list[Text] = []
    for row in element.body.rows:
        if records:
            records.append(Text(""))
        for i, cell in enumerate(row.cells):
            line = Text("")
            if i < len(headings) and headings[i].plain.strip():
                line.append_text(headings[i].copy())
                line.stylize("markdown.table.header")
                line.append(": ")
            line.append_text(cell.content.copy())
            line.justify = "left"
            records.append(line)
    yield Group(*records)
