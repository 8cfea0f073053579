"""The tools the model works with (their names: `names.TOOL_NAMES`), as one pydantic-ai toolset.

Every tool returns a string, errors included: a traceback wastes context and teaches the model
nothing, a one-line reason lets it fix the call. Results are bounded (line and character caps,
match caps) so one careless call cannot flood the window; each cap says how to get the rest.

The tools themselves live beside this module: files.py (read), edits.py (write, edit), search.py
(grep, glob) and shell.py (bash), on base.py's shared pieces; this module gives each its name,
signature and description, and never_raises.py wraps it so none raises. Slow work (reading, searching) runs in a thread and bash in an asyncio subprocess, so the
event loop (the UI's spinner, cancellation) never stalls. `mention_messages` is reused to inline
`@path` mentions (run/attachments.py finds them) and to restore files after compaction.
"""

from __future__ import annotations

import asyncio
import hashlib
import os
import re
import stat
import threading
from collections.abc import Awaitable, Callable
from dataclasses import replace
from pathlib import Path
from typing import Any, cast

from pydantic_ai import RunContext, Tool
from pydantic_ai.messages import (
    ModelMessage,
    ModelRequest,
    ModelResponse,
    ToolCallPart,
    ToolReturnPart,
)
from pydantic_ai.tools import GenerateToolJsonSchema, ToolDefinition
from pydantic_ai.toolsets import FunctionToolset
from pydantic_core import core_schema

from ...context.compaction.ledger import GONE
from ...context.plumbing.markers import WHOLE
from ..safety.permissions import resolve_path
from .base import ToolEnv, ToolFailure, _shown, tool_text
from .edits import edit_file_impl, write_file_impl
from .files import read_file_text, read_image
from .never_raises import Result, never_raises
from .search import glob_impl, grep_impl
from .shell import bash_impl

READ_TEXT = "Read a text file; lines come numbered like `cat -n`. Read a file before editing it."
READ_IMAGES = f"{READ_TEXT} A PNG, JPEG, GIF or WEBP image comes as the image itself."
"""read_file's description for a model that takes images; a text-only model is told READ_TEXT."""


class OmittableSchema(GenerateToolJsonSchema):
    """Tool parameters as the model reads them: an optional `x: T | None = None` is advertised as a
    plain `T` left out of `required` (leave it out for the default), not `anyOf [T, null]` with
    `default: null`. The common shape of function schemas, and about 50 characters less per such
    parameter on every request; the arguments are still validated against the signature, so an
    explicit null is accepted as before."""

    def default_schema(self, schema: core_schema.WithDefaultSchema) -> dict[str, Any]:
        inner = schema["schema"]
        if "default" in schema and schema["default"] is None and inner["type"] == "nullable":
            # The "type" test is what makes it a NullableSchema; pyright does not always narrow
            # pydantic-core's recursive schema union by it.
            nullable = cast(core_schema.NullableSchema, inner)
            return self.generate_inner(nullable["schema"])
        return super().default_schema(schema)


