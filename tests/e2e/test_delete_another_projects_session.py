"""`compact-agent sessions --delete ID` given the id of another project's session names the project
that holds it, and how to remove it there: run the command there, or `compact-agent --cwd PATH
sessions --delete ID` (`--cwd` goes before the command). It said only `no session ID for this
directory`, where `-r ID` named the project."""

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
        assert cli("-p", "mine", *fake(server)).code == 0
    here = cli("sessions", "--delete", sid)
    by_start = cli("sessions", "--delete", sid[:-2], "--dry-run")  # (this project's own may have begun in the same second)
    where = str(other.cwd.resolve())
    said = (f"session {sid} is one of {where}'s: run this command there, or compact-agent --cwd {shlex.quote(where)} "
            f"sessions --delete {sid}")
    assert here.code == 1 and here.stderr == (f"compact-agent: no session {sid} for this directory (compact-agent "
                                              f"sessions lists them); {said}\n"), here.stderr
    assert by_start.code == 1 and by_start.stderr.endswith(f"; {said}\n"), by_start.stderr
    assert len(cli.sessions()) == 2  # nothing removed
    removed = cli(*shlex.split(said.split(", or compact-agent ")[1]))  # what the line says works
    assert removed.code == 0 and removed.stdout.startswith(f"removed session {sid}"), removed
    assert [p.stem for p in cli.sessions()] != [sid] and len(cli.sessions()) == 1


def test_a_project_moved_since_is_said_to_remove_it_where_it_is(cli):
    other = replace(cli, cwd=cli.cwd.parent / "app")
    other.cwd.mkdir()
    with FakeOpenAIServer(lambda req: Reply.text("answer")) as server:
        sid = other("-p", "plans", *fake(server), "--output-format", "json").json()["session_id"]
    was = str(other.cwd.resolve())
    os.rename(other.cwd, cli.cwd.parent / "app-moved")
    here = cli("sessions", "--delete", sid)
    assert here.code == 1, here
    assert here.stderr.endswith(f"; session {sid} is one of the project that was at {was}, moved or removed since: a run "
                                f"in that project, where it is now, removes it (compact-agent sessions --delete {sid})\n"), \
        here.stderr
