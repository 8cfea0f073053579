"""`/memory`, `/permissions` and `/notes` keep a long path whole, on a line of its own where the
line would not fit, as `/history` keeps an archive's: print mode lays a pipe out at 80 columns, and a
deep project's path was split mid-name by a hard line break (`…another-long-nested-` / `directory-name/…`)."""

from __future__ import annotations

import io
from pathlib import Path

from compact_agent.agent.run.options import SessionOptions
from compact_agent.agent.run.runner import AgentSession
from compact_agent.config import Settings
from compact_agent.ui.commands import dispatch
from compact_agent.ui.render import SafeConsole


async def shown(s: AgentSession, line: str, width: int = 80) -> list[str]:
    out = io.StringIO()
    c = SafeConsole(file=out, highlight=False, markup=False, soft_wrap=False, width=width)  # print mode's, piped
    await dispatch(s, line, c)
    return out.getvalue().splitlines()


async def test_paths_are_never_split(tmp_path: Path) -> None:
    cwd = tmp_path / "a-very-long-directory-name-for-testing-wrapping" / "another-long-nested-directory-name" / "project"
    cwd.mkdir(parents=True)
    (cwd / ".git").mkdir()
    (cwd / "AGENTS.md").write_text("be brief")
    s = AgentSession(SessionOptions(cwd=cwd, model="fake-model", base_url="http://127.0.0.1:9/v1", api_key="k",
                                    home=tmp_path / "home", settings=Settings(memory_enabled=True)))
    try:
        memory = await shown(s, "/memory")
        assert f"     {cwd / 'AGENTS.md'}" in memory, memory
        assert "  1. (8 characters)" in memory, memory
        permissions = await shown(s, "/permissions")
        assert permissions[permissions.index("writable") + 1] == f"  {cwd}", permissions
        notes = await shown(s, "/notes")
        assert s.memory is not None
        assert notes[:2] == ["no notes yet (covers no message yet · 0 updates this run)", f"  {s.memory.path}"], notes
    finally:
        s.close()


async def test_a_path_that_fits_stays_on_its_line(tmp_path: Path) -> None:
    cwd = tmp_path / "p"
    cwd.mkdir()
    (cwd / ".git").mkdir()
    (cwd / "AGENTS.md").write_text("be brief")
    s = AgentSession(SessionOptions(cwd=cwd, model="fake-model", base_url="http://127.0.0.1:9/v1", api_key="k",
                                    home=tmp_path / "h"))
    try:
        assert f"  1. {cwd / 'AGENTS.md'}  (8 characters)" in await shown(s, "/memory", 300)
        assert f"writable         {cwd}" in await shown(s, "/permissions", 300)
    finally:
        s.close()


async def test_the_notes_own_text_is_never_wrapped_by_us(tmp_path: Path) -> None:
    """`/notes` wrapped the notes' text at 80 columns: a path in them was split by a hard line break
    (`- ` alone, then `…/another` / `-long-nested-…`). The terminal wraps them now; a pipe gets them as written."""
    deep = "/tmp/a-very-long-directory-name-for-testing-the-wrapping-of-paths/another-long-nested-directory-name-here"
    written = ["# Files read and changed (current state)", f"- {deep}/project-with-long-name/error_text.py: read, unchanged",
               "# Errors and fixes", "- " + "the parser took a trailing comma for a field and failed; fixed " * 3]
    s = AgentSession(SessionOptions(cwd=tmp_path, model="fake-model", base_url="http://127.0.0.1:9/v1", api_key="k",
                                    home=tmp_path / "home", settings=Settings(memory_enabled=True)))
    try:
        assert s.memory is not None
        s.memory.notes = "\n".join(written) + "\n"
        notes = await shown(s, "/notes")
    finally:
        s.close()
    assert [line.rstrip() for line in notes[:len(written)]] == [line.rstrip() for line in written], notes
