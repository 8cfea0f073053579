"""/diff names files as they are named: a new file whose name has a space is one name, not split at
the space into two (`src/sub, dir/a, b.py`), and a name with letters outside ASCII is written as such,
not as git quotes it (`"caf\\303\\251.py"`), in the new files' list and in the diff alike."""

from __future__ import annotations

import io
import subprocess
from pathlib import Path

from compact_agent.agent.run.options import SessionOptions
from compact_agent.agent.run.runner import AgentSession
from compact_agent.ui import render
from compact_agent.ui.commands import dispatch
from tests.fakes.openai_server import FakeOpenAIServer, Reply


def git(cwd: Path, *args: str) -> None:
    subprocess.run(["git", "-c", "user.email=t@t", "-c", "user.name=t", *args], cwd=cwd, check=True)


async def test_diff_names_files_with_spaces_and_accents_whole(tmp_path):
    cwd = tmp_path / "project"
    cwd.mkdir()
    git(cwd, "init", "-q")
    (cwd / "café.py").write_text("a = 1\n")
    git(cwd, "add", ".")
    git(cwd, "commit", "-qm", "init")
    (cwd / "café.py").write_text("a = 2\n")
    (cwd / "sub dir").mkdir()
    (cwd / "sub dir" / "a b.py").write_text("b = 1\n")
    (cwd / "naïve.txt").write_text("c\n")
    with FakeOpenAIServer(lambda req: Reply.text("ok")) as server:
        s = AgentSession(SessionOptions(cwd=cwd, model="fake-model", base_url=server.base_url, api_key="k",
                                        home=tmp_path / "home"))
        try:
            c = render.make_console()
            c.file = io.StringIO()
            c.width = 200
            c.record = True
            await dispatch(s, "/diff", c)
            out = c.export_text()
        finally:
            s.close()
    assert "new files: naïve.txt, sub dir/a b.py" in out
    assert "+++ b/café.py" in out and "\\303" not in out
