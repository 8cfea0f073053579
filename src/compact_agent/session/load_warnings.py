"""What a load of a session file tells the user: one warning, each kind of problem said once.

The load counts what it skipped, fixed, moved or repaired (`LoadProblems`); `warning` says it in
one line under the file's name: 'skipped 2 unreadable lines; put 1 out-of-order line back in order'.
"""

from __future__ import annotations

import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..words import plural
from .archive_paths import ARCHIVES
from .last_run import AFTER_START, AT_APPROVAL, BY_USER, signal_words


@dataclass
class LoadProblems:
    """What one load of a session file found; all zero (and `repaired` empty) for a clean file."""

    bad: int = 0  # lines that are no entry (torn, binary, over the size cap, unreadable)
    read: int = 0  # the entries read, the process's own unsent prompt aside
    fixed: int = 0  # lines whose lone surrogate escapes were replaced
    long_kept: int = 0  # integers too long for Python to read, kept as their digits (lines.parsed)
    long_left: int = 0  # …or left out, where only a number fits (loading.as_read)
    dup: int = 0
    unknown: int = 0  # lines of a kind no version knows
    moved: int = 0  # lines put back in parent order
    newer: int = 0  # lines a newer version wrote, read as far as understood
    newer_unknown: int = 0  # lines of a kind a newer version added
    unanswered: int = 0  # the user's messages no reply of the model follows
    never_sent: bool = False  # one of them a run saved and died before sending
    answer_lost: bool = False  # the last of them (or the tool results it ends at) answered, the answer not saved
    calls_lost: list[str] = field(default_factory=list)  # …or the tools of the calls that ran for it, not saved
    at_work: bool = False  # the history ends at tool results the model never answered
    stopped: bool = False  # the user stopped the turn that left it unanswered or at work (last_run.py)
    limit: int = 0  # not the user: its limit of model requests, this many, stopped it (last_run.AT_LIMIT)
    ended_by: str = ""  # the signal that ended the run while the model's tools ran, or the user (BY_USER) who
    # stopped its turn then, as the results saved with the calls say (last_run.py)
    unfinished: list[str] = field(default_factory=list)  # the tools of the calls it ended before they finished
    signalled: str = ""  # the signal that ended the run while its request was out, as its mark (or close) says
    mid_reply: bool = False  # …while the reply was being written: the part that came is kept, cut off there
    error: str = ""  # the cause, in a few words, of the error the turn that left it unanswered or at work ended on
    repaired: str = ""  # what making the history runnable changed
    short: str = ""  # the file holds less than its rewrites and archives say (`cut_short`), said first

    def warnings(self, name: str) -> list[str]:
        """The one warning of the load of the file `name`, or none."""
        problems = [self.short] if self.short else []
        if self.bad and not self.read:  # random bytes, not a session a crash tore: no line of it is an entry
            problems.append(f"not a session file: none of its {plural(self.bad, 'line')} can be read "
                            "(skipped: the conversation starts empty)")
        elif self.bad:
            problems.append(f"skipped {plural(self.bad, 'unreadable line')}")
        if self.fixed:
            problems.append(f"replaced invalid characters (lone surrogates) in {plural(self.fixed, 'line')} "
                            "with U+FFFD")
        if self.long_kept or self.long_left:
            problems.append(_long_numbers(self.long_kept, self.long_left))
        if self.dup:
            problems.append(f"skipped {plural(self.dup, 'duplicated line')}")
        if self.unknown:
            problems.append(f"skipped {plural(self.unknown, 'line')} of an unknown kind")
        if self.moved:
            problems.append(f"put {plural(self.moved, 'out-of-order line')} back in order")
        if self.newer or self.newer_unknown:
            problems.append(_newer_lines(self.newer, self.newer_unknown))
        if self.unanswered and not self.stopped and self.answer_lost:  # answered, the answer not saved
            problems.append(_answer_lost(self.unanswered))
        elif self.unanswered and not self.stopped and self.calls_lost:  # tools ran for it, not saved
            problems.append(_calls_lost(self.unanswered, self.calls_lost))
        elif self.unanswered and not self.stopped and not self.signalled and self.error:  # the run said why
            problems.append(f"{plural(self.unanswered, 'message')} you typed got no answer: the last run ended on an "
                            f"error ({self.error}); {'it is' if self.unanswered == 1 else 'they are'} in the "
                            "conversation, unanswered")
        elif self.unanswered and not self.stopped and not self.signalled:  # a message the run never sent, or one whose answer never came
            what = "had not reached the model when the last run ended" if self.never_sent else \
                "got no answer saved before the last run ended"  # a full disk may have kept even its mark out
            problems.append(f"{plural(self.unanswered, 'message')} you typed {what}: "
                            f"{'it is' if self.unanswered == 1 else 'they are'} in the conversation, unanswered")
        if self.at_work and not self.stopped and not self.ended_by and self.answer_lost:  # answered, not saved
            problems.append("the model answered the results of its tool calls, but the last run could not save the "
                            "answer (it was shown then): the conversation ends at those results, and your next "
                            "message goes on from there")
        elif self.at_work and not self.stopped and not self.ended_by and not self.signalled and self.error:
            problems.append(f"the last run ended on an error after the model's tool calls ran ({self.error}): your "
                            "next message goes on from there")
        elif self.at_work and not self.stopped and not self.ended_by and not self.signalled:
            problems.append("the last run stopped after the model's tool calls, before it answered their results "
                            "(interrupted, killed or out of turns): your next message goes on from there")
        if self.repaired:
            problems.append(self.repaired)
        return [f"{name}: " + "; ".join(problems)] if problems else []


    def notes(self) -> list[str]:
        """What the load says that is no problem: the last turn was stopped by the user, or by its
        limit of model requests, or a signal ended the run while the model's tools ran or while its
        request was out (one line)."""
        if self.signalled and self.mid_reply:  # the part shown kept, marked (last_run.cut_by_signal)
            return [f"the last turn was stopped by {signal_words(self.signalled)} while the model's answer was being "
                    "written: the part that came is kept, marked as cut off; your next message goes on from there"]
        if self.signalled:  # the turn closed as it ended (last_run.closed_by_signal): no warning
            return [f"the last turn was stopped by {signal_words(self.signalled)} before the model answered: "
                    "your next message goes on from there"]
        if self.ended_by and self.at_work:  # as the results saved with the calls say
            what = calls_ended(self.unfinished)
            who = "the last turn was stopped by you" if self.ended_by == BY_USER else \
                f"the last run was ended by {self.ended_by}"
            return [f"{who} while the model's tool calls ran: {what}, as their saved results say; your next "
                    "message goes on from there"]
        if not self.stopped:
            return []
        if self.limit:
            return [f"the last turn stopped at its limit of {plural(self.limit, 'model request')} per turn, "
                    "after the model's tool calls ran: your next message goes on from there"]
        if self.unanswered:
            return ["the last turn was stopped by you before an answer: your message is in the conversation, "
                    "unanswered"]
        return ["the last turn was stopped by you while the model was at work: your next message goes on from there"]


