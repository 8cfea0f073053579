"""`/rewind` when the session pruned the oldest versions of its files (checkpoint_retention.py): the
list says which turns lost theirs, and a rewind to one says which files stay as they are, on a line
of its own, rather than restoring a later version or failing."""

from __future__ import annotations

from tests.e2e.test_rewind_after_compaction import editor, session
from tests.fakes.openai_server import FakeOpenAIServer

from .test_command_edges import clean, show


async def test_rewind_names_the_files_whose_versions_were_pruned(tmp_path):
    with FakeOpenAIServer(editor) as server:
        s = session(tmp_path, server)
        try:
            s.checkpoints.max_bytes = 6  # 'zero\n', 'one\n', 'two\n': room for one version
            hello = s.cwd / "hello.txt"
            hello.write_text("zero\n")
            for word in ("one", "two", "three"):
                await s.run_turn(f"write {word}")
            listed = await show(s, "/rewind")
            assert "0 › write one (version of 1 file pruned)" in listed, listed
            assert "1 › write two (version of 1 file pruned)" in listed, listed
            assert "2 › write three (1 file to restore)" in listed, listed
            out = await show(s, "/rewind 1")
            clean(out)
            assert out == ("rewound; no files restored 1 file changed since could not be put back: the session keeps "
                           "the newest 6 bytes of the files' versions and those were older, so it stays as now: "
                           "hello.txt"), out
            assert hello.read_text() == "three\n"
        finally:
            s.close()
