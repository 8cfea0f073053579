"""A file under a session's name that is no session (a binary file, `[1,2,3]`) was listed by
`compact-agent sessions` first, as `0 messages  (no prompt)`, and `-r ID` then refused it as `not a
session file`. The listing and `-r` now agree: the file is listed as not a session file."""

from __future__ import annotations

import os

from tests.fakes.openai_server import FakeOpenAIServer, Reply

JUNK = "20991231-000000-aaaaaa"
BINARY = "20991231-000001-bbbbbb"


def test_sessions_marks_a_file_that_is_no_session_as_r_refuses_it(cli) -> None:
    with FakeOpenAIServer(lambda r: Reply.text("ok")) as server:
        made = cli("-p", "--base-url", server.base_url, "--model", "fake-model", "the real one",
                   env={"OPENAI_API_KEY": "k"})
    assert made.code == 0, made.stderr
    [real] = cli.sessions()
    (real.parent / f"{JUNK}.jsonl").write_text("[1,2,3]\n")
    (real.parent / f"{BINARY}.jsonl").write_bytes(bytes(range(256)) * 4)
    for name in (JUNK, BINARY):  # newer than the real one: they were listed first
        os.utime(real.parent / f"{name}.jsonl", (real.stat().st_mtime + 60,) * 2)
    listed = cli("sessions")
    assert listed.code == 0, listed.stderr
    lines = listed.stdout.splitlines()
    assert len(lines) == 4 and "(no prompt)" not in listed.stdout, listed.stdout  # and the folder they are in
    assert lines[-1].startswith(f"sessions folder: {real.parent} ("), lines[-1]
    for name in (JUNK, BINARY):
        [line] = [line for line in lines if name in line]
        assert line.endswith("not a session file (-r cannot open it; it is left as it is)"), line
        refused = cli("-r", name, "-p", "hi")
        assert refused.code != 0 and "is not a session file" in refused.stderr, refused.stderr
    [line] = [line for line in lines if real.stem in line]
    assert line.endswith("2 messages  the real one"), line
    assert cli("sessions", "--all").stdout == listed.stdout
