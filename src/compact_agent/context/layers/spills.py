"""The tool-result budget's spill files: where each is, writing one, reading one back.

A result the budget (budget.py) replaces by a preview is saved whole, redacted, to
`spill_dir/<tool_call_id>.txt`, the file its preview names. `SpillFiles`, the base of
`ToolResultBudget`, holds everything that touches those files: the path of one; whether the file a
loaded decision names is ours (a state file is data, not a path to trust); writing one, or only
naming it in a scratch copy that decides without writing; the files gone missing since a restart,
written again from the full result the session kept the next time it is sent; the whole text read
back when a shorter preview is cut; and a saved copy of a result for the last resort (fit.py).
What to replace, and the previews, are budget.py's.

A result made of numbered lines (a file reader's) is saved without its numbers (`_copy`,
rereads.py): read back by a reader that numbers lines, the copy showed two columns of numbers. What
its numbers were is kept beside the decision ("numbered"), so the whole result is known again.

Identical results are stored once (`store`): the text is written to `spill_dir/.by-content/<sha256 of
its redacted bytes>.txt` and each result's own name is a hard link to it, so every path a preview,
a saved state or a line shown to the user names still reads its text, and a session that read the
same ten files a thousand times keeps ten texts, not 898 copies (11 MB). Where a hard link cannot be
made (a file system without them, a link limit), the result's name gets a copy of its own, as before,
and no shared copy is left beside it. A shared copy is reused only while it is private (0600, ours),
and written only in a folder that is private and no link to one elsewhere.
"""

from __future__ import annotations

import contextlib
import hashlib
import logging
import os
import stat
from pathlib import Path
from typing import Any

from pydantic_ai.messages import ToolReturnPart

from ..plumbing import secrets
from ..plumbing.markers import write_private
from ..plumbing.regular_file import OWN_FILE_CAP, read_capped
from .previews import spill_name, text_of
from .rereads import Numbered, copy_view

log = logging.getLogger(__name__)

#: The folder, in the spill folder, of the texts each result's file is a link to (by their hash). A
#: result's file name never starts with a dot (`spill_name`): no call id can name it.
BY_CONTENT = ".by-content"


def store(path: Path, text: str) -> None:
    """Write `text` (redacted, as every spill file is) at `path`, sharing the bytes of an identical
    text already spilled there: `path` is made a hard link to `BY_CONTENT/<sha256>.txt`, written
    first if it is not there (temp file, fsync, rename), and the link is put in place by a rename
    (a reader never sees `path` half there). Where no link can be made, `path` is written whole
    (and the shared copy removed, if this call wrote it). Raises OSError when neither can be written."""
    data = secrets.redact(text)
    path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)  # private, as `write_private` makes it
    blob = path.parent / BY_CONTENT / f"{hashlib.sha256(data.encode('utf-8')).hexdigest()}.txt"
    wrote = False
    try:
        _private_folder(blob.parent)
        if not _holds(blob, data):
            write_private(blob, data, "spill")
            wrote = True
        tmp = path.parent / f".{path.name}.{os.urandom(6).hex()}.tmp"
        os.link(blob, tmp)
        try:
            os.replace(tmp, path)
        finally:  # rename(2) does nothing when both names already link one file (the same text
            tmp.unlink(missing_ok=True)  # spilled again at its name): its temp link would stay
    except OSError as e:  # no hard links in this folder's file system, too many to one file, …
        log.debug("spilled tool result %s stored as a copy of its own: %s", path, e)
        if wrote:  # no link to it: the text would be on disk twice
            blob.unlink(missing_ok=True)
        write_private(path, data, "spill")


def _private_folder(folder: Path) -> None:
    """Make `folder` (0700) unless it is there; raise OSError unless it is then a folder itself (not a
    link to one elsewhere: the texts would stay there after the session is removed), ours and private."""
    with contextlib.suppress(FileExistsError):
        folder.mkdir(mode=0o700)
        os.chmod(folder, 0o700)  # whatever the umask took off
    st = os.lstat(folder)
    if not stat.S_ISDIR(st.st_mode) or stat.S_IMODE(st.st_mode) != 0o700 or st.st_uid != os.geteuid():
        raise OSError(f"{folder} is not a private folder of ours")


def _holds(blob: Path, data: str) -> bool:
    """Whether `blob` is a private regular file (0600, ours, as `write_private` makes it) holding
    exactly `data` (a text hashed to its name is compared whole all the same: a file changed by hand
    is written again, not shared; so is one whose mode was changed, which every link would share)."""
    raw = data.encode("utf-8")
    try:
        st = os.lstat(blob)
        if not stat.S_ISREG(st.st_mode) or stat.S_IMODE(st.st_mode) != 0o600 or st.st_uid != os.geteuid():
            return False
        return read_capped(blob, len(raw) + 1) == raw
    except OSError:  # missing, not a regular file, longer than `data`
        return False