def build_toolset(env: ToolEnv) -> FunctionToolset[Any]:
    """The tools of `names.TOOL_NAMES` as a pydantic-ai toolset, closing over `env`."""

    async def read_file(path: str, offset: int | None = None, limit: int | None = None) -> Result:
        """Read a file: READ_IMAGES or READ_TEXT, as `described` picks for the model.

        Args:
            path: File path, relative to the working directory or absolute.
            offset: 1-based line to start at, for long files (counted from the start: never negative).
            limit: Number of lines to read (default: the first 2000).
        """
        image = await asyncio.to_thread(read_image, env, path)
        if image is not None:
            return image
        return await asyncio.to_thread(read_file_text, env, path, offset, limit)

    async def write_file(path: str, content: str) -> str:
        """Create a file or replace its whole content. Overwriting needs a prior read_file; prefer edit_file for changes.

        Args:
            path: File path, relative to the working directory or absolute; parent dirs are created.
            content: The complete new file content.
        """
        return write_file_impl(env, path, content)

    async def edit_file(path: str, old_string: str, new_string: str, replace_all: bool = False) -> str:
        """Replace an exact string in a file read earlier. old_string must match exactly once (give surrounding lines) unless replace_all.

        Args:
            path: File path, relative to the working directory or absolute.
            old_string: Exact text to replace, whitespace included, without line-number prefixes.
            new_string: Replacement text.
            replace_all: Replace every occurrence instead of requiring a unique match.
        """
        return edit_file_impl(env, path, old_string, new_string, replace_all)

    async def bash(command: str, timeout: float | None = None) -> str:
        """Run a shell command with bash in the working directory; returns combined stdout/stderr and the exit code. No stdin.

        Args:
            command: The command line to run.
            timeout: Seconds before the command and its children are killed (default 120, max 600).
        """
        return await bash_impl(env, command, timeout)

    async def grep(pattern: str, path: str | None = None, glob: str | None = None) -> str:
        """Search file contents with a Python regex; prints `path:line:text` for each match.

        Args:
            pattern: Regular expression (Python `re` syntax).
            path: File or directory to search (default: the working directory).
            glob: Only search files matching this glob, e.g. `*.py` or `src/**/*.ts`.
        """
        stop = threading.Event()  # an interrupted turn stops the search between lines
        try:
            return await asyncio.to_thread(grep_impl, env, pattern, path, glob, stop)
        finally:
            stop.set()

    async def glob(pattern: str, path: str | None = None) -> str:
        """Find files by name pattern (`**` spans directories, e.g. `**/*.py`), newest first.

        Args:
            pattern: Glob pattern relative to path.
            path: Directory to search in (default: the working directory).
        """
        stop = threading.Event()  # an interrupted turn stops the walk
        try:
            return await asyncio.to_thread(glob_impl, env, pattern, path, stop)
        finally:
            stop.set()

    async def described(ctx: RunContext[Any], tool_def: ToolDefinition) -> ToolDefinition:
        """read_file as the current model needs it: the images it can open only for a model that
        takes them (a model switch may change that); a text-only model reading one gets a line."""
        return replace(tool_def, description=READ_IMAGES if env.images else READ_TEXT)

    said = env.permissions.said_instead
    # Described as `described` tells it at each request, so a size counted before any (fixed_tokens) is that one's.
    read = Tool(never_raises(read_file, said), prepare=described, description=READ_IMAGES if env.images else READ_TEXT,
                schema_generator=OmittableSchema)
    # A new tool goes last here (and last in names.TOOL_NAMES): never_raises wraps each of these.
    tools: list[Callable[..., Awaitable[Result]]] = [write_file, edit_file, bash, grep, glob]
    return FunctionToolset([read, *(never_raises(t, said) for t in tools)], schema_generator=OmittableSchema)


def mention_messages(
    env: ToolEnv,
    paths: list[Path],
    max_tokens_per_file: int | None = None,
    *,
    kind: str = "mention",
    salt: str = "",
    confined: bool = True,
    left_out: dict[Path, str] | None = None,
) -> list[ModelMessage]:
    """One synthetic read_file call/return exchange carrying every mentioned file, recorded as read.

    Files enter the context as if the model had read them, so later edits pass the read guard and
    compaction can tell them apart by metadata. Ids are deterministic for cache stability; pass a
    `salt` (e.g. the turn number) when the same file may be mentioned again, since providers reject
    repeated tool call ids. `kind` names the source ("mention", "restore") in ids and metadata.
    `confined=False` only for paths the caller checked: see `read_file_text`.

    `left_out` (a compaction's restore, `Restoring`): a file that cannot be shown is left out, not
    sent as a read that failed, and why is put there in a few words; one over the read limit comes
    back as its first lines (`read_default_lines`), cut to `max_tokens_per_file` as a long file is,
    where its read failed whole; and one changed on disk since the model's tools last read or wrote it
    says so first (the copy is the file as it is now, which the model had not seen).
    """
    if not paths:
        return []
    meta = {"compact_agent": {"synthetic": kind}}
    # A restore's copy of a whole file says so: the compaction keeps no read of it beside it (restore.py `whole`).
    whole = {"compact_agent": {"synthetic": kind, WHOLE: True}} if max_tokens_per_file else meta
    calls: list[ToolCallPart] = []
    returns: list[ToolReturnPart] = []
    for n, path in enumerate(paths):
        p = resolve_path(env.cwd, path)
        rel = _shown(env, p)
        changed = left_out is not None and p in env.read_state and not env.read_state.is_current(p)
        raw: str = ""
        try:
            image = read_image(env, p, confined=confined)
            if not isinstance(image, list):
                raw = image if image is not None else read_file_text(env, p, *_head_of(env, p, left_out),
                                                                     confined=confined)
        except OSError as e:  # a file that cannot be opened (its mode, a folder not to be entered)
            if left_out is None:
                raise
            image, raw = None, ToolFailure(f"{rel} cannot be read ({e.strerror or e}).")
        if isinstance(image, list):  # the image itself (the model takes images)
            digest = hashlib.sha256(f"{salt}\0{rel}\0".encode() + _image_bytes(image)).hexdigest()[:12]
            call_id = f"{kind}_{n}_{digest}"
            calls.append(ToolCallPart("read_file", {"path": rel}, tool_call_id=call_id))
            returns.append(ToolReturnPart("read_file", [tool_text(x) if isinstance(x, str) else x for x in image],
                                          tool_call_id=call_id, metadata=whole))
            continue
        if left_out is not None and isinstance(raw, ToolFailure):
            left_out[p] = _why(str(raw), rel)
            continue
        content = (f"[{rel} changed on disk since you last read or edited it]\n" if changed else "") + tool_text(raw)
        cap = max_tokens_per_file * 4 if max_tokens_per_file else None
        cut = cap is not None and len(content) > cap
        # Whole: not cut here, nor a refusal, nor a part of the file (read_file's line and size caps).
        held = image is None and not cut and not isinstance(raw, ToolFailure) and not getattr(
            env.read_state.get(p), "partial", True)
        if cut:
            kept = content[: content.rfind("\n", 0, cap) + 1 or cap]
            last = re.findall(r"^\s*(\d+)\t", kept, re.M)
            next_line = int(last[-1]) + 1 if last else 1
            content = (
                kept
                + f"[truncated to ~{max_tokens_per_file} tokens; read the rest with read_file(path={rel!r}, offset={next_line})]"
            )
            if (entry := env.read_state.get(p)) is not None:
                env.read_state.record(p, entry.mtime_ns, True, offset=entry.offset, limit=next_line - 1)
        digest = hashlib.sha256(f"{salt}\0{rel}\0{content}".encode()).hexdigest()[:12]
        call_id = f"{kind}_{n}_{digest}"
        calls.append(ToolCallPart("read_file", {"path": rel}, tool_call_id=call_id))
        returns.append(ToolReturnPart("read_file", content, tool_call_id=call_id, metadata=whole if held else meta))
    if not calls:
        return []
    return [ModelResponse(parts=calls, metadata=meta), ModelRequest(parts=returns, metadata=meta)]


