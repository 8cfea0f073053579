"""Finding the transcripts under the paths given to `analyze`, without reading them.

People point the analyzer at a whole folder of history (all of `~/.claude/projects`), beside
READMEs, `.git`, broken links, pipes, and our own sessions' archives and side files. What is found
here is only listed (the workers read each file, batch.py); what is passed over gets one note,
and the notes of files that are plainly no transcript are summed in one line (`skip_lines`). Apart
from batch.py, which replays what is found: which files are read is a question of its own, with
its own odd cases (a file reached twice, a folder that cannot be listed, files whose bytes are the
same: each replayed, and named in a note, `copies_lines`).
"""

from __future__ import annotations

import errno
import hashlib
import os
from collections.abc import Sequence
from pathlib import Path
from typing import NamedTuple

from ..regular_file import read_capped
from ._words import plural


class FindError(ValueError):
    """A path given on the command line does not exist."""


class Found(NamedTuple):
    files: list[Path]  # candidate transcripts, to be read
    notes: list[str]  # one line per path skipped while searching (the archives in one line)
    skipped: int  # how many paths those notes skip: the progress bar starts its count from it


#: How the names of the transcripts the importers read end (importers.py).
TRANSCRIPT_SUFFIXES = (".json", ".jsonl", ".traj")
#: The history of a Cline task (`tasks/<id>/`), beside the task's other files (`cline_side_file`).
CLINE_HISTORY = "api_conversation_history.json"
#: How the conversations of a session of Cline's SDK are named (`sessions/<id>/<id>.messages.json`).
CLINE_SESSION = ".messages.json"
#: Of the files `skip_lines` sums in one line, the names it shows.
NAMES_SHOWN = 3
#: Notes of .json, .jsonl and .traj files that are no transcript: up to this many are said one a line.
MANY_SAID = 10
#: How the note on a transcript with no response ends (batch.load_or_note): a session that never
#: got an answer, of which a folder of one's own sessions holds one for each failed start.
NO_RESPONSES = ": no model responses to replay"
#: How the note on a zstd-compressed file (importers.ZSTD_NOTE: Codex's archived rollouts) goes on from its path.
ZSTD = ": zstd-compressed ("
#: `analyze -` when no file is named so: each transcript is read from its file by a worker, its format
#: told by its content, so a transcript on standard input is refused in one line, rather than taken
#: for a file named `-` that does not exist.
STDIN_REFUSED = ("analyze reads transcript files and folders, not standard input (-): save the transcript "
                 "to a file and name that file")


def find_files(paths: Sequence[Path]) -> Found:
    """Candidate transcript files under `paths` (folders recursively, hidden ones skipped), without
    reading them; our sessions' archives and side files are left out with one note, the files of a
    Cline task beside its history (or of a session of its SDK beside its conversations) without one. What is neither
    a file nor a folder (a broken link in a folder, a pipe or a device anywhere), a folder that
    cannot be read and a path named under a folder that cannot be searched are skipped with a note,
    as a file that is no transcript is (so is a file that cannot be read, once a worker opens it); a path given that
    does not exist is an error (a typo), `-` one saying standard input is not read. Each file is
    listed once, however often it is reached."""
    files: list[Path] = []
    notes: list[str] = []
    archives: set[str] = set()  # each once, however often reached (a folder named and linked to)
    for p in paths:
        try:
            kind = "folder" if p.is_dir() else "file" if p.is_file() else ""
        except OSError as e:  # under a folder that cannot be searched: skipped as a file that cannot be read
            notes.append(f"skipped {p}: {e.strerror or 'it cannot be read'}")
            continue
        if kind == "folder":
            for f in _walk(p, notes):
                if "compact-history" in f.relative_to(p).parts[:-1]:
                    archives.add(os.path.realpath(f))  # ours: replayed through the session file that names them
                elif not f.is_file():
                    notes.append(f"skipped {f}: {_not_a_file(f)}")
                elif not _our_side_file(f, p) and not cline_side_file(f):
                    files.append(f)
        elif kind == "file" and (history := cline_side_file(p)):
            notes.append(f"skipped {p}: one of Cline's files beside the {history}, which is read with it")
        elif kind == "file":
            files.append(p)
        elif p.exists():
            notes.append(f"skipped {p}: {_not_a_file(p)}")
        elif p.is_symlink():
            what = _not_a_file(p)
            raise FindError(f"no such file or directory: {p} is {what}" if what.startswith("a broken link")
                            else f"cannot read {p}: it is {what}")
        elif str(p) == "-":  # standard input's name to most tools; a file named so is read as any file
            raise FindError(STDIN_REFUSED)
        else:
            raise FindError(f"no such file or directory: {p}")
    skipped = len(notes) + len(archives)
    files = _once(files)
    if archives:
        notes.append(f"skipped {plural(len(archives), 'compaction archive')} in compact-history/: each session file is "
                     "replayed in full from them")
    return Found(files, notes, skipped)


