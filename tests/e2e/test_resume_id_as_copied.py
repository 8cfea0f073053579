"""`-r` takes a session's id as a user copies it: the file's name from the sessions folder that
`compact-agent sessions` names (`ID.jsonl`), that file's path, or the id with spaces around it. Each
was refused, `no session ID.jsonl for DIR`, though the line named the very session. The path of
another project's session file is refused naming that project, as its id is; a path anywhere else
still names no session (tests/e2e/test_resume_id_is_a_name.py)."""

from __future__ import annotations

import shlex
from dataclasses import replace

from tests.fakes.openai_server import FakeOpenAIServer, Reply, user_messages

from .test_print_cli import fake


def test_the_file_name_its_path_and_spaces_around_the_id_open_the_session(cli):
    with FakeOpenAIServer(lambda req: Reply.text("noted")) as server:
        assert cli("-p", "remember PELICAN", *fake(server)).code == 0
        [path] = cli.sessions()
        runs = [cli("-r", given, "-p", f"as {n}", *fake(server))
                for n, given in enumerate((path.name, str(path), f" {path.stem}\n"))]
        sent = [[m["content"] for m in user_messages(r)] for r in server.requests[1:]]
    for run in runs:
        assert run.code == 0 and run.stdout == "noted\n", run.stderr
    assert cli.sessions() == [path]
    assert sent == [["remember PELICAN", "as 0"], ["remember PELICAN", "as 0", "as 1"],
                    ["remember PELICAN", "as 0", "as 1", "as 2"]]


def test_another_projects_session_file_names_that_project(cli):
    other = replace(cli, cwd=cli.cwd.parent / "other")
    other.cwd.mkdir()
    with FakeOpenAIServer(lambda req: Reply.text("noted")) as server:
        assert other("-p", "plans", *fake(server)).code == 0
        [theirs] = other.sessions()
        out = cli("-r", str(theirs), "-p", "hi", *fake(server))
        assert len(server.requests) == 1
    where = str(other.cwd.resolve())
    assert out.code == 2
    assert out.stderr == (f"compact-agent: no session {theirs.stem} for {cli.cwd} (compact-agent sessions lists them); "
                          f"session {theirs.stem} is one of {where}'s: run this command there, or add --cwd "
                          f"{shlex.quote(where)} to it\n"), out.stderr


def test_sessions_delete_takes_the_file_name_and_its_path_too(cli):
    with FakeOpenAIServer(lambda req: Reply.text("noted")) as server:
        for prompt in ("first", "second"):
            assert cli("-p", prompt, *fake(server)).code == 0
    first, second = sorted(cli.sessions(), key=lambda p: p.stat().st_mtime_ns)
    by_name = cli("sessions", "--delete", first.name)
    by_path = cli("sessions", "--delete", f" {second}\n")
    assert by_name.code == 0 and by_name.stdout.startswith(f"removed session {first.stem}"), by_name
    assert by_path.code == 0 and by_path.stdout.startswith(f"removed session {second.stem}"), by_path
    assert cli.sessions() == []


def test_a_blank_id_is_said_as_blank(cli):
    """`-r "   "` said `no session     for DIR`, the spaces where the id goes."""
    with FakeOpenAIServer(lambda req: Reply.text("noted")) as server:
        assert cli("-p", "first", *fake(server)).code == 0
        runs = [cli("-r", blank, *args, *fake(server)) for blank in ("   ", "\n") for args in (("-p", "hi"), ())]
        assert len(server.requests) == 1
    for run in runs:
        assert run.code == 2 and run.stderr == ("compact-agent: --resume needs a session id: the one given is blank "
                                                "(compact-agent sessions lists them)\n"), run.stderr
