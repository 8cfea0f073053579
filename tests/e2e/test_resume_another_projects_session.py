"""`-r ID` given the id of another project's session names the project that holds it, and how to
open it: run the command there, or add `--cwd`. Before, it said only `no session ID for /here`,
while a folder of the same name got a hint of where its sessions were."""

from __future__ import annotations

import os
import shlex
from dataclasses import replace

from tests.fakes.openai_server import FakeOpenAIServer, Reply

from .test_print_cli import fake


def test_the_project_that_holds_the_session_is_named(cli):
    other = replace(cli, cwd=cli.cwd.parent / "other project")
    other.cwd.mkdir()
    with FakeOpenAIServer(lambda req: Reply.text("answer")) as server:
        sid = other("-p", "plans", *fake(server), "--output-format", "json").json()["session_id"]
        here = cli("-p", "hi", *fake(server), "-r", sid)
        by_start = cli("-p", "hi", *fake(server), "-r", sid[:15])
        there = cli("-p", "and then?", *fake(server), "-r", sid, "--cwd", str(other.cwd))
        asked = len(server.requests)
    where = str(other.cwd.resolve())
    said = (f"session {sid} is one of {where}'s: run this command there, or add --cwd {shlex.quote(where)} to it")
    assert here.code == 2 and here.stderr == (f"compact-agent: no session {sid} for {cli.cwd} (compact-agent sessions "
                                              f"lists them); {said}\n"), here.stderr
    assert by_start.code == 2 and by_start.stderr.endswith(f"; {said}\n"), by_start.stderr
    assert there.code == 0 and there.stdout.strip() == "answer", there  # what the line says works
    assert asked == 2  # the refused runs sent nothing


def test_a_project_moved_since_is_said_to_open_it_where_it_is(cli):
    other = replace(cli, cwd=cli.cwd.parent / "app")
    other.cwd.mkdir()
    with FakeOpenAIServer(lambda req: Reply.text("answer")) as server:
        sid = other("-p", "plans", *fake(server), "--output-format", "json").json()["session_id"]
        was = str(other.cwd.resolve())
        os.rename(other.cwd, cli.cwd.parent / "app-moved")
        here = cli("-p", "hi", *fake(server), "-r", sid)
    assert here.code == 2, here
    assert here.stderr.endswith(f"; session {sid} is one of the project that was at {was}, moved or removed since: a run "
                                f"in that project, where it is now, opens it (compact-agent -r {sid})\n"), here.stderr
