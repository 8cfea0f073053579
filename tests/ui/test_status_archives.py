"""`/status` says the space the session's archives take: each compaction (and each rewind) copies the
whole transcript to `compact-history/` first, and nothing removes them by itself (a 1,500-turn
session left 26 archives, 12 MB), so the row says what they weigh and what removes them. A session
with none has no such row."""

from __future__ import annotations

from compact_agent.session.files import size_text
from tests.e2e.test_rewind_after_compaction import editor
from tests.fakes.openai_server import FakeOpenAIServer

from .test_commands_terminal import session
from .test_status_compactions_after_rewind import status


async def test_status_says_what_the_archives_take(tmp_path):
    (tmp_path / "project").mkdir()
    with FakeOpenAIServer(editor) as server:
        s = session(tmp_path, server, permission_mode="yes")
        try:
            for q in ("write one", "write two"):
                await s.run_turn(q)
            before = await status(s)
            await s.compact()
            for q in ("write three", "write four", "write five"):
                await s.run_turn(q)
            await s.compact()
            said = await status(s)
            sizes = sum(p.stat().st_size for p in s.store.archives())
        finally:
            s.close()
    assert "archives" not in before.replace("compaction archive", ""), before
    assert (f"archives {size_text(sizes)} in 2 archived transcripts, kept until the session is removed "
            "(compact-agent sessions --delete ID)") in said, said