class SpillFiles:
    """The spill files of a budget whose decisions are `replacements` (id -> the preview sent) and
    `actions` (id -> marker info; its "path" is the file written).

    `_missing`: ids spilled before a restart whose file is gone since; `_writes` is False in a
    scratch copy, whose spills wait in `_unwritten` (id -> (file, text)) until adopted.
    """

    replacements: dict[str, str]
    actions: dict[str, dict[str, Any]]

    def __init__(self, spill_dir: Path | None) -> None:
        self.spill_dir = spill_dir
        self._missing: set[str] = set()  # spilled before a restart, file gone since: re-spill when seen
        self._writes = True  # False in a scratch copy, which decides without writing a spill file
        self._unwritten: dict[str, tuple[Path, str]] = {}  # a scratch copy's spills: id -> (file, text)

    def _path(self, call_id: str) -> Path | None:
        return None if self.spill_dir is None else self.spill_dir / spill_name(call_id)

    def _own_spill(self, call_id: str) -> Path | None:
        """The spill file a loaded decision names, if it is ours (a state file is data, not a path to trust)."""
        path = self._path(call_id)
        recorded = (self.actions.get(call_id) or {}).get("path")
        return path if path is not None and recorded == str(path) else None

    def _find_missing(self) -> None:
        """After a load: the replaced results whose spill file is gone, each written again from the
        session the next time its result is sent; one warning says how many."""
        self._missing = set()
        for call_id in self.replacements:
            own = self._own_spill(call_id)
            if own is not None and not own.is_file():
                self._missing.add(call_id)
        if self._missing:
            n = len(self._missing)
            log.warning("%d spilled tool result %s missing from %s; %s written again from the session the next "
                        "time %s result is sent", n, "file is" if n == 1 else "files are", self.spill_dir,
                        "it is" if n == 1 else "each is", "its" if n == 1 else "each")

    @staticmethod
    def _copy(text: str) -> tuple[str, Numbered | None]:
        """What the spill file of `text` holds (redacted), and the numbered lines it was cut from."""
        return copy_view(secrets.redact(text))

    def _spill(self, call_id: str, path: Path, text: str) -> bool:
        """Write `text` to `path` (a scratch copy only names it); False, with a warning, when it cannot."""
        try:
            if self._writes:
                store(path, text)
            else:
                self._unwritten[call_id] = (path, text)
        except OSError as e:
            log.warning("could not spill tool result %s to %s: %s", call_id, path, e)
            return False
        return True

    def _write_named(self, twin: SpillFiles) -> None:
        """Write the spill files a scratch copy only named. A file that cannot be written is written
        again from the session the next time its result is sent, as one gone missing is."""
        for call_id, (path, text) in twin._unwritten.items():
            try:
                store(path, text)
            except OSError as e:
                log.warning("could not spill tool result %s to %s: %s", call_id, path, e)
                self._missing.add(call_id)

    def _respill(self, call_id: str, text: str | None) -> None:
        """Write a missing spill file again from the full result the session kept, `text` (same path,
        same preview, so the prompt does not change); `call_id`: a result's, or a tool's content's."""
        self._missing.discard(call_id)
        path = self._own_spill(call_id)
        if path is None or text is None or not self._writes:
            return
        try:
            store(path, self._copy(text)[0])
        except OSError as e:
            log.warning("could not write the spilled tool result %s again: %s", path, e)

    def _whole_text(self, call: str | ToolReturnPart, shown: str) -> str | None:
        """The whole text of a result a view may show as a preview: `shown` when it is not one,
        else what its spill file holds (a shorter preview is cut from the whole text, and the file
        keeps it: cut from the preview, it would overwrite the file with the preview). None when a
        preview's text was never saved and the file is not ours. `call`: a result, or the key of one
        or of a tool's content (tool_content.py `keyed_parts`)."""
        call_id = call if isinstance(call, str) else call.tool_call_id
        if call_id not in self.replacements:
            return shown
        path = self._own_spill(call_id)
        if path is None:
            return shown if self._path(call_id) is None else None  # nowhere to write: nothing to overwrite
        try:  # a regular file only: a FIFO in its place would wait for a writer forever
            copy = read_capped(path, OWN_FILE_CAP).decode("utf-8")
        except (OSError, UnicodeDecodeError):
            return None
        numbered = (self.actions.get(call_id) or {}).get("numbered")
        if numbered is None:
            return copy
        whole = Numbered.from_copy(numbered, copy)  # the numbers it was saved without
        return None if whole is None else whole.text()

    def saved_copy(self, part: ToolReturnPart) -> Path | None:
        """Where the whole text of `part` (as a view shows it) can be read back: its spill file, or
        one written now for a result shown whole. None without a spill folder, for a preview that
        was not saved, for images, or when the write fails. Nothing is frozen: the view is as before."""
        return self.saved_text(part.tool_call_id, text_of(part))

    def saved_text(self, call_id: str, text: str | None) -> Path | None:
        """`saved_copy` of a result, or of a tool's content, by its key (`call_id`) and its `text`."""
        if call_id in self.replacements:
            return self._own_spill(call_id)
        path = self._path(call_id)
        if path is None or text is None:
            return None
        try:
            store(path, self._copy(text)[0])  # redacted as every spill file is, numbered lines without numbers
        except OSError as e:
            log.warning("could not save tool result %s to %s: %s", call_id, path, e)
            return None
        return path
