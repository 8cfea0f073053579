"""What the user attaches by naming it in what they typed: `@path` (a file; `@"odd dir/x.txt"` or
`@odd\\ dir/x.txt` for a path with spaces, mention_syntax.py), and an image's path pasted as it is (a terminal puts a dropped file's path in the input: `/home/me/Screen\\ Shot.png`,
`'/tmp/shot 1.png'`, `./img/plot.png`).

Only the user's own words are looked at (never piped input nor `!cmd` output: a log line naming a
path is not the user asking). A text file gets no further than the model's own read_file: inside
the working directory, past no deny rule, not into compact-agent's own data. An image the user
names may be anywhere else (a screenshot lives on the desktop), but not under a deny rule nor in
compact-agent's data, and only a file whose first bytes say it is an image: a pasted path cannot
carry a text file out of its fence. One `Attachment` per name says what happens to it, so the REPL
says exactly what went with the message, including when the window is too small for a file and
layer 1 (the tool-result budget) will send the model a preview of it instead (`previewed`).
"""

from __future__ import annotations

import os
import re
import stat
from dataclasses import dataclass, replace
from pathlib import Path

from pydantic_ai.messages import ModelRequest, ToolReturnPart

from ...config import Settings
from ...context.layers.budget import ToolResultBudget
from ...context.plumbing.events import Budget
from ...words import plural
from ..safety.permissions import UNFOLLOWABLE, Permissions, resolve_path
from ..tools import images
from ..tools.base import MAX_LINE_CHARS, ToolEnv, ToolFailure
from ..tools.file_state import ReadFileState
from ..tools.files import view_text
from ..tools.text_encoding import UTF8, sniff_file
from ..tools.toolset import mention_messages
from .mention_syntax import mentions, spelled

_EXT = r"\.(?:png|jpe?g|gif|webp)"
#: A pasted image path: quoted (spaces allowed), or unquoted with `\ ` for spaces; not an @mention.
IMAGE_PATH_RE = re.compile(
    rf"""'([^'\n]+?{_EXT})'|"([^"\n]+?{_EXT})"|(?<![\w@/\\])(?!@)((?:[^\s'"\\]|\\.)+?{_EXT})(?!\w|\.\w)""",
    re.IGNORECASE)


@dataclass(frozen=True)
class Attachment:
    name: str  # as typed
    path: Path  # resolved
    attach: bool  # goes with the message
    image: bool
    line: str  # what the REPL says about it
    lines: int = 0  # a text file's line count


def _pasted(typed: str) -> list[str]:
    out = []
    for m in IMAGE_PATH_RE.finditer(typed):
        raw = m.group(1) or m.group(2) or m.group(3)
        if m.group(3) is not None:
            raw = re.sub(r"\\(.)", r"\1", raw).lstrip("([<")  # a shell-escaped path as terminals paste it
        out.append(raw.removeprefix("file://"))
    return out


def find(typed: str, cwd: Path, permissions: Permissions, *, sees_images: bool, max_bytes: int,
         settings: Settings, fenced: bool = False) -> list[Attachment]:
    """Everything `typed` names: `@path` mentions first, then pasted image paths, each once.
    `max_bytes` is the images' limit; a text file is read as read_file reads it with `settings`.
    `fenced`: the words are a file's (a custom command's), not the user's: an image attaches only
    inside the fence the model's reads keep to, as a text file does."""
    found: list[Attachment] = []
    seen: set[Path] = set()
    said = mentions(typed)
    names = [(m.name, True) for m in said]
    for m in said:  # a mention's own words are not also a pasted path
        typed = typed[:m.start] + " " * (m.end - m.start) + typed[m.end:]
    names += [(n, False) for n in _pasted(typed)]
    for name, mentioned in names:
        try:
            path = resolve_path(cwd, name)
            if mentioned and "\\" in name and not os.path.exists(path):  # `@src\main.py`, typed as on Windows
                forward = name.replace("\\", "/")
                if os.path.exists(alt := resolve_path(cwd, forward)):
                    name, path = forward, alt
        except (OSError, RuntimeError):  # a link that loops (a repository may hold one), a name too long
            if mentioned:
                found.append(Attachment(name, Path(cwd) / name, False, False,
                                        f"{spelled(name)}: not attached ({UNFOLLOWABLE})"))
            continue
        if path in seen:
            continue
        info = images.sniff(path) if _kind(path) == "file" else None
        if not mentioned and info is None:
            continue  # a word ending in .png that is not an image file: just a word
        seen.add(path)
        found.append(_judge(name, path, info, mentioned, permissions, sees_images, max_bytes, settings, fenced))
    return found


def _judge(name: str, path: Path, info: images.ImageInfo | None, mentioned: bool, permissions: Permissions,
           sees: bool, max_bytes: int, settings: Settings, fenced: bool = False) -> Attachment:
    shown = spelled(name) if mentioned else name
    if info is not None:
        judge = permissions.read_refusal if fenced else permissions.attach_refusal
        if (refusal := judge(path)) is not None:
            return Attachment(name, path, False, True, f"{shown}: not attached ({_why(refusal)})")
        if info.size > max_bytes:
            return Attachment(name, path, False, True, f"{shown} is a {info.describe()}: over the "
                              f"{max_bytes / 1_048_576:g} MB limit for images, not attached")
        if not sees:
            return Attachment(name, path, True, True, f"{shown} is a {info.describe()}: this model cannot see "
                              "images, so only that line goes with the message (set images = true if it can)")
        return Attachment(name, path, True, True, f"attached {name} ({info.describe()})")
    kind = _kind(path)
    if kind == "folder":
        return Attachment(name, path, False, False, f"{shown} is a folder: not attached (mention files)")
    if kind == "other":  # a FIFO (reading it waits for a writer), a device, a socket
        return Attachment(name, path, False, False, f"{shown} is not a regular file: not attached")
    if kind != "file":
        return Attachment(name, path, False, False, f"{shown}: no such file, not attached")
    if (refusal := permissions.read_refusal(path)) is not None:
        return Attachment(name, path, False, False, f"{shown}: not attached ({_why(refusal)})")
    return _text_file(name, shown, path, settings)


