"""`--resume ID` takes a session's id, never a path: an id that climbs out of this directory's
sessions (`../other-project/ID`) or names a folder in it is no session of this directory, refused
in one line before anything is opened, locked or written."""

from __future__ import annotations

from dataclasses import replace

from tests.fakes.openai_server import FakeOpenAIServer, Reply

from .test_print_cli import fake


def test_an_id_with_a_path_in_it_is_refused_and_touches_nothing(cli):
    other = replace(cli, cwd=cli.cwd.parent / "other")
    other.cwd.mkdir()
    with FakeOpenAIServer(lambda req: Reply.text("answer")) as server:
        sid = other("-p", "secret plans", *fake(server), "--output-format", "json").json()["session_id"]
        (theirs,) = other.sessions()
        cli("-p", "a session of our own", *fake(server))  # so this directory's folder exists to climb out of
        (ours,) = [p for p in cli.sessions() if p != theirs]
        before = {p: p.stat().st_mtime_ns for p in theirs.parent.rglob("*")}
        climbed = f"../{theirs.parent.name}/{sid}"
        results = [cli("-p", "hi", *fake(server), "-r", bad) for bad in (climbed, f"./{sid}", "/etc/passwd", ".x")]
        assert len(server.requests) == 2  # only the two sessions' own turns
    for bad, res in zip((climbed, f"./{sid}", "/etc/passwd", ".x"), results, strict=True):
        assert res.code == 2 and res.stderr == f"compact-agent: no session {bad} for {cli.cwd} (compact-agent sessions lists them)\n"
    assert {p: p.stat().st_mtime_ns for p in theirs.parent.rglob("*")} == before  # nothing of theirs opened for writing
    assert sorted(cli.sessions()) == sorted([theirs, ours])  # and none made here


def test_an_id_longer_than_a_file_name_is_refused_in_one_line(cli):
    """`-r` with an id longer than a file name can be (a paste gone wrong) ended in a traceback:
    'OSError: [Errno 36] File name too long'."""
    long = "a" * 300
    with FakeOpenAIServer(lambda req: Reply.text("answer")) as server:
        cli("-p", "a session of our own", *fake(server))  # so this directory's sessions folder exists
        res = cli("-p", "hi", *fake(server), "-r", long)
        assert len(server.requests) == 1
    assert res.code == 2 and res.stderr.startswith(f"compact-agent: no session {long[:100]}"), res.stderr
    assert res.stderr.count("\n") == 1 and "Error" not in res.stderr and "Errno" not in res.stderr