def plainly_not(files: Sequence[Path], paths: Sequence[Path]) -> frozenset[Path]:
    """Of `files`, those found in a folder of `paths` whose name no transcript has (README.md,
    LICENSE, data.csv): read all the same, but said together when they are none (`skip_lines`)."""
    return frozenset(f for f in files if f not in paths and not f.name.endswith(TRANSCRIPT_SUFFIXES))


def skip_lines(notes: Sequence[str], plain: frozenset[Path]) -> list[str]:
    """The skip notes as printed: those of files found in a folder that are plainly no transcript
    (`plain`: a README, a LICENSE, CSV files beside the transcripts) summed in one line where the
    first was, `skipped 15 files that are not transcripts (README.md, LICENSE, a.csv, …)`; so are
    those of files named as a transcript could be (`TRANSCRIPT_SUFFIXES`) that are none, when there
    are more than MANY_SAID of them (a folder of a thousand package.json or settings files wrote a
    thousand lines), those of transcripts with no response (compact-agent's sessions that never got an
    answer), and those of zstd-compressed files (a Codex folder of archived rollouts); each other
    note on its own line. The notes themselves (the JSON output's
    `skipped`) stay one per file."""
    plain_notes = {f"skipped {p}: not a transcript": p.name for p in plain}
    named = {n: Path(n.removeprefix("skipped ").removesuffix(": not a transcript")).name for n in notes
             if n.endswith(": not a transcript") and n not in plain_notes}
    packed = {n: Path(n.removeprefix("skipped ").split(ZSTD, 1)[0]).name for n in notes if ZSTD in n}
    unanswered = {n: Path(n.removeprefix("skipped ").removesuffix(NO_RESPONSES)).name for n in notes
                  if n.endswith(NO_RESPONSES)}
    groups = [(plain_notes, "files that are not transcripts", "", 2),
              (named, ".json, .jsonl or .traj files that are not transcripts", "; --json lists each", MANY_SAID + 1),
              (unanswered, "transcripts with no model responses to replay", "; --json lists each", MANY_SAID + 1),
              (packed, "zstd-compressed files", "), which the analyzer does not read: decompress them first "
               "(zstd -d FILE", MANY_SAID + 1)]
    out = list(notes)
    for group, what, tail, least in groups:
        names = [group[n] for n in out if n in group]
        if len(names) < least:
            continue
        distinct = list(dict.fromkeys(names))  # two folders' README.md is said once
        shown = ", ".join(distinct[:NAMES_SHOWN]) + (", …" if len(distinct) > NAMES_SHOWN else "")
        first = next(i for i, n in enumerate(out) if n in group)
        out = [f"skipped {len(names):,} {what} ({shown}{tail})" if i == first else n
               for i, n in enumerate(out) if n not in group or i == first]
    return out


def _once(files: list[Path]) -> list[Path]:
    """Each file once, where it first came: a file named twice, or named beside the folder that
    holds it, or reached again through a link, was replayed twice and counted twice in the totals."""
    where: dict[Path, int] = {}
    out: list[Path] = []
    for f in files:
        try:
            key = f.resolve()
        except (OSError, RuntimeError):  # a loop of links: read (and skipped) as it is
            key = f
        if key not in where:
            where[key] = len(out)
            out.append(f)
        elif out[where[key]].is_symlink() and not f.is_symlink():
            out[where[key]] = f  # named by its own name rather than a link's
    return out


def _walk(root: Path, notes: list[str]) -> list[Path]:
    """Every path under `root` that is not a folder, sorted; hidden folders and files (.git, .venv)
    are left out: they hold no transcripts, only thousands of skip notes. A folder that cannot be
    listed gets a note in `notes` (rglob passed over it without a word). A link to a folder is
    searched as the folder it names (a history kept elsewhere and linked in was passed over without
    a word: "no transcripts found"), each folder once, so a link to a folder already searched (`.`,
    a parent) ends no loop."""
    def unreadable(e: OSError) -> None:
        notes.append(f"skipped {e.filename}: a folder that cannot be read ({e.strerror or 'read failed'})")

    searched = {os.path.realpath(root)}

    def first_time(folder: str) -> bool:
        real = os.path.realpath(folder)
        if real in searched:
            return False
        searched.add(real)
        return True

    found: list[Path] = []
    for folder, dirs, names in os.walk(root, onerror=unreadable, followlinks=True):
        dirs[:] = sorted(d for d in dirs if not d.startswith(".") and first_time(os.path.join(folder, d)))
        found += [Path(folder, n) for n in names if not n.startswith(".")]
    return sorted(found)


