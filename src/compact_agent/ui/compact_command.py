"""/compact: summarise the conversation now, optionally around a message, optionally previewed.

    /compact [instructions] [--preview] [--from N | --up-to N]
    /compact --resume-auto

Words that are not options are instructions for the summary; an unknown `--option` is an error
(a mistyped flag must not reach the model as an instruction), and so is a short one (`-p`, meant
as `--preview`: it compacted at once, `-p` its instructions). `--preview` shows the summary (or
the record of the steps) and what else the compaction would keep, and asks before the session is
rewritten. A compaction that would not shrink the context says what it would have kept, a
PreCompact hook that blocks it says so with the hook's reason, and an empty conversation says there
is nothing to compact; in each case nothing changes, and none is a failure (`-p /compact` exits 0,
as scripts that compact a session now and then expect; a summary request that fails exits 1, said
as a /compact's failure, not a turn's: compact_failure.py).
`--resume-auto` compacts nothing: it resumes automatic compaction where failures in a row paused it
(a pause the session keeps across runs until a /compact succeeds or this says so).
"""

from __future__ import annotations

import shlex
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from rich.console import Console

from ..agent.run.first_request import prepare
from ..agent.run.manual import summary_split
from ..agent.run.runner import AgentSession
from ..agent.run.side_models import summary_model
from ..context import CompactionBlocked, CompactionResult, NotSmaller
from ..error_notes import note_model
from .approval import nothing
from .command_registry import CommandError, command, current_repl
from .compact_failure import CompactFailed, compact_failed
from .render import archived_at, compact_line

if TYPE_CHECKING:
    from .work_keys import WorkKeys

USAGE = ("usage: /compact [instructions] [--preview] [--from N | --up-to N], N a message number from /history; "
         "/compact --resume-auto resumes automatic compaction")
RESUME = "--resume-auto"
WHAT = {"full": "the summary", "record": "the record of the steps", "session_memory": "the session notes",
        "partial_from": "the summary", "partial_up_to": "the summary",
        "unasked": "your messages and the files changed"}


def parse(args: str) -> tuple[str, int | None, str | None, bool] | str:
    """(instructions, pivot, direction, preview), or the one-line error to show."""
    try:
        words = shlex.split(args) if args.strip() else []
    except ValueError as e:  # an unclosed quote
        return f"cannot read the arguments ({e}); {USAGE}"
    pivot: int | None = None
    direction: str | None = None
    preview = False
    rest: list[str] = []
    i = 0
    while i < len(words):
        w = words[i]
        if w in ("--from", "--up-to"):
            if i + 1 >= len(words) or not words[i + 1].isdigit() or pivot is not None:
                return USAGE
            direction, pivot = ("from" if w == "--from" else "up_to"), int(words[i + 1])
            i += 2
            continue
        if w == "--preview":
            preview = True
        elif w == RESUME:
            return f"{RESUME} goes alone: /compact {RESUME} resumes automatic compaction and compacts nothing"
        elif w.startswith("--") or (w[:1] == "-" and w[1:2].isalpha()):  # `-p`: a flag mistyped, not words
            return f"unknown option {w} for /compact; {USAGE.removeprefix('usage: ')}"
        else:
            rest.append(w)
        i += 1
    return " ".join(rest), pivot, direction, preview


def out_of_range(pivot: int, direction: str | None, count: int, answered: bool = False) -> str | None:
    """Why message number `pivot` leaves nothing to summarise among `count` messages, or None:
    `--from N` summarises messages N and later (N from 0 to count - 1; to count - 2 when the
    conversation ends at an answer, which stays verbatim), `--up-to N` the ones before N (N from 1
    to count)."""
    low, high = (0, count - 1 - (answered and count > 1)) if direction == "from" else (1, count)
    if low <= pivot <= high:
        return None
    flag = "--from" if direction == "from" else "--up-to"
    takes = f"only {low}" if low == high else f"{low} to {high}"  # one message: not `takes 1 to 1`
    but = " but the last answer, which is kept" if direction == "from" and pivot == high + 1 == count - 1 else ""
    return (f"{flag} {pivot}: no message to summarise on that side{but}; {flag} takes {takes} here "
            "(/history numbers the messages)")


def ends_answered(messages: Sequence[Any]) -> bool:
    """Whether the conversation ends at an answer (a response calling no tool): `--from N` keeps it
    after the summary (cuts.answer_apart), so it is no message to summarise."""
    last = messages[-1] if messages else None
    return getattr(last, "kind", "") == "response" and not any(
        getattr(p, "part_kind", "") == "tool-call" for p in getattr(last, "parts", ()))