class Restoring:
    """The files a compaction restores, read again as the agent reads them (`Restorer.reread`), and
    what became of each file the compaction lists as changed (`Restorer.state`): `a.py (edited)`
    stayed listed so after the user deleted it or put a folder, a FIFO or a link in its place, and
    the restore left it out unsaid; a file the restore could not show came back as a read that failed."""

    def __init__(self, env: ToolEnv) -> None:
        self.env = env
        self.left_out: dict[Path, str] = {}  # of the latest restore: the files it could not show, why

    def reread(self, paths: list[Path], max_tokens_per_file: int, salt: str) -> list[ModelMessage]:
        self.left_out = {}
        return mention_messages(self.env, paths, max_tokens_per_file, kind="restore", salt=salt,
                                left_out=self.left_out)

    def state(self, path: str) -> str | None:
        """What the file the model named `path` is now, where it is no longer a regular file there (its
        last name itself: a link is said, not followed), or why the latest restore left it out."""
        named = Path(path)
        try:
            where = resolve_path(self.env.cwd, named.parent) / named.name
            why = self.left_out.get(resolve_path(self.env.cwd, named)) if self.left_out else None
            st = os.lstat(where)
        except (FileNotFoundError, NotADirectoryError):
            return GONE
        except (OSError, ValueError):
            return None
        if stat.S_ISLNK(st.st_mode):
            now = f"now a link to {_link_target(where)}"
        elif stat.S_ISDIR(st.st_mode):
            now = "now a folder"
        elif not stat.S_ISREG(st.st_mode):
            now = "now a FIFO" if stat.S_ISFIFO(st.st_mode) else "now no regular file"
        else:
            now = None
        if why is None:
            return now
        return f"{now}, not restored" if now else f"not restored: {why}"


def _link_target(where: Path) -> str:
    try:
        return os.readlink(where)
    except OSError:
        return "a path that cannot be read"


def _head_of(env: ToolEnv, p: Path, left_out: dict[Path, str] | None) -> tuple[int | None, int | None]:
    """The offset and limit a restore reads `p` with: its first lines where it is over the read limit,
    which read whole fails (a restore is cut to its per-file budget anyway); else the whole file."""
    try:
        over = left_out is not None and p.stat().st_size > env.settings.read_max_bytes
    except OSError:
        over = False
    return (1, env.settings.read_default_lines) if over else (None, None)


def _why(failure: str, rel: str) -> str:
    """A failed read's reason in a few words: `a.py is a binary file (9 bytes); not shown.` is
    `a binary file (9 bytes)`; a reason that does not start with the file's name, whole to its end."""
    text = failure.removeprefix(f"{rel} ").removeprefix("is ").strip()
    return text.split(";")[0].removesuffix(".").strip() or "it cannot be read"


def _image_bytes(content: list[Any]) -> bytes:
    return b"".join(getattr(x, "data", b"") for x in content)
