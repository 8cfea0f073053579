"""Replaying many transcripts with memory flat in their number.

People point the analyzer at their whole history (all of `~/.claude/projects`, gigabytes). So the
parent never loads a transcript: it lists the files (finding.py), and each worker loads one,
replays it through every strategy and sends back only the figures (`TranscriptRun` with the
transcript's messages dropped). At any moment at most one transcript per worker is in memory.
Files are handed out biggest first so a large one does not finish last alone. A run that takes more than a couple of
seconds shows a progress bar on stderr (when it is a terminal): files done / total, how many of
them were skipped (those the search passed over, as a broken link, and those that are not
transcripts: as many as the notes name), elapsed.
"""

from __future__ import annotations

import asyncio
import dataclasses
import functools
import os
import shutil
import signal
import sys
import time
from collections.abc import Callable, Sequence
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path
from typing import Any

from ..models import model_info
from ._common import BadField, malformed_words
from ._words import plural
from .baselines import factories
from .finding import NO_RESPONSES
from .given_prices import Figures, price_list
from .given_settings import applied
from .importers import Transcript, TranscriptError, load_transcript
from .ours import LIVE_ROOTS
from .simulate import Summarize, TranscriptRun, replay_all
from .standin import ModelFailed, WatchedModel, standin_summarize

PROGRESS_AFTER_S = 2.0
#: The errors a field of the wrong kind causes in an importer: the file is skipped with one note.
DAMAGE = (KeyError, TypeError, ValueError, AttributeError, IndexError)
#: A file whose import went deeper than Python's stack allows: skipped, as a damaged one is.
TOO_DEEP = "nested too deeply for the analyzer to read"
#: A file that loaded and whose replay failed: an error in the analyzer, not in the file (exit status 1).
INTERNAL = "the analyzer failed on it, an error of the analyzer rather than of the file"


@dataclasses.dataclass(frozen=True)
class Skipped:
    """A file not replayed: the one-line note saying why (`skipped PATH: why`), and whether the why
    is an error of the analyzer (`ours`: the run ends in exit status 1) rather than of the file."""

    note: str
    ours: bool = False


def where(e: BaseException) -> str:
    """Where in our code `e` was raised (`ledger.py:58`), for the report of a bug: the innermost frame
    in compact_agent, not the library's (json's `__init__.py:339`) it called."""
    import traceback

    ours = str(Path(__file__).resolve().parent.parent)
    frames = traceback.extract_tb(e.__traceback__)
    inside = [f for f in frames if str(Path(f.filename).resolve()).startswith(ours)] or frames
    return f"at {Path(inside[-1].filename).name}:{inside[-1].lineno}" if inside else "at an unknown place"


def load_or_note(path: Path) -> Transcript | str:
    """The transcript, or the one-line note saying why the file is skipped."""
    try:
        t = load_transcript(path)
    except TranscriptError as e:
        reason = str(e).split(": ", 1)[-1]
        return f"skipped {path}: {'not a transcript' if reason.startswith('unknown') else reason}"
    except RecursionError:  # a structure deeper than the stack: this file alone, not the whole run
        return f"skipped {path}: {TOO_DEEP}"
    except DAMAGE as e:  # what a field of the wrong kind causes (an entry's own is skipped alone, _common.py)
        said = f" ({malformed_words(e)})" if isinstance(e, (KeyError, BadField)) else ""
        return f"skipped {path}: a field has a type or value the importer cannot use{said}"
    if not any(m.kind == "response" for m in t.messages):
        return f"skipped {path}{NO_RESPONSES}"
    return t


def light(run: TranscriptRun) -> TranscriptRun:
    """The figures without the messages: what the report needs, a few KB whatever the transcript's size."""
    return dataclasses.replace(run, transcript=dataclasses.replace(run.transcript, messages=[],
                                                                   harness_texts=frozenset()))


