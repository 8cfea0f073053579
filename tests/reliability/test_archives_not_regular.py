"""A FIFO or a link to /dev/zero in a session's `compact-history/` folder, named as its archives are:
`/status` and `/history` (which read every archive for the session's compactions) answer, the thing
skipped, where a FIFO made them wait for a writer for ever and /dev/zero was read without end. Each
says once which archive it skipped and why (it passed over it without a word, the count of
compactions short with nothing to say so). The REPL's commands are the same functions
(ui/commands.py), so a resumed `-p` run checks both."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.fakes.openai_server import FakeOpenAIServer, Reply

from .common import answered_session, cli, not_a_file


@pytest.mark.parametrize("kind", ["fifo", "/dev/zero"])
def test_status_and_history_skip_an_archive_that_is_not_a_file(tmp_path: Path, kind: str) -> None:
    home, cwd = tmp_path / "home", tmp_path / "project"
    with FakeOpenAIServer(lambda req: Reply.text("answered"), window=9_000) as server:
        s = answered_session(home, cwd, server)
        planted = s.store.archive_dir / f"{s.session_id}-20261206-000000-000000.jsonl"
        not_a_file(planted, kind)
        assert s.store.archives() == [planted]  # named as an archive is: the store lists it
        runs = {command: cli(home, cwd, "-r", s.session_id, "-p", command, "--model", "fake-model",
                             "--base-url", server.base_url, "--context-window", "9000", "--api-key", "k",
                             timeout=30)  # a subprocess: killed, and the test failed, if it waits
                for command in ("/status", "/history")}
    status, history = runs["/status"], runs["/history"]
    assert status.code == 0 and "0 in the whole session" in status.stdout, status
    assert history.code == 0 and "no compactions yet" in history.stdout and "answered" in history.stdout, history
    assert "Traceback" not in status.stderr + history.stderr
    said = (f"1 compaction archive skipped: {planted.name} (not a regular file); the compactions it records are "
            "not counted here")
    for run in (status, history):
        assert [line.strip() for line in run.stdout.splitlines()].count(said) == 1, run.stdout
