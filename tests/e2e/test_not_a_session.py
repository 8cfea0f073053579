"""What is under a session's name but is no session: a folder named `ID.jsonl` given to `-r ID`
is one line (it was a warning that the prompt could not be saved, then `Is a directory`), and a
file of random bytes `-c` goes on with is said to be no session file, not a line the last run
was writing."""

from __future__ import annotations

import random

from tests.fakes.openai_server import FakeOpenAIServer, Reply

from .test_print_prompt_saved_early import fake

SESSION_ID = "20991231-000000-abcdef"


def test_a_folder_named_like_a_session_is_one_line(cli):
    with FakeOpenAIServer(lambda req: Reply.text("ok")) as server:
        assert cli("-p", "hi", *fake(server)).code == 0
        [first] = cli.sessions()
        folder = first.parent / f"{SESSION_ID}.jsonl"
        folder.mkdir()
        res = cli("-r", SESSION_ID, "-p", "hello", *fake(server))
        assert len(server.requests) == 1  # nothing was sent
    assert res.code == 2 and res.stderr.count("\n") == 1, res.stderr
    assert res.stderr == (f"compact-agent: session {SESSION_ID} cannot be opened: {folder} is a directory, not a "
                          "session file (compact-agent sessions lists the sessions)\n")
    assert folder.is_dir() and not any(folder.iterdir())


def test_random_bytes_under_a_session_name_are_said_to_be_no_session_file(cli):
    rng = random.Random(7)
    with FakeOpenAIServer(lambda req: Reply.text("ok")) as server:
        assert cli("-p", "hi", *fake(server)).code == 0
        [path] = cli.sessions()
        path.write_bytes(bytes(rng.randrange(256) for _ in range(3000)).replace(b'{"', b"x"))
        res = cli("-c", "-p", "hello", *fake(server))
    assert res.code == 0 and res.stdout == "ok\n", res.stderr
    [line] = res.stderr.splitlines()
    assert f"warning: {path.name}: not a session file: none of its" in line, line
    assert "middle of writing" not in line and "were moved to" in line