def calls_ended(unfinished: list[str]) -> str:
    """What became of the model's tool calls when the run ended or the turn was stopped while they
    ran, `unfinished` the tools of those that had not finished (`last_run.ended_by`): 'bash did not
    finish (its command, if it had started, was killed with the processes it started)', 'bash was
    stopped at its approval question and its command did not run', or 'they had finished'."""
    waiting = [t for t in unfinished if t.endswith(AT_APPROVAL)]
    started = [t for t in unfinished if t.endswith(AFTER_START)]
    running = [t.removesuffix(AFTER_START) for t in unfinished if not t.endswith(AT_APPROVAL)]
    said: list[str] = []
    if running:
        what = f"{', '.join(dict.fromkeys(running))} did not finish"
        if started and len(started) == running.count("bash"):
            what += " (its command was killed with the processes it started)"
        elif "bash" in running:
            what += " (its command, if it had started, was killed with the processes it started)"
        said.append(what)
    if waiting:
        said.append(f"bash was stopped{AT_APPROVAL} and its command did not run")
    return "; ".join(said) or "they had finished"


def _answer_lost(unanswered: int) -> str:
    """The user's last message was answered, and the run could not save the answer (it showed it)."""
    if unanswered == 1:
        return ("1 message you typed was answered, but the last run could not save the model's answer (it was "
                "shown then): the conversation holds your message without it")
    return (f"{unanswered} messages you typed have no answer saved: the last run could not save the model's answer "
            "to the last of them (it was shown then); the conversation holds them without it")


