"""`/rewind N` to a turn before a compaction whose archive is gone: the files go back but the
conversation cannot, so it still holds that message (in its summary, or kept whole). Its prompt is
then not put back in the input, and the line says so; it was, and Enter sent it a second time, while
the line said the summary "still tells of the messages undone"."""

from __future__ import annotations

import io
from collections.abc import Callable
from pathlib import Path

import pytest
from rich.console import Console

from tests.e2e.test_rewind_after_compaction import editor

from .repl_driver import Run, drive
from .test_rewind_files_not_restored import disk_full_for_the_rewind


async def rewound_without_its_archive(tmp_path: Path, also: Callable[[Path], None] = lambda hello: None
                                      ) -> tuple[Run, list[str], Path]:
    """hello.txt at "zero"; in the REPL `write one`, `write two`, `/compact`; the compaction's archive
    removed (and `also(hello.txt)` done) before `/rewind 1`, answered y; then the input cleared and
    Ctrl-D. The run (its line whole), what the input held at each prompt, and hello.txt."""
    hello = tmp_path / "project" / "hello.txt"
    hello.parent.mkdir()
    hello.write_text("zero\n")
    typed: list[str] = []

    def at_prompt() -> None:
        from compact_agent.ui.command_registry import current_repl

        keys = getattr(current_repl(), "keys", None)
        typed.append(keys.typed if keys is not None else "")
        if len(typed) == 4:  # written twice and compacted: the archive goes
            for archive in (tmp_path / "home").rglob("compact-history/*"):
                archive.unlink()
            also(hello)

    wide = Console(record=True, width=400, file=io.StringIO(), force_terminal=False)  # the line whole
    run = await drive(tmp_path, editor, ["write one\r", "write two\r", "/compact\r", "/rewind 1\r", "y", "\x15\x04"],
                      keys_answer=True, at_prompt=at_prompt, permission_mode="yes", console=wide)
    return run, typed, hello


async def test_a_rewind_that_could_not_take_the_conversation_back_leaves_the_input_empty(tmp_path: Path) -> None:
    run, typed, hello = await rewound_without_its_archive(tmp_path)
    out = " ".join(run.out.split())
    assert hello.read_text() == "one\n"
    assert typed[-1] == "", typed  # not back in the input (after the y/N answer): the conversation holds it
    assert ("rewound; restored 1 file; the conversation could not go back before the compaction (the transcript "
            "archived then, below, is missing): it stays as it is, and still holds that message and those after "
            "it, in its summary or kept whole; so the prompt is not put back in the input") in out, run.out
    assert "the prompt is back in the input" not in out


async def test_nor_does_one_whose_files_could_not_all_be_put_back(tmp_path: Path, monkeypatch: pytest.MonkeyPatch
                                                                  ) -> None:
    """The same rewind, putting the file back failing (the disk full as it is written): the
    conversation still holds the message all the same. The prompt came back in the input, and the
    line said the conversation went back."""

    run, typed, _ = await rewound_without_its_archive(tmp_path, lambda hello: disk_full_for_the_rewind(monkeypatch))
    out = " ".join(run.out.split())
    assert typed[-1] == "", typed
    assert ("/rewind 1: the session is saved, the conversation as far back as it could go (not before the "
            "compaction: it still holds that message), but putting the files back failed (No space left on device: "
            "hello.txt): some may be as they were, and /rewind 1 again puts them back; so the prompt is not put "
            "back in the input") in out, run.out
    assert "went back" not in out and "the prompt is back in the input" not in out
