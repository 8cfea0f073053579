"""`/rewind N`'s question in a project moved or renamed since an earlier version saved its
checkpoints: the files that version named by the project's old path are left as they are (where
they go in the project now is not known), and the question says so, as the line after the answer
does. It named them only after the answer."""

from __future__ import annotations

import io
from pathlib import Path

from rich.console import Console

from tests.agent.test_rewind_moved_project import as_an_earlier_version_wrote_it, moved, written_twice
from tests.e2e.test_rewind_after_compaction import editor
from tests.fakes.openai_server import FakeOpenAIServer

from .repl_driver import drive
from .test_command_edges import clean


async def test_the_question_names_the_files_an_earlier_version_saved_by_the_old_path(tmp_path: Path) -> None:
    old, here = tmp_path / "src" / "app", tmp_path / "work"
    new, home = here / "project", here / "home"
    with FakeOpenAIServer(editor) as server:
        _, listed = await written_twice(old, server, home)
        as_an_earlier_version_wrote_it(listed)
        moved(old, new, home)
        wide = Console(record=True, width=600, file=io.StringIO(), force_terminal=False)  # each line whole
        run = await drive(here, editor, ["/rewind 1\r", "y", "\x15\x04"], server=server, keys_answer=True,
                          permission_mode="yes", continue_last=True, console=wide)
    clean(run.out)
    out = " ".join(run.out.split())
    left = (f"left as it is: an earlier version saved it by the path the project had before it was moved or "
            f"renamed, and where it goes in the project now is not known: {old.resolve() / 'hello.txt'}")
    assert f"the plan of those turns too; {left} [y/N] y" in out, out
    assert f"rewound; no files restored; the prompt is back in the input to edit 1 file {left}" in out, out
    assert (new / "hello.txt").read_text() == "two\n" and not old.exists()