@dataclasses.dataclass(frozen=True)
class Replaying:
    """How every file of a run is replayed, one plain value the worker processes are handed (pickled):
    the strategies by name, the window, the named price list (`--pricing`), and the values `--set`
    gave ours (given_settings.parse) and `--prices` gave the price list (given_prices.parse_given)."""

    names: tuple[str, ...]
    window: int
    pricing: str
    settings: dict[str, Any] | None = None
    figures: Figures | None = None


async def _replay(path: Path, how: Replaying, summarize: Summarize | None) -> TranscriptRun | Skipped:
    loaded = load_or_note(path)
    if isinstance(loaded, str):
        return Skipped(loaded)
    price = price_list(how.pricing, how.figures)  # `--prices`: the named list's provider, the given figures
    info = model_info(price.name, window=how.window)
    # The stand-in lists what the person typed, not what the transcript's format marks as its harness's.
    summarize_by = summarize or functools.partial(standin_summarize, harness=loaded.harness_texts)
    try:
        run = await replay_all(loaded, applied(factories(list(how.names)), how.settings), window=how.window,
                               summarize=summarize_by,
                               max_output=info.max_output, provider=price.provider, cache_ttl_s=price.cache_ttl_s,
                               model=getattr(summarize, "model", None), prices=price if how.figures else None)
    except Exception as e:
        if summarize is not None:  # a provider error from --model: it would fail every file alike, say it once
            if (failed := model_failure(summarize)) is not None:
                raise failed from None
            raise
        # The importers hand on only what the replay reads (_common.checked): what fails now is ours.
        return Skipped(f"skipped {path}: {INTERNAL} ({where(e)}); please report it, with the file if you can", ours=True)
    if (failed := model_failure(summarize)) is not None:  # the strategies went on without its summaries
        raise failed
    return light(run)


class Summaries:
    """The `--model` summarizer, watched: the endpoint's failures are kept by its model (standin's
    WatchedModel); this keeps what its replies were worth. A strategy takes an empty or unusable reply
    for a failed compaction and goes on, right for a model that now and then answers badly, and wrong
    for one that never writes a summary (a model that is not made for chat, a server that answers every
    request with a page that is no API reply): the figures would rest on summaries never written, and the
    user would not learn why. So the analysis stops once no reply was usable (at the latest after
    GIVE_UP such replies), and otherwise says how many were not (`note`)."""

    GIVE_UP = 3

    def __init__(self, summarize: Summarize, name: str, url: str, key_from: str) -> None:
        self.inner, self.name, self.url, self.key_from = summarize, name, url, key_from
        self.model = getattr(summarize, "model", None)  # the strategies' own requests go to it too
        self.calls = self.usable = 0
        self.unusable: list[BaseException | str] = []  # the error, or "an empty reply"

    @property
    def useless(self) -> bool:
        """Not one usable reply yet, and enough of the other kind to say so."""
        return not self.usable and len(self.unusable) >= self.GIVE_UP

    async def __call__(self, messages: list[Any], prompt: str) -> str:
        from pydantic_ai.exceptions import UnexpectedModelBehavior

        if self.useless:
            raise ModelFailed("the summary model gave no usable summary earlier in this analysis")
        self.calls += 1
        try:
            text = await self.inner(messages, prompt)
        except UnexpectedModelBehavior as e:  # the model's (or the endpoint's) answer, not the strategy's doing
            self.unusable.append(e)
            raise
        if text.strip():
            self.usable += 1
        else:
            self.unusable.append("an empty reply")
        return text

    def failure(self) -> ModelFailed | None:
        """The one-line error that stops the analysis, or None: the endpoint failed, or no reply was usable."""
        from ..error_text import unusable_model

        model = self.model
        if isinstance(model, WatchedModel) and model.failure is not None:
            return ModelFailed(f"summary calls through --model {self.name} failed, so the analysis stopped: "
                               f"{unusable_model(model.failure, url=self.url, key_from=self.key_from)}")
        if self.usable or not self.unusable:
            return None
        first = self.unusable[0]
        if not isinstance(first, str) and str(first).startswith("Invalid response"):  # no API reply at all
            reason = unusable_model(first, url=self.url, key_from=self.key_from)
        else:
            reason = (f"the model{self._at()} answered {plural(len(self.unusable), 'summary request')} with "
                      f"{self._what(first)} and none with a summary; use a chat model that follows instructions, "
                      "or leave out --model for the deterministic stand-in")
        return ModelFailed(f"summary calls through --model {self.name} gave no usable summary, so the analysis "
                           f"stopped: {reason}")

    def note(self) -> str | None:
        """How many replies were not usable, when some were (those compactions count as failed)."""
        if not self.unusable or not self.usable:
            return None
        return (f"note: {len(self.unusable)} of {plural(self.calls, 'summary call')} through --model {self.name} "
                f"gave no usable summary (the first: {self._what(self.unusable[0])}); the figures count those "
                "compactions as failed")

    def _at(self) -> str:
        from .. import secrets

        return f" at {secrets.shown_url(self.url)}" if self.url else ""

    @staticmethod
    def _what(reply: BaseException | str) -> str:
        from .. import secrets
        from ..error_text import first_line

        return reply if isinstance(reply, str) else f"something unusable ({secrets.redact(first_line(reply))})"


