"""L5: compaction that rewrites the persisted history (full, partial, reactive).

Order of work, chosen so that nothing is lost whatever fails, and nothing left for a compaction
that does not happen:
  1. ask the summarizer (the request the conversation last sent plus the instruction, unable to
     act), making the request fit: images become `[image]`, the oldest API rounds after the first
     go (before it is sent, and again on "prompt too long"), one round alone too long keeps the
     ends of its longest texts — or, where the caller prices it cheaper, write a record of the
     steps without a model (`summary.record_of`), and keep the previous compaction message as it
     is, appending an update (incremental);
  2. build the new history: summary message (with the user's own words) + restored files +
     attachments + the results in use (`cuts.kept_before`) + the kept tail, with no call/result
     pair split and no adjacent same-role messages;
  3. reject the result if it is not smaller than its input (a record may stand in for a summary
     too long for the room: `record_fallback`); one of the cheap forms over the caller's ceiling
     is made again without them (a record first cut shorter, `record_cut.py`, and kept once cut to the
     size summaries have had: one of no more steps lands over too); the caller's `vet` may reject it;
  4. archive the full transcript — if that fails, stop: nothing was rewritten; a compaction
     refused at 3 wrote none — and name the copy in the summary message (made again where the
     copy's path, known only once it is written, differs from the one it was built naming);
  5. let the caller rewrite the session atomically to a boundary plus this history.

What a compaction keeps (the tail, the results in use, the files restored) and how large that
is, is `Keeper`'s (keep.py): the schedule asks it before every request, and a compaction cuts
where the same answer says.

The summarizer and the archive are passed in: this module never talks to a provider or a disk.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pydantic_ai.messages import ModelMessage, ModelRequest, ToolReturnPart, UserPromptPart

from ..layers import digest
from ..plumbing import history_state, rounds, tokens
from ..plumbing.events import Event, Stopwatch
from ..plumbing.markers import is_compaction_message
from . import cut_replies, ledger, record_cut, restore, summary, summary_prompt, user_messages
from .cuts import join, kept_before, newest_typed, partial_split, summarize_fitting
from .images import kept_images, with_images
from .keep import Keeper
from .result import (
    CompactionError,
    CompactionResult,
    NoSummary,
    NotSmaller,
    Summarize,
    archived,
    no_summary,
)


@dataclass
class Compactor(Keeper):
    """Builds compacted histories. One instance per session; holds no conversation state (only the
    latest answer to what a compaction would keep, keep.py). What it keeps, and how large that
    is, is decided by `Keeper`; this class makes the compaction."""

    # The path the latest archive was written at: the next compaction is measured naming one like it.
    _archived_as: Path | None = field(default=None, init=False, repr=False, compare=False)
    wording: summary_prompt.Wording = summary_prompt.NEUTRAL  # the summary request's, for its kind of agent

    async def compact(self, messages: list[ModelMessage], *, summarize: Summarize,
                      archive: Callable[[], Path | None], trigger: str = "auto", instructions: str = "",
                      tokens_before: int | None = None, overhead: int = 0, level: int = 0,
                      summary_input: list[ModelMessage] | None = None, keep_from: int | None = None,
                      prefer_record: Callable[[int], bool] | None = None,
                      prefer_incremental: Callable[[int, int], bool] | None = None,
                      ceiling: int | None = None, record_fallback: bool = False, record_cap: int | None = None,
                      paying_cap: int | None = None, short_of: Callable[[CompactionResult], int] | None = None,
                      vet: Callable[[CompactionResult], None] | None = None) -> CompactionResult:
        """Full compaction: summarise everything before a short verbatim tail.

        `keep_from`: `summary_input` is the request last sent, which covered `messages[:keep_from]`;
        what came after it is kept verbatim, so the summary request is that request (a cache hit)
        plus the instruction. `prefer_record(tokens)`: given the size of a record of the
        summarised part written without a model (`summary.record_of`), whether it is cheaper
        than a summary request; when it is, no model is called. `prefer_incremental(tokens, carried)`:
        given the size of the compaction message the history starts with and of what any new one
        would carry of it again (the user's messages and the ledger), whether to keep that message
        as it is (a cache hit) and append the record of what came after it, rather than fold
        everything into one new message. A record over `ceiling` (provider tokens, overhead included) is cut
        to its newest steps within `record_cap` (`record_cut.py`), other cheap forms over it made again without
        them; one that does not pay whole is priced again cut within `paying_cap` (the size summaries have had).

        `level` > 0 is the thrash guard's escalation: a smaller kept tail and fewer restored files,
        because the last compaction did not buy enough room. `record_fallback`: where a summary the
        model wrote leaves the context no smaller (a small window, whose room a summary as long as the
        output reserve nearly fills), keep a record of the steps written without a model instead, when
        that shrinks it. `short_of(result)`: the tokens `result` falls short of freeing (a manual
        compaction's least): one that does keeps a shorter tail as one no smaller does; none freeing
        enough, the closest is made. `vet(result)`: the caller's last word on a compaction made,
        before anything is archived; it raises (`NotSmaller`, say) to refuse it.
        """
        asked: list[bool] = []

        async def counted(sent: list[ModelMessage], prompt: str) -> str:
            asked.append(True)
            return await summarize(sent, prompt)
        try:
            result = await self._compact(messages, summarize=counted, trigger=trigger, instructions=instructions,
                                         tokens_before=tokens_before, overhead=overhead,
                                         level=level, summary_input=summary_input, keep_from=keep_from,
                                         prefer_record=prefer_record, prefer_incremental=prefer_incremental,
                                         ceiling=ceiling, record_cap=record_cap, paying_cap=paying_cap, short_of=short_of)
        except NotSmaller as refused:
            if not (record_fallback and asked) or instructions:
                raise
            # The summary was paid for and is too long for the room; a record costs no request.
            try:
                result = await self._compact(messages, summarize=no_summary, trigger=trigger,
                                             tokens_before=refused.before, overhead=overhead, level=level,
                                             prefer_record=lambda size: True)
            except (NotSmaller, NoSummary):
                raise refused from None
        return archived(result, archive, vet)

    async def _compact(self, messages: list[ModelMessage], *, summarize: Summarize,
                       trigger: str = "auto", instructions: str = "",
                       tokens_before: int | None = None, overhead: int = 0, level: int = 0,
                       summary_input: list[ModelMessage] | None = None, keep_from: int | None = None,
                       prefer_record: Callable[[int], bool] | None = None,
                       prefer_incremental: Callable[[int, int], bool] | None = None,
                       ceiling: int | None = None, record_cap: int | None = None, paying_cap: int | None = None,
                       short_of: Callable[[CompactionResult], int] | None = None) -> CompactionResult:
        watch = Stopwatch()
        if not messages:
            raise CompactionError("nothing to compact")
        before = tokens_before if tokens_before is not None else self.scaled(self.estimated(messages) + overhead)
        level = max(self.escalation, level)
        shorten = record_cut.whole  # a record's cut, once a whole one landed over `ceiling`
        try:
            while True:
                self.escalation = level
                result = await self._compact_once(
                    messages, summarize=summarize, trigger=trigger, instructions=instructions,
                    before=before, overhead=overhead, watch=watch, summary_input=summary_input,
                    keep_from=keep_from, prefer_record=prefer_record, prefer_incremental=prefer_incremental,
                    short_of=short_of, shorten=shorten, paying_cap=paying_cap)
                # The cheap forms were priced apart; together they may leave the request over `ceiling`
                # (the largest request that leaves room for the answer): then without them.
                if ceiling is None or result.tokens_after <= ceiling:
                    return result
                if result.event.detail.get("incremental"):
                    prefer_incremental = None
                elif (result.strategy == "record" and shorten is record_cut.whole and record_cap is not None
                      and self.scaled(tokens.text_tokens(result.summary)) > record_cap):  # else cut, the same
                    shorten = functools.partial(record_cut.newest_steps, tokens=record_cap,
                                                count=lambda text: self.scaled(tokens.text_tokens(text)))
                elif result.strategy == "record" and (shorten is record_cut.whole or paying_cap is None):
                    prefer_record = None  # a summary; once cut to the size summaries have had, it stays
                else:
                    return result
        finally:
            self.escalation = 0

    async def _compact_once(self, messages: list[ModelMessage], *, summarize: Summarize,
                            trigger: str, instructions: str, before: int,
                            overhead: int, watch: Stopwatch, summary_input: list[ModelMessage] | None,
                            keep_from: int | None, prefer_record: Callable[[int], bool] | None,
                            prefer_incremental: Callable[[int, int], bool] | None,
                            short_of: Callable[[CompactionResult], int] | None = None,
                            shorten: Callable[[str | None], str | None] = record_cut.whole,
                            paying_cap: int | None = None) -> CompactionResult:
        plan = self.preview(messages, overhead)  # what the schedule priced, when it still holds (keep.py)
        # A summary request is the request last sent (`summary_input`, which covered `messages[:keep_from]`):
        # what came after it is kept verbatim, the summary cannot say it. A record, written without a request,
        # covers what the plan says, as the schedule priced it. Cut where the summary's is, a record kept
        # what the newest answer said whole (a 3,750-token answer in an 8K window): 14 tokens of 5,591 freed.
        cut = plan.cut
        asked_cut = cut if keep_from is None else min(cut, rounds.adjust_cut_backward(messages, keep_from))
        keep = 0
        if (prefer_incremental is not None and not instructions and cut > 1
                and is_compaction_message(messages[0])
                # A plan (or other context put back) changed since: kept, it would carry the old copy too.
                and not restore.outdated_in(self.restorer.attachments(), messages[:1])):
            # A record re-lists the records of the compaction message it starts with (summary.record_of):
            # kept instead, that message stays a cache hit and the record covers only what came
            # after it, with nothing lost. Priced like keeping it for a summary, with its records
            # counted among what a new message would send again: what keeping it holds beyond them
            # is the framing of every update appended to it, which a new record would drop. Kept
            # always, the framing grew with every compaction until the history right after one was
            # past the threshold, and every request compacted.
            record = plan.record
            carried = self.scaled(summary.carried_tokens(messages[0], self.limits.user_messages_budget))
            if prefer_record is not None and record is not None and prefer_record(
                    self.scaled(tokens.text_tokens(record))):
                listed = self.scaled(tokens.text_tokens("\n\n".join(summary.records_in(messages[0]))))
                keep = int(prefer_incremental(self.scaled(self.estimated(messages[:1])), carried + listed))
            elif asked_cut > 1 and prefer_incremental(self.scaled(self.estimated(messages[:1])), carried):
                keep = 1
        head, tail = messages[keep:cut], messages[cut:]
        text, strategy, dropped = None, "full", 0
        if prefer_record is not None and not instructions:
            record = record_cut.paying(shorten(plan.record if keep == 0 else summary.record_of(head)), prefer_record,
                                       paying_cap, lambda text: self.scaled(tokens.text_tokens(text)))
            if record is not None:  # whole, or its newest steps within a summary's size: no summary bought
                text, strategy = record, "record"
        if text is None and asked_cut != cut:
            cut = asked_cut
            keep = keep if cut > keep + 1 else 0  # kept, the message would leave nothing to summarise
            head, tail = messages[keep:cut], messages[cut:]
        if text is None and keep == 0 and keep_from is None and (no := self.cannot_shrink(messages, before, overhead)):
            raise no  # asked for, the summary would be paid for and thrown away
        if text is None:
            sent = summary_input if summary_input is not None else messages  # the prefix last sent: a cache hit
            prompt = summary_prompt.compact_prompt(instructions, "from" if keep else "full", self.wording)
            shown = len(messages) if keep_from is None else keep_from  # what `sent` covers
            reply, dropped = await summarize_fitting(sent, prompt, summarize, self.summary_room(overhead, prompt),
                                                     max(0, shown - cut), self.learned_room(overhead, prompt),
                                                     self.typed_left_out, kept_before=keep)
            text = summary_prompt.extract_summary(reply)
        weak, refused = None, NotSmaller("")  # the result that came closest to `short_of`'s aim; the last refusal
        while True:
            try:
                made = self._finish(messages, head, messages[:keep], tail, text, trigger, strategy,
                                    before, overhead, watch, dropped, incremental=bool(keep))
                if short_of is None or (short := short_of(made)) <= 0:
                    return made
                # Freeing little, it kept a tail a shorter one would summarise (a /compact right
                # after one: 39 tokens of 4,354): a shorter tail, else the one that came closest.
                weak = (short, made) if weak is None or short < weak[0] else weak
            except NotSmaller as e:
                if keep and strategy == "record" and (whole := summary.record_of(messages[:cut])) is not None:
                    # Beside the kept message, the update's own framing did not fit (a window the
                    # system prompt nearly fills): one record of it all, as without the kept message.
                    keep, head, text = 0, messages[:cut], whole
                    continue
                refused = e
            # The summary covers everything; keep a shorter tail with it (the thrash guard's
            # steps), rather than fail a compaction whose tail held most of the history.
            new_cut, shorter = cut, None  # from the level `_finish` left (0): each one that keeps a shorter tail
            while self.escalation < 2 and (shorter is None or new_cut <= cut and short_of is not None):
                self.escalation += 1
                shorter = self.preview(messages, overhead)
                new_cut = shorter.start
            if strategy == "record" and shorter is not None and new_cut > cut:  # a record covers its head exactly
                text = shorten(shorter.record if keep == 0 else summary.record_of(messages[keep:new_cut]))
            if new_cut <= cut or text is None or (strategy != "record" and keep_from is not None
                                                  and new_cut > keep_from):  # past what the summary saw
                if weak is not None:
                    return weak[1]
                raise refused
            cut, head, tail = new_cut, messages[keep:new_cut], messages[new_cut:]

    async def compact_partial(self, messages: list[ModelMessage], pivot: int, direction: str, *,
                              summarize: Summarize, archive: Callable[[], Path | None], instructions: str = "",
                              overhead: int = 0) -> CompactionResult:
        """`from`: keep messages[:pivot] (cache-friendly), summarise the rest but the answer it ends
        with (`answer_apart`); `up_to`: summarise messages[:pivot], keep the rest (that answer at least)."""
        watch = Stopwatch()
        before = self.scaled(self.estimated(messages) + overhead)
        keep_head, to_sum, tail = partial_split(messages, pivot, direction)
        sent = messages if direction == "from" else to_sum
        if not to_sum:
            raise CompactionError("nothing to summarise on that side of the message index")
        prompt = summary_prompt.compact_prompt(instructions, direction, self.wording)
        reply, dropped = await summarize_fitting(sent, prompt, summarize, self.summary_room(overhead, prompt),
                                                 learn=self.learned_room(overhead, prompt), quote=self.typed_left_out,
                                                 kept_before=len(keep_head))
        text = summary_prompt.extract_summary(reply)
        return archived(self._finish(messages, to_sum, keep_head, tail, text, "manual",
                                           f"partial_{direction}", before, overhead, watch, dropped), archive)

    def from_notes(self, messages: list[ModelMessage], notes: str, keep_from: int, *,
                   archive: Callable[[], Path | None], trigger: str, tokens_before: int, overhead: int = 0,
                   vet: Callable[[CompactionResult], None] | None = None) -> CompactionResult:
        """Session-memory compaction: the notes are the summary; no model call. `vet`: as `compact`'s."""
        watch = Stopwatch()
        keep_from = rounds.adjust_cut_backward(messages, keep_from)
        return archived(self._finish(messages, messages[:keep_from], [], messages[keep_from:], notes,
                                           trigger, "session_memory", tokens_before, overhead, watch, 0), archive, vet)

    def typed_left_out(self, left_out: Sequence[ModelMessage], most: int) -> str:
        """The block a summary request quotes what the user typed in the messages it `left_out` in (`cuts.Quote`):
        picked as the compaction message picks them, within `most` tokens and the user messages' budget."""
        if most <= 0 or not (texts := self.user_texts(left_out)):
            return ""
        return summary_prompt.typed_block(summary.pick_user_messages(texts, min(most, self.limits.user_messages_budget)))

    def _finish(self, messages: list[ModelMessage], summarized: Sequence[ModelMessage],
                keep_head: Sequence[ModelMessage], tail: Sequence[ModelMessage], text: str,
                trigger: str, strategy: str, before: int, overhead: int,
                watch: Stopwatch, dropped_rounds: int, incremental: bool = False) -> CompactionResult:
        """The compacted history, its archive not written yet: `_archived` writes it, once the
        compaction goes ahead, and has the summary message name it (`name_archive`)."""
        text = cut_replies.kept_in(text, summarized)  # a reply that did not finish is said as such
        users = summary.pick_user_messages(self.user_texts(summarized), self.limits.user_messages_budget)
        files = ledger.changed_files(messages, attempts=True, writers=self.file_tools)  # failed too, listed apart
        reads = ledger.read_files(summarized, after=tail, resolve=self.restorer.resolve,  # the tail's: not lost
                                  sent_whole=self.sent_whole(tail) if self.sent_whole is not None else None)
        if strategy == "record":  # its steps name each read (`path="…"`): listing those again says nothing
            reads = [p for p in reads if not digest.shows_whole(text, p)]
        since: dict[str, list[str]] = {}
        every: list[str] = []
        if incremental:  # the kept compaction message lists what came before; this one what came since
            listed = ledger.changed_files(keep_head, attempts=True, writers=self.file_tools)
            since = {p: a for p, a in files.items() if listed.get(p) != a}
            # The kept message's own metadata lists what it carries; a prompt merged into it stays
            # in it as it is (listing it again would show it twice).
            every = summary.users_since(keep_head[0], self.user_texts(summarized))
        level = self.escalation  # the kept images and results, and what is restored, follow it
        newest = newest_typed(summarized, tail, self.user_texts)  # the user's newest message, summarised
        reread: list[tuple[tuple[list[Path], int], list[ModelMessage]]] = []  # read once for both builds

        def build(archive_path: Path | None) -> tuple[list[ModelMessage], dict[str, Any], int, frozenset[str]]:
            """The new history naming `archive_path`, what it is made of, how many messages it restores
            and the call ids of the results in use it keeps (`CompactionResult.kept`)."""
            self.escalation = level
            images = [] if self.escalation else kept_images(  # keeping less: none
                summarized, tail, self.typed, self.base_tail(overhead),
                self.scaled(tokens.IMAGE_TOKENS))  # an eighth of the room, as the results in use

            def message(listed: Sequence[str], apart: bool = False) -> ModelRequest:
                """`listed`: the files read, not restored; `apart`: the newest typed message in one of its own."""
                named = user_messages.without(users, 0) if apart else users
                if incremental:  # what became of each file listed (`Restorer.state`), said after the restore
                    return with_images(summary.update_message(
                        text, archive_path, named, since, listed, all_users=user_messages.without(every, -1)
                        if apart else every, all_files=files, strategy=strategy,
                        archive_above=summary.archive_named(keep_head[0]), state=self.restorer.state), images)
                return with_images(summary.summary_message(text, archive_path, named, strategy, files, listed,
                                                           self.restorer.state), images)
            head_msg = message(reads)
            limits = self._restore_limits(self.scaled(self.estimated([*keep_head, head_msg, *tail]) + overhead))
            paths, _ = self.restorable(messages, [*keep_head, *tail], limits)
            shown = [p for p in reads if self.restorer.name(p) not in paths]  # not also one to "read again"
            self.drop_plan()  # it counted the files the read state held
            if not reread or reread[-1][0] != (paths, limits.restore_tokens_per_file):
                self.restorer.reset()
                reread.append(((paths, limits.restore_tokens_per_file), self.restorer.reread(
                    list(reversed(paths)), limits.restore_tokens_per_file) if paths else []))
            files_back, head_msg = reread[-1][1], message(shown)  # a file the restore left out is said
            attached = self.restorer.attachments()
            if incremental:
                attached = restore.new_attachments(attached, keep_head)
            room = self.results_room(self.scaled(self.estimated([*keep_head, head_msg, *files_back, *attached,
                                                                  *tail]) + overhead), before)
            whole = restore.whole(files_back, self.restorer.resolve)  # as the restorer read them
            results = self.kept_results(summarized, overhead, room, tail, whole)
            earlier, later = kept_before(results, summarized, newest)
            if earlier:  # kept from before the user's newest message: they go before it, as they came
                head_msg = message(shown, apart=True)
                results = [*earlier, ModelRequest(parts=[UserPromptPart(users[0])]), *later]
            others = [*attached, *results]
            kept = frozenset(p.tool_call_id for m in results for p in m.parts if isinstance(p, ToolReturnPart))
            self.escalation = 0
            head_msg = history_state.onto(head_msg, messages, [*keep_head, head_msg, *files_back, *others, *tail])
            new = join(keep_head, [head_msg], files_back, others, tail)
            # What the new history is made of, for a person deciding on it (a preview, a refusal).
            parts = {"summary": self.scaled(self.estimated([head_msg])),
                     "files": self.scaled(self.estimated(files_back)), "file_paths": [str(p) for p in paths],
                     "other": self.scaled(self.estimated(others)),
                     "verbatim": self.scaled(self.estimated([*keep_head, *tail])),
                     "verbatim_messages": len(keep_head) + len(tail), "head_messages": len(keep_head),
                     "fixed": self.scaled(overhead)}
            # What the next request sends: the results in use whole, a clearing of one lifted (measured
            # cleared, a compaction was reported and judged at 235 tokens, and sent 1,715).
            sent = self.scaled(self.estimated(new) + overhead) if self.sent_size is None else self.sent_size(new, kept)
            if sent >= before:  # what the next request sends: the tail's part too (a long result as its preview)
                shaped = self.scaled(self.estimated(new) + overhead) - sent  # what the layers leave out
                parts["verbatim"] = max(0, self.scaled(self.estimated([*keep_head, *tail])) - shaped)
                raise NotSmaller(f"compaction would not shrink the context ({before:,} → {sent:,} tokens)",
                                 before=before, after=sent, parts=parts)
            return new, parts, len(files_back) + len(others), kept

        named = summary.archive_named(messages[0]) if messages else None  # the copy before, if any
        unwritten = self._archived_as or (Path(named) if named else None)  # measured naming one like it
        new, parts, restored, kept = build(unwritten)
        calls, results = rounds.unpaired(new)
        calls -= rounds.unpaired(messages)[0]  # calls the history itself still waits on (deferred tools)
        if calls or results:
            raise CompactionError("compaction would part tool calls from their results "
                                  f"({', '.join(sorted(calls | results))}); the history was not rewritten")
        after = self.scaled(self.estimated(new) + overhead)
        ev = Event("compact", strategy, before, after, trigger=trigger, duration_ms=watch.ms(),
                   detail={"archive": None, "summarized": len(summarized),
                           "kept": len(tail) + len(keep_head), "restored": restored,
                           "dropped_rounds": dropped_rounds, "files_changed": len(ledger.render(files)),
                           "incremental": incremental, "parts": parts, **user_messages.told(users)})
        result = CompactionResult(new, trigger, strategy, before, after, None, text, len(summarized), ev, kept=kept)

        def name(path: Path | None) -> None:
            """The archive is written at `path`: the history is made again naming it, where it names
            another (its room measured again: what it restores may change). Only a path much longer
            than the one measured could then leave it no smaller (`NotSmaller`, its archive kept)."""
            self._archived_as = result.archive = path
            ev.detail["archive"] = str(path) if path else None
            if path != unwritten:
                result.messages, again, ev.detail["restored"], result.kept = build(path)
                parts.update(again)
                result.tokens_after = ev.tokens_after = self.scaled(self.estimated(result.messages) + overhead)
        result.name_archive = name
        return result
