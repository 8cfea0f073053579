"""/init says what its turn did to AGENTS.md: written, updated, or left as it was. It said 'wrote
…/AGENTS.md' whenever one was there afterwards, also when it had been there before and the user
declined the write (or stopped the turn)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from tests.fakes.openai_server import Reply

from .repl_driver import drive


def writes_agents_md(req: Any) -> Reply:
    """Reads AGENTS.md (a file there is written only once read), then writes it."""
    results = sum(1 for m in req.messages if m.get("role") == "tool")
    if results == 0:
        return Reply.tools([("read_file", {"path": "AGENTS.md"})])
    if results == 1:
        return Reply.tools([("write_file", {"path": "AGENTS.md", "content": "# notes\nRun pytest -q.\n"})])
    return Reply.text("done")


def project(tmp_path: Path, agents: str | None) -> Path:
    cwd = tmp_path / "project"
    cwd.mkdir()
    if agents is not None:
        (cwd / "AGENTS.md").write_text(agents)
    return cwd / "AGENTS.md"


async def test_a_declined_write_leaves_agents_md_as_it_was_and_says_so(tmp_path: Path) -> None:
    path = project(tmp_path, "# old notes\n")
    run = await drive(tmp_path, writes_agents_md, ["/init\r"], answers="n\n")
    assert path.read_text() == "# old notes\n"
    assert f"{path} was not changed" in run.out and "wrote" not in run.out, run.out


async def test_an_allowed_write_says_written_or_updated(tmp_path: Path) -> None:
    path = project(tmp_path, None)
    run = await drive(tmp_path, writes_agents_md, ["/init\r"], answers="y\n")
    assert f"wrote {path}; it goes into the system prompt of new sessions" in run.out, run.out
    path.write_text("# old notes\n")
    run = await drive(tmp_path, writes_agents_md, ["/init\r"], answers="y\n")
    assert f"updated {path}; it goes into the system prompt of new sessions" in run.out, run.out