def _not_a_file(path: Path) -> str:
    """Why a path that is neither a regular file nor a folder is not read."""
    if path.is_symlink() and not path.exists():
        try:
            target = os.readlink(path)
        except OSError:
            return "a broken link"
        try:
            os.stat(path)
        except OSError as e:
            if e.errno == errno.ELOOP:  # a.jsonl -> b.jsonl -> a.jsonl: no file is missing, none is reached
                return f"a link into a loop of links (to {target}): it reaches no file"
        return f"a broken link (to {target})"
    # A FIFO, a socket or a device: reading it could wait for ever or never end.
    return "not a regular file or a folder (a pipe or a device: not read)"


def _our_side_file(f: Path, root: Path) -> bool:
    """A file in one of our sessions' side folders (`<id>/` beside `<id>.jsonl`: spills, notes, events),
    or one the sessions of a project share beside them: `sent_prompts/<id>.jsonl` (how each prompt
    was shown) and `prompt_history` (the REPL's up-arrow history)."""
    if f.parent.name == "sent_prompts" and f.parent != root and _our_session(f.parent.parent / f.name):
        return True
    if f.name == "prompt_history" and ((f.parent / "sent_prompts").is_dir()
                                       or any(_our_session(g) for g in f.parent.glob("*.jsonl"))):
        return True
    for parent in f.relative_to(root).parents:
        if parent == Path("."):
            break
        session = root / parent.with_name(parent.name + ".jsonl")
        if session.is_file():
            return _our_session(session)
    return False


def cline_side_file(f: Path) -> str:
    """Of what `f` is a side file, when it is one in a Cline task's folder other than its history
    (`ui_messages.json`, whose usage the history's import reads, `task_metadata.json`,
    `context_history.json`, `settings.json`, ...), or in the folder of a session of Cline's SDK
    (`sessions/<id>/`) other than a conversation (`<id>.messages.json`, and each subagent's): the
    session's manifest `<id>.json`, its compaction `<id>.compaction.json`, which the import reads;
    the task's or session's own bookkeeping, no transcript. Else ""."""
    if f.name != CLINE_HISTORY and (f.parent / CLINE_HISTORY).is_file():
        return f"task's {CLINE_HISTORY}"
    session = f.parent.name + CLINE_SESSION
    if not f.name.endswith(CLINE_SESSION) and (f.parent / session).is_file():
        return f"session's {session}"
    return ""


def _our_session(session: Path) -> bool:
    """`session` is a session file of ours, by its first line. Only a regular file is opened, without
    blocking (regular_file.py): a pipe named `*.jsonl` beside `sent_prompts/` or a `prompt_history`
    is no session of ours, and opening it to read would wait for a writer for ever."""
    try:
        head = read_capped(session, 4_096, truncate=True).split(b"\n", 1)[0]
    except OSError:  # missing, unreadable, or a pipe or a device (NotRegular)
        return False
    return b'"kind"' in head and b'"v"' in head


def copies_lines(files: Sequence[Path]) -> list[str]:
    """A note for each set of `files` whose bytes are identical (a transcript copied beside itself,
    `a.jsonl` and `b.jsonl`): each is replayed and counted, as any file named is, and the totals would
    count one session twice without a word. Only files of the same size are read, to their content's
    hash; the first MANY_SAID sets are named, the rest counted."""
    by_size: dict[int, list[Path]] = {}
    for f in files:
        try:
            by_size.setdefault(f.stat().st_size, []).append(f)
        except OSError:  # gone or unreadable since its replay: nothing to compare
            continue
    sets: dict[tuple[int, str], list[Path]] = {}
    for size, same in by_size.items():
        for f in same if len(same) > 1 else ():
            if (digest := _digest(f)) is not None:
                sets.setdefault((size, digest), []).append(f)
    found = [paths for paths in sets.values() if len(paths) > 1]
    lines = [f"note: {paths[0]} and {plural(len(paths) - 1, 'other file')} hold the same bytes "
             f"({', '.join(str(p) for p in paths[1:NAMES_SHOWN + 1])}{', …' if len(paths) > NAMES_SHOWN + 1 else ''}): "
             "each copy is replayed and counted in the totals" for paths in found[:MANY_SAID]]
    if len(found) > MANY_SAID:
        lines.append(f"note: {len(found) - MANY_SAID:,} more sets of files hold the same bytes, each copy counted")
    return lines


def _digest(path: Path) -> str | None:
    """The hash of the file's content, or None when it cannot be read now."""
    h = hashlib.blake2b(digest_size=20)
    try:
        with path.open("rb") as f:
            while chunk := f.read(1 << 20):
                h.update(chunk)
    except OSError:
        return None
    return h.hexdigest()