def _kind(path: Path) -> str:
    """'file', 'folder', 'other' (a FIFO, a device, a socket) or '' (nothing there). A name that
    cannot be a file's (over 255 bytes: ENAMETOOLONG) is nothing there: `Path.is_file` raised for
    it, and a prompt naming one ended in a traceback, the message never sent."""
    try:
        mode = os.stat(path).st_mode
    except (OSError, ValueError):  # ValueError: a NUL in the name
        return ""
    return "file" if stat.S_ISREG(mode) else "folder" if stat.S_ISDIR(mode) else "other"


def _text_file(name: str, shown: str, path: Path, settings: Settings) -> Attachment:
    """A text file goes as read_file shows it, said with the lines the model gets: all of them, or
    which of how many when read_file's line or character cap stops short (its own notice gives
    the model the same numbers), with any line cut and an encoding that is not UTF-8. One
    read_file would refuse (a binary file, one over the read limit, one it cannot read) is not
    attached, and the line says why: the model would get only read_file's refusal, which no
    "attached" line may stand for."""
    def refused(why: str) -> Attachment:
        return Attachment(name, path, False, False, f"{shown}: not attached ({why})")

    limit = settings.read_max_bytes
    try:
        size = path.stat().st_size
        if sniff_file(path) is None:
            return refused(f"a binary file, {plural(size, 'byte', grouped=True)}")
        if size > limit:
            return refused(f"{size:,} bytes, over the {limit:,}-byte read limit; the model can read "
                           "a slice of it or grep it")
        view = view_text(settings, path, name)
    except OSError as e:
        return refused(f"cannot be read: {e.strerror or 'read failed'}")
    if isinstance(view.text, ToolFailure):  # a byte-order mark the bytes after it do not follow
        return refused(view.text.removeprefix(f"{name} ").removesuffix("; not shown."))
    if not view.total:
        return Attachment(name, path, True, False, f"attached {name} (empty)")
    if view.partial:
        said = f"lines {view.start:,}–{view.end:,} of {view.total:,}"
    else:
        said = f"{view.total:,} line{'s' if view.total != 1 else ''}"
    if view.cut:
        said += f", {view.cut:,} cut at {MAX_LINE_CHARS:,} characters"
    if view.encoding != UTF8:
        said += f", {view.encoding.label}"
    return Attachment(name, path, True, False, f"attached {name} ({said})", view.total)


def previewed(found: list[Attachment], env: ToolEnv, layer: ToolResultBudget | None, budget: Budget) -> list[Attachment]:
    """`found`, with the line of each text file the tool-result budget (`layer`, with `budget`: the
    window and what every request carries) will send as a preview rather than whole said so:
    `attached big.txt (a preview, the window is small: lines 1–40 and 771–800 of 800)`. The files
    are read as the turn will read them (without recording the reads) and judged by a fresh copy
    of the layer, so the line and the request agree."""
    texts = [a for a in found if a.attach and not a.image]
    if layer is None or not texts:
        return found
    scratch = replace(env, read_state=ReadFileState(), on_change=None)
    try:
        messages = mention_messages(scratch, [a.path for a in texts])
    except OSError:  # the turn says what went wrong when it reads the file itself
        return found
    judge = ToolResultBudget(layer.settings, None)
    judge.apply(messages, budget)
    returns = [p for m in messages if isinstance(m, ModelRequest) for p in m.parts if isinstance(p, ToolReturnPart)]
    cut = {a.path: p.content for a, p in zip(texts, returns, strict=True)
           if p.tool_call_id in judge.replacements and isinstance(p.content, str)}
    chars = layer.settings.tool_result_preview_chars
    return [replace(a, line=f"attached {a.name} ({_preview(cut[a.path], chars, a.lines)})") if a.path in cut else a
            for a in found]


_NUMBERED = re.compile(r"^ *(\d+)\t", re.M)


def _preview(text: str, chars: int, total: int) -> str:
    """Which lines of read_file's `text` (numbered lines) a preview of `chars` characters shows
    whole: its head and its tail (previews.build_preview)."""
    head_n = chars // 2
    head, tail = text[:head_n], text[len(text) - (chars - head_n):]
    first = _NUMBERED.findall(head[: head.rfind("\n") + 1])
    last = _NUMBERED.findall(tail[tail.find("\n") + 1:] if "\n" in tail else "")
    said = "a preview, the window is small: "
    if not first or not last or not total:
        return said + f"its first {len(head):,} and last {len(tail):,} of {len(text):,} characters"
    return said + f"lines {int(first[0]):,}–{int(first[-1]):,} and {int(last[0]):,}–{int(last[-1]):,} of {total:,}"


def _why(refusal: str) -> str:
    """A refusal without its `permission denied: <the absolute path>` head, the path's words said
    of `it` (`it is outside the working directory …`, `it matches deny rule '.env'`)."""
    return "it " + refusal.removeprefix("permission denied: ").split(" ", 1)[-1].split(";")[0]