def model_failure(summarize: Summarize | None) -> ModelFailed | None:
    """Why the `--model` summaries cannot be used (Summaries.failure), or None."""
    from .standin import model_failure as endpoint_failure

    return summarize.failure() if isinstance(summarize, Summaries) else endpoint_failure(summarize)


def _replay_in_worker(path: Path, how: Replaying) -> TranscriptRun | Skipped:
    """One transcript in a worker process (stand-in summaries)."""
    return asyncio.run(_replay(path, how, None))


class Progress:
    """`replaying files done/total · N skipped, elapsed` on stderr once a run passes PROGRESS_AFTER_S,
    if stderr is a terminal. The total is of files found: which are transcripts is known only once
    each is read, so the skipped ones are counted apart. `skipped`: the paths the search skipped
    (find_files), done and skipped from the start."""

    def __init__(self, total: int, clock: Callable[[], float] = time.monotonic, stream: Any = None,
                 skipped: int = 0) -> None:
        self.total, self.done, self.skipped, self.clock = total + skipped, skipped, skipped, clock
        self.stream = stream if stream is not None else sys.stderr
        self.start = clock()
        self.bar: Any = None
        self.enabled = getattr(self.stream, "isatty", lambda: False)()

    def advance(self, skipped: bool = False) -> None:
        self.done += 1
        self.skipped += skipped
        self.tick()

    def tick(self) -> None:
        if not self.enabled or self.clock() - self.start < PROGRESS_AFTER_S:
            return
        if self.bar is None:
            from rich.console import Console
            from rich.progress import BarColumn, MofNCompleteColumn, TextColumn
            from rich.progress import Progress as Bar

            # Elapsed is the run's, from our clock: the bar itself only appears after a few seconds.
            self.bar = Bar(TextColumn("replaying files"), BarColumn(), MofNCompleteColumn(),
                           TextColumn("{task.fields[skipped]}{task.fields[elapsed]}"), console=Console(file=self.stream),
                           transient=True)
            self.bar.start()
            self.task = self.bar.add_task("replay", total=self.total, elapsed="", skipped="")
        elapsed = int(self.clock() - self.start)
        skipped = f"{self.skipped} skipped · " if self.skipped else ""
        self.bar.update(self.task, completed=self.done, skipped=skipped,
                        elapsed=f"{elapsed // 60}:{elapsed % 60:02d} elapsed")

    def close(self) -> None:
        if self.bar is not None:
            self.bar.stop()


