"""The REPL's `/resume ID` given the id of another project's session names the project that holds
it, and how to open it: leave, and run `compact-agent --cwd PATH -r ID` (the REPL stays in its own
project). It said only `no session ID in this directory`, where `compact-agent -r ID` named it."""

from __future__ import annotations

import re
import shlex
from pathlib import Path

from tests.e2e.conftest import Cli
from tests.fakes.openai_server import FakeOpenAIServer, Reply
from tests.reliability.harness import Zygote

from .pty_driver import Terminal


def test_resume_names_the_project_that_holds_the_session(tmp_path: Path, zygote: Zygote) -> None:
    other = tmp_path / "other project"
    other.mkdir()
    with FakeOpenAIServer(lambda req: Reply.text("ANSWERED")) as server:
        fake = ("--model", "fake-model", "--base-url", server.base_url, "--api-key", "k")
        there = Cli(home=tmp_path / "home", cwd=other, zygote=zygote)
        sid = there("-p", "plans", *fake, "--output-format", "json").json()["session_id"]
        term = Terminal(tmp_path, server.base_url, cols=400)
        try:
            at = term.prompt(term.read_until("/help for commands"))
            term.type(f"/resume {sid}\r")
            said = term.prompt(term.read_until(f"no session {sid} in this directory", at))
            term.type(f"/resume {sid[:-2]}\r")  # an id's start too
            by_start = term.prompt(term.read_until(f"no session {sid[:-2]} in this directory", said))
            assert term.finish() == 0
            shown = re.sub(r"\x1b\[[0-9;?]*[A-Za-z]", "", term.text(at))
        finally:
            term.close()
        where = str(other.resolve())
        line = f"session {sid} is one of {where}'s: /exit, then compact-agent --cwd {shlex.quote(where)} -r {sid} opens it"
        assert f"no session {sid} in this directory; {line}" in shown, shown
        assert f"no session {sid[:-2]} in this directory; {line}" in shown, shown
        opened = Cli(home=tmp_path / "home", cwd=tmp_path / "project", zygote=zygote)(
            "-p", "and then?", *fake, *shlex.split(line.split("then compact-agent ")[1].removesuffix(" opens it")))
    assert opened.code == 0 and opened.stdout.strip() == "ANSWERED", opened  # what the line says works
    assert by_start > said and len(server.requests) == 2  # the refused /resume sent nothing
