"""`/rewind N` whose files cannot all be put back (the disk full as they are written) still takes the
conversation back, saved; its prompt now comes back in the input to edit, as after a rewind that
restored everything, and the one line says so. The input was left empty, the prompt gone with the
turns undone, and the line quoted the error as Python prints it: "([Errno 21] Is a directory:
'/…/project/.hello.txt.9b523c2a.tmp' -> '/…/project/hello.txt')"."""

from __future__ import annotations

import errno
import io
from pathlib import Path

import pytest
from rich.console import Console

from compact_agent.agent.tools import file_state
from tests.e2e.test_rewind_after_compaction import editor

from .repl_driver import drive


def disk_full_for_the_rewind(monkeypatch: pytest.MonkeyPatch) -> None:
    """The files a rewind puts back cannot be written from now on (a full disk)."""
    def full(path: Path, data: bytes, mode: int | None = None, **how: object) -> None:
        raise OSError(errno.ENOSPC, "No space left on device", str(path))

    monkeypatch.setattr(file_state, "atomic_write_bytes", full)


async def test_a_rewind_whose_files_cannot_be_put_back_gives_the_prompt_back_and_says_so(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    hello = tmp_path / "project" / "hello.txt"
    hello.parent.mkdir()
    hello.write_text("zero\n")
    shown: list[str] = []

    def at_prompt() -> None:
        from compact_agent.ui.command_registry import current_repl

        keys = getattr(current_repl(), "keys", None)
        shown.append(keys.typed if keys is not None else "")
        if len(shown) == 3:  # both turns written: the restored file cannot be written
            disk_full_for_the_rewind(monkeypatch)

    wide = Console(record=True, width=400, file=io.StringIO(), force_terminal=False)  # the line whole
    run = await drive(tmp_path, editor, ["write one\r", "write two\r", "/rewind 1\r", "\x03"], answers="y\n",
                      at_prompt=at_prompt, permission_mode="yes", console=wide)
    assert shown[3] == "write two", shown  # back in the input, as after a rewind that restored all
    said = [line for line in run.out.splitlines() if "/rewind 1: " in line]
    assert said and said[0].endswith(
        "/rewind 1: the conversation went back and the session is saved, but putting the files back failed "
        "(No space left on device: hello.txt): some may be as they were, and /rewind 1 again puts them back; "
        "the prompt is back in the input to edit"), run.out
    assert "Errno" not in run.out and ".tmp" not in run.out