def moved_line(parts: Mapping[str, Any], pivot: int | None, direction: str | None, count: int) -> str | None:
    """`  --from 24 became --from 23: a tool call stays with its result`, where the compaction moved
    the boundary asked for (a call and its result are never parted; `--up-to` its last number keeps
    the answer the conversation ends at), else None: the preview said 'the first 23 messages' of
    `--from 24` without a word why."""
    kept = parts.get("verbatim_messages")
    if pivot is None or direction is None or not isinstance(kept, int):
        return None
    moved = parts.get("head_messages", kept) if direction == "from" else count - kept  # not the last answer
    if moved == pivot:
        return None
    flag = "--from" if direction == "from" else "--up-to"
    why = "the last answer stays verbatim" if direction == "up_to" and pivot >= count else "a tool call stays with its result"
    return f"  {flag} {pivot} became {flag} {moved}: {why}"


def kept_words(parts: Mapping[str, Any], cwd: Path, strategy: str = "full", total: int | None = None) -> str:
    """What a compacted history is made of, in words: `the summary 1,930 · the newest 4 messages
    verbatim 2,100 · 2 files read again (a.py, b.py) 900 · the plan and other context 80 ·
    instructions and tools 200` (tokens), the parts adding up to `total` where it is given."""
    return " · ".join(kept_parts(parts, cwd, strategy, total=total)) + " tokens"


#: The sized parts of a compacted history, in the order `kept_parts` says them.
SIZED = ("summary", "verbatim", "files", "other", "fixed")