async def replay_files(files: Sequence[Path], names: list[str], *, window: int, pricing: str,
                       summarize: Summarize | None = None, workers: int | None = None, skipped: int = 0,
                       settings: dict[str, Any] | None = None, figures: Figures | None = None
                       ) -> list[TranscriptRun | Skipped]:
    """Every file replayed through the named strategies, in the files' order: a run, or why it was skipped.
    `skipped`: how many paths the search skipped, for the progress bar's count; `settings`: the values
    `--set` gave ours (given_settings.parse); `figures`: the `--prices` values (given_prices.parse_given)."""
    how = Replaying(tuple(names), window, pricing, settings, figures)
    workers = max(1, min(len(files), workers or os.cpu_count() or 1))
    progress = Progress(len(files), skipped=skipped)
    results: list[TranscriptRun | Skipped | None] = [None] * len(files)
    try:
        if summarize is not None:
            for i, f in enumerate(files):  # a real model (--model): in this process, its requests awaited
                results[i] = await _replay(f, how, summarize)
                progress.advance(isinstance(results[i], Skipped))
        elif files:
            await _in_workers(files, how, workers, results, progress)
    finally:
        progress.close()
    return [r for r in results if r is not None]


async def _in_workers(files: Sequence[Path], how: Replaying, workers: int, results: list[TranscriptRun | Skipped | None],
                      progress: Progress) -> None:
    """The stand-in is deterministic and the transcripts independent: replay them side by side, in
    worker processes (one too, on one core: a replay that computes for seconds without awaiting
    anything can be stopped only there). Ctrl-C stops the run at once (`_stop_now`)."""
    loop = asyncio.get_running_loop()
    biggest_first = sorted(range(len(files)), key=lambda i: -_size(files[i]))
    pool = ProcessPoolExecutor(workers, initializer=_leave_interrupts_to_the_parent)
    jobs: dict[asyncio.Future[TranscriptRun | Skipped], int] = {}
    try:
        jobs = {loop.run_in_executor(pool, _replay_in_worker, files[i], how): i
                for i in biggest_first}
        pending = set(jobs)
        while pending:
            done, pending = await asyncio.wait(pending, timeout=0.5, return_when=asyncio.FIRST_COMPLETED)
            for job in done:
                results[jobs[job]] = job.result()
                progress.advance(isinstance(results[jobs[job]], Skipped))
            progress.tick()
    except BaseException:  # Ctrl-C (asyncio cancels this task on it), or an error that ends the run
        for job in jobs:
            job.cancel()  # nothing waits for their results now: no "exception never retrieved" at exit
        _stop_now(pool)
        raise
    pool.shutdown()


def _leave_interrupts_to_the_parent() -> None:
    """In a worker: ignore Ctrl-C (the terminal sends it to every process of the group). A worker
    that took it ended only its current transcript and went on to the next one queued; the parent
    ends the workers instead (`_stop_now`), and one so ended removes its replays' folders first
    (`_ended`): SIGTERM's own action left them in the temp dir."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGTERM, _ended)


def _ended(signum: int, frame: object) -> None:
    for root in list(LIVE_ROOTS):
        shutil.rmtree(root, ignore_errors=True)
    os._exit(128 + signum)


def _stop_now(pool: ProcessPoolExecutor) -> None:
    """End the workers where they are and drop the transcripts still queued. Leaving the pool as a
    `with` block does waits for every queued transcript: Ctrl-C on a folder took 20-30 s to end.
    Once its workers are gone the pool's own thread ends at once; it is waited for here, not at
    the interpreter's exit, where it raced the exit's wake-up call ('Bad file descriptor')."""
    workers = list((getattr(pool, "_processes", None) or {}).values())  # no public handle before Python 3.14
    for worker in workers:
        worker.terminate()
    pool.shutdown(wait=True, cancel_futures=True)


def _size(path: Path) -> int:
    try:
        return path.stat().st_size
    except OSError:
        return 0