def _calls_lost(unanswered: int, tools: list[str]) -> str:
    """The model's tool calls for the user's last message ran, and the run could not save them or
    their results (a full disk): what they changed may be in place, which the conversation does not say."""
    n = len(tools)
    them, names = ("them" if n > 1 else "it"), f"({', '.join(dict.fromkeys(tools))})"
    ran = (f"which ran, and the last run could not save {'them or their results' if n > 1 else 'it or its result'}, "
           "so files may have changed since")
    if unanswered == 1:
        return (f"1 message you typed got no answer saved: the model made {plural(n, 'tool call')} for it {names}, "
                f"{ran}: the conversation holds your message without {them}, and the model is told so")
    return (f"{unanswered} messages you typed have no answer saved; for the last of them the model made "
            f"{plural(n, 'tool call')} {names}, {ran}: the conversation holds them without {them}, and the model is "
            "told so")


def _newer_lines(read: int, skipped: int) -> str:
    """The lines a newer version wrote, in one statement: `read` were read as far as understood,
    `skipped` were of a kind this version does not know (a line of a new kind was said twice, as
    if two: 'skipped 1 line(s) of an unknown kind; 1 line(s) were written by a newer …')."""
    by, kinds = "written by a newer compact-agent", "a kind" if skipped == 1 else "kinds"
    if not read:
        return f"skipped {plural(skipped, 'line')} {by}, of {kinds} this version does not know"
    understood = "as far as it is understood" if read == 1 else "as far as they are understood"
    said = f"{plural(read + skipped, 'line')} {'was' if read + skipped == 1 else 'were'} {by}: "
    if not skipped:
        return f"{said}read {understood}"
    other = "the other" if read == 1 else f"the other {read}"
    return f"{said}skipped {skipped} of {kinds} this version does not know, read {other} {understood}"


def cut_short(path: Path, entries: list[dict[str, Any]]) -> str:
    """What a load of session file `path` says first when the file holds less than its rewrites and
    archives say it did (emptied, cut short, its head cut off), naming the newest archive, from which
    the conversation can be taken back; "" otherwise. `entries`: its entries as read, in order (a
    prompt this process saved before the load left out).

    A rewrite (a compaction, a rewind) archives the file, then writes it again, its boundary first
    with how many messages it wrote (`answered.KEY`'s `written`), and later turns only append. So a
    file beside an archive of it begins with a boundary, or is the file archived (a run killed
    before the rewrite: it begins as the archive does), and never holds fewer messages than its
    boundary wrote. A file emptied or cut short resumed as a near-empty conversation, said only by
    the checkpoints whose turns were gone, as if a branch had dropped them."""
    from .answered import KEY
    from .archives import session_archives
    from .lines import readable_entries

    if path.parent.name == ARCHIVES:  # an archive: none beside it, its boundary said below still holds
        archives: list[Path] = []
    else:
        archives = session_archives(path.parent / ARCHIVES, path.stem)
    head = entries[0] if entries else None
    what = ""
    if head is not None and head.get("kind") == "boundary":
        note = head.get("boundary", {}).get(KEY) if isinstance(head.get("boundary"), dict) else None
        written = note.get("written") if isinstance(note, dict) else None
        held = sum(1 for e in entries if e.get("kind") == "message")
        if isinstance(written, int) and not isinstance(written, bool) and held < written:
            what = f"it holds {plural(held, 'message')}, fewer than the {written:,} its last rewrite wrote"
    elif archives:
        first = next(iter(readable_entries(archives[-1])), None) if archives[-1].is_file() else None
        if head is None:
            what = "it is empty"
        elif first is None or first.get("id") != head.get("id"):
            what = "it does not begin with the record of its last rewrite, as its archives say it does: its start was cut off"
    if not what:
        return ""
    which = "its archive" if len(archives) == 1 else f"the newest of its {len(archives)} archives"
    newest = f"; {which}, {archives[-1]}, holds the conversation as its last compaction or rewind found it" \
        if archives else ""
    return f"{what}{newest}"


def _long_numbers(kept: int, left: int) -> str:
    """What a load did with the integers too long for Python to read (lines.parsed): kept as text,
    or left out where only a number fits; the rest of each entry read either way."""
    limit = f"{sys.get_int_max_str_digits():,}"
    if not kept:
        return f"left out {plural(left, 'number')} of over {limit} digits (too long to read) where only a number fits"
    also = f", and left out {left} where only a number fits" if left else ""
    return f"kept {plural(kept, 'number')} of over {limit} digits (too long to read as such) as text, digit for digit{also}"