def summed_to(parts: Mapping[str, Any], total: int) -> dict[str, Any]:
    """`parts` with the sizes it says shared out so that they add up to `total`, the figure said
    beside them, by largest remainder. Each part is measured and rounded up on its own, and the
    whole once (the view layers' shaping counted in it): a preview said `→ 2,587 tokens` over
    parts that made 2,592, about 20 more with files and other context. A part left unsaid (no
    verbatim messages, no file read again) takes no share."""
    shown = {"summary": True, "verbatim": int(parts.get("verbatim_messages", 0)), "files": parts.get("file_paths"),
             "other": parts.get("other"), "fixed": parts.get("fixed")}
    said = [k for k in SIZED if shown[k]]
    sizes = {k: max(0, int(parts.get(k, 0) or 0)) for k in said}
    whole = sum(sizes.values())
    if not whole or whole == total or total < 0:
        return dict(parts)
    out = {k: v * total // whole for k, v in sizes.items()}
    left = sorted(said, key=lambda k: (-(sizes[k] * total % whole), -sizes[k]))  # largest remainder first
    for k in left[:total - sum(out.values())]:
        out[k] += 1  # a tie to the larger part
    return {**parts, **out}


def kept_parts(parts: Mapping[str, Any], cwd: Path, strategy: str = "full", verbatim: str = " verbatim",
               total: int | None = None, first: bool | None = None) -> list[str]:
    """The parts of `kept_words`, each with its tokens (`verbatim`: what the newest messages are
    called), shared out to add up to `total` where it is given (`summed_to`). `first`: the kept
    messages are the first ones (`--from N`); by default, where `strategy` is `partial_from`."""
    if total is not None:
        parts = summed_to(parts, total)
    out = summary_parts(parts, strategy)
    n = int(parts.get("verbatim_messages", 0))
    if n:  # `--from N` keeps the messages before N, the first ones, and the answer it ends at; any other the newest
        first = strategy == "partial_from" if first is None else first
        which = "first" if first else "newest"
        head = int(parts.get("head_messages", n)) if first else n
        kept = f"the {which} message" if head == 1 else f"the {which} {head} messages" if head else ""
        answer = "the last answer" if n > head else ""
        out.append(f"{' and '.join(w for w in (kept, answer) if w)}{verbatim} {parts.get('verbatim', 0):,}")
    paths = [_shown(p, cwd) for p in parts.get("file_paths", [])]
    if paths:
        names = ", ".join(paths[:4]) + (", …" if len(paths) > 4 else "")
        out.append(f"{len(paths)} file{'s' if len(paths) != 1 else ''} read again ({names}) {parts.get('files', 0):,}")
    if parts.get("other"):
        out.append(f"the plan and other context {parts['other']:,}")
    if parts.get("fixed"):
        out.append(f"instructions and tools {parts['fixed']:,}")
    return out


def summary_parts(parts: Mapping[str, Any], strategy: str) -> list[str]:
    """The compaction message's figure, said as its parts where `summary_split` (manual.py) measured
    them: `the summary 1,200 · 3 messages you typed 500 · the files it lists 230`.
    It was `the summary 1,930`, the messages typed and the file list it carries counted as summary."""
    what, size = WHAT.get(strategy, "the summary"), int(parts.get("summary", 0) or 0)
    split = parts.get("summary_split")
    if not isinstance(split, Mapping) or not (split.get("typed") or split.get("listed")):
        return [f"{what} {size:,}"]
    keys = ("text", "typed", "listed")
    shares = _shared(size, [max(0, int(split.get(k, 0) or 0)) for k in keys])
    n = int(split.get("typed_count", 0) or 0)
    out = [f"{what} {shares[0]:,}"]
    if split.get("typed"):
        out.append(f"{'the message' if n == 1 else f'{n} messages'} you typed {shares[1]:,}")
    if split.get("listed"):
        out.append(f"the files it lists {shares[2]:,}")
    return out


def _shared(total: int, sizes: list[int]) -> list[int]:
    """`total` shared out in proportion to `sizes`, by largest remainder (a tie to the first)."""
    whole = sum(sizes)
    if whole <= 0:
        return [total, *[0] * (len(sizes) - 1)]
    out = [v * total // whole for v in sizes]
    for i in sorted(range(len(sizes)), key=lambda i: -(sizes[i] * total % whole))[:total - sum(out)]:
        out[i] += 1
    return out


def _shown(path: str, cwd: Path) -> str:
    try:
        return str(Path(path).relative_to(cwd))
    except ValueError:
        return path


def show_preview(s: AgentSession, result: CompactionResult, c: Console) -> None:
    what = WHAT.get(result.strategy, "the summary")
    c.print(f"preview of /compact ({result.strategy}): {result.tokens_before:,} → {result.tokens_after:,} tokens; "
            f"{result.summarized} message{'s' if result.summarized != 1 else ''} replaced by {what}",
            markup=False, highlight=False)
    parts = {**result.event.detail.get("parts", {}), "summary_split": summary_split(result)}
    kept = kept_words(parts, s.cwd, result.strategy, result.tokens_after)
    c.print(f"  keeps: {kept}",
            markup=False, highlight=False)
    c.rule(what, style="dim")
    c.print(result.summary.strip(), markup=False, highlight=False)
    c.rule(style="dim")


@command("compact", "summarise the conversation now: /compact [instructions] [--preview] [--from N | --up-to N]; "
                    f"/compact {RESUME} resumes automatic compaction where failures in a row paused it")
async def _compact(s: AgentSession, args: str, c: Console) -> None:
    if args.split() == [RESUME]:
        c.print(resume_auto(s), markup=False, highlight=False, soft_wrap=True)
        return
    parsed = parse(args)
    if isinstance(parsed, str):
        raise CommandError(parsed)
    instructions, pivot, direction, preview = parsed
    repl = current_repl()
    if preview and repl is None:  # bad usage, refused before the summary request it would spend (`-p` exits 2)
        raise CommandError("/compact --preview asks before it rewrites the session, and print mode cannot ask: "
                           "run /compact without --preview to compact now, or --preview in the REPL")
    if not s.messages:  # as a context too small to shrink: nothing to do is not a failure (`-p /compact` exits 0)
        where = "" if repl is not None else " (-c or -r ID compacts an earlier session)"
        c.print(f"not compacted: nothing to compact, the conversation is empty{where}. Nothing was changed.",
                markup=False, highlight=False, soft_wrap=True)  # one line
        return
    if pivot is not None and (wrong := out_of_range(pivot, direction, len(s.messages),
                                                    ends_answered(s.messages))) is not None:
        raise CommandError(wrong)  # bad usage, as a word that is not a number is (`-p` exits 2)
    await prepare(s)  # what this run's first request would carry, MCP servers' tools too: the size said is the one compacted
    count = len(s.messages)
    doing = f"compacting {s.context_tokens():,} tokens"
    status = c.status(f"{doing}…")
    asked: list[bool] = []
    work: WorkKeys | None = getattr(repl, "work", None)  # the REPL's spinner and keys

    async def ask(result: CompactionResult) -> bool:
        status.stop()  # never a spinner over the preview and its question, which reads the keys itself
        with work.paused() if work is not None else nothing():
            show_preview(s, result, c)
            if moved := moved_line(result.event.detail.get("parts", {}), pivot, direction, count):
                c.print(moved, markup=False, highlight=False)
            asked.append(repl is not None and await repl.confirm("keep this and rewrite the session? [y/N] "))
        return asked[-1]

    failed: CompactFailed | None = None
    result: CompactionResult | None = None
    made = len(s.cm.compactions)
    try:
        run = s.compact(instructions, pivot=pivot, direction=direction, confirm=ask if preview else None)
        if work is None:
            with status:
                result = await run
        else:  # as a turn: Esc or Ctrl-C stops it (Ctrl-C ended the whole REPL), the session as it was
            from .turn_view import TurnView

            done = await work.interruptible(run, TurnView(c, lambda: 0), doing)
            if done is None:
                c.print("not compacted; nothing was changed", markup=False, highlight=False)
                return
            result = done
    except NotSmaller as e:
        c.print(not_smaller_line(e, s.cwd, direction), markup=False, highlight=False, soft_wrap=not c.is_terminal)
        return
    except CompactionBlocked as e:
        if asked and not asked[-1]:
            c.print("not compacted; nothing was changed")
        else:
            c.print(f"not compacted: blocked by {e.reason or 'a PreCompact hook'}; nothing was changed",
                    markup=False, highlight=False, soft_wrap=not c.is_terminal)
        return
    except Exception as e:  # noqa: BLE001 - the summary request, or saving what it gave: the session is as it was
        if len(s.cm.compactions) > made:  # compacted already: what failed after it is not said as nothing changed
            raise
        noted(e, s)
        failed = compact_failed(e, "/compact" if repl is not None else "`compact-agent -c -p /compact`")
    if result is None:
        assert failed is not None
        raise failed  # the REPL and print mode say it (exit 1); out of the handler: its line is all there is to say
    if repl is None:  # the REPL says it as it says every compaction (its event line); print mode here
        c.print(compact_line(result.event), markup=False, highlight=False, soft_wrap=True)
    if not preview and (moved := moved_line(result.event.detail.get("parts", {}), pivot, direction, count)):
        c.print(moved, markup=False, highlight=False)
    c.print(archived_at(result.archive), markup=False, highlight=False, soft_wrap=True)  # a path, whole


def noted(e: BaseException, s: AgentSession) -> None:
    """Note on `e`, the failure of the summary request, and on its second form's (the conversation
    as text), how the model asked was chosen (`note_model`): the session's (`-m NAME`, `/model NAME`,
    a config file's line, a variable), as a turn's failure is noted, or a `summary_model` of its own
    (the setting, where it was set): a 404's line says where to check the name. The REPL's said
    `/model NAME` whatever had chosen the session's model, and a summary_model's 404 `-m NAME` of it."""
    from ..context.compaction.summarizer import fallback_error

    own = summary_model(s) is not s.model
    name = (s.settings.summary_model or s.info.name) if own else s.info.name
    for failure in (e, fallback_error(e)):
        if failure is not None:
            note_model(failure, name, s.opts.config, summary=own)


def resume_auto(s: AgentSession) -> str:
    """`/compact --resume-auto`: automatic compaction paused by failures in a row is tried again at
    the next request that needs it, without a compaction now (the pause outlives the run)."""
    if not s.cm.breaker_open:
        return "auto-compaction is on; nothing to resume"
    s.cm.close_breaker()
    return "auto-compaction resumed: the next request over the threshold is compacted again"


def not_smaller_line(e: NotSmaller, cwd: Path, direction: str | None = None) -> str:
    """Why /compact changed nothing, in plain sentences: what a compaction would free or keep against
    the context now, then what it would keep, part by part. One line, wrapped at words by a
    terminal's console and whole in a file or a pipe (a script reads it). It read as one clause with
    dashes ('… would keep at least 2,128 tokens — your messages and the files changed, before any
    summary 176 · … tokens — of the 2,365 now, and its summary would take …'). `direction`: that of
    `--from N` or `--up-to N`, whose kept messages are the first ones or the newest."""
    strategy = "unasked" if e.unasked else "partial_from" if direction == "from" else "full"
    kept = ", ".join(kept_parts(e.parts, cwd, strategy, verbatim="", total=e.after, first=direction == "from"))
    if e.unasked and e.after < e.before:  # small_gain.py: the summary would take about all there is to free
        said = (f"a compaction would free at most {e.before - e.after:,} of the {e.before:,} tokens in use, about "
                f"what its summary would take. Even without a summary it would keep {e.after:,}: {kept}.")
    else:
        than = "more than" if e.after > e.before else "as many as"
        least, bare = ("at least ", " even without a summary") if e.unasked else ("", "")
        said = (f"a compaction would keep {least}{e.after:,} tokens, {than} the {e.before:,} in use now{bare}: "
                f"{kept}.")
    return f"not compacted: {said} It is worth it once the conversation is longer. Nothing was changed."
