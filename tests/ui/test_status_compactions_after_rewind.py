"""`/status` said `compactions 3 in the whole session (3 since this run began)` after a `/rewind` to
before all three had undone them (the trial's m2): the count is of those made, as `/history` lists
them, not of those the conversation now holds. After a rewind it now says so."""

from __future__ import annotations

import io

from rich.console import Console

from compact_agent.agent.run.rewinding import rewind
from compact_agent.ui.commands import dispatch
from tests.e2e.test_rewind_after_compaction import editor
from tests.fakes.openai_server import FakeOpenAIServer

from .test_commands_terminal import session


async def status(s) -> str:
    c = Console(width=200, record=True, file=io.StringIO(), force_terminal=False)
    await dispatch(s, "/status", c)
    return " ".join(c.export_text(styles=False).split())


async def test_status_says_its_count_takes_in_the_compactions_a_rewind_undid(tmp_path):
    (tmp_path / "project").mkdir()
    (tmp_path / "project" / "hello.txt").write_text("zero\n")
    with FakeOpenAIServer(editor) as server:
        s = session(tmp_path, server, permission_mode="yes")
        try:
            for q in ("write one", "write two"):
                await s.run_turn(q)
            await s.compact()
            assert "compactions 1 in the whole session (1 since this run began)" in await status(s)
            assert "the compaction is undone" in rewind(s, 1).conversation
            said = await status(s)
        finally:
            s.close()
    assert "compactions 1 in the whole session, counting any a /rewind undid (1 since this run began)" in said, said
