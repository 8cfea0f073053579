"""`/memory` right after `/init` wrote an AGENTS.md: instruction files are read when a session
starts, so the new file is named as written since then and read by new sessions; it said "no
instruction files loaded … /init writes one"."""

from __future__ import annotations

import io

from rich.console import Console

from compact_agent.ui.commands import dispatch

from .test_memory_command import session


async def memory(s, line: str = "/memory") -> str:
    c = Console(record=True, width=200, file=io.StringIO())
    await dispatch(s, line, c)
    return c.export_text()


async def test_memory_names_an_agents_md_written_after_the_session_started(tmp_path):
    s = session(tmp_path)
    try:
        assert "no instruction files loaded" in await memory(s)
        agents = s.cwd / "AGENTS.md"
        agents.write_text("# Project\nRun pytest -q.\n")  # what /init writes
        out = await memory(s)
        assert "no instruction files loaded:" not in out, out
        assert "no instruction files were loaded when this session started" in out
        assert "written since this session started; new sessions read it (/clear starts one)" in out
        assert f"  1. {agents}  (25 characters)" in out, out
        assert str(agents) in await memory(s, "/memory 1")  # print mode names it to open
    finally:
        s.close()
    again = session(tmp_path)  # a new session reads it: listed as loaded
    try:
        out = await memory(again)
        assert "in the order they go into the system prompt" in out and f"  1. {agents}" in out
        assert "written since" not in out
    finally:
        again.close()
