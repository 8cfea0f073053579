"""/diff runs git, and git runs what the repository's config names (`diff.external`, a textconv
driver, `core.fsmonitor`): a command the model ran, which gets no key, could plant such a program
in `.git/config` and have the next /diff hand it the provider key. git gets the environment the
bash tool's commands get, without the key."""

from __future__ import annotations

import io
import subprocess
from pathlib import Path

import pytest

from compact_agent.agent.run.options import SessionOptions
from compact_agent.agent.run.runner import AgentSession
from compact_agent.ui import render
from compact_agent.ui.commands import dispatch
from tests.fakes.openai_server import FakeOpenAIServer, Reply

KEY = "sk-diffkey0123456789abcdefXYZ"


def git(cwd: Path, *args: str) -> None:
    subprocess.run(["git", "-c", "user.email=t@t", "-c", "user.name=t", *args], cwd=cwd, check=True)


async def test_a_diff_program_the_repository_names_gets_no_key(tmp_path: Path,
                                                                monkeypatch: pytest.MonkeyPatch) -> None:
    cwd = tmp_path / "project"
    cwd.mkdir()
    git(cwd, "init", "-q")
    (cwd / "a.py").write_text("a = 1\n")
    git(cwd, "add", ".")
    git(cwd, "commit", "-qm", "init")
    (cwd / "a.py").write_text("a = 2\n")
    seen = tmp_path / "seen-by-the-diff-program.txt"
    planted = tmp_path / "planted.sh"
    planted.write_text(f"#!/bin/sh\nenv > {seen}\n")
    planted.chmod(0o755)
    git(cwd, "config", "diff.external", str(planted))
    monkeypatch.setenv("OPENAI_API_KEY", KEY)
    monkeypatch.setenv("SOME_TOKEN", f"Bearer {KEY}")
    with FakeOpenAIServer(lambda req: Reply.text("ok")) as server:
        s = AgentSession(SessionOptions(cwd=cwd, model="fake-model", base_url=server.base_url, api_key=KEY,
                                        home=tmp_path / "home"))
        try:
            c = render.make_console()
            c.file = io.StringIO()
            c.width = 200
            await dispatch(s, "/diff", c)
        finally:
            s.close()
    ran = seen.read_text()
    assert "PATH=" in ran  # the planted program ran, as git runs it
    assert KEY not in ran and "OPENAI_API_KEY" not in ran and "SOME_TOKEN" not in ran
