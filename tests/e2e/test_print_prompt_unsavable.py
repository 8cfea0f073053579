"""A `-p` run whose prompt cannot be saved (the session's file or folder read-only, a full disk)
stops there in one line, exit 1, nothing sent. It said `warning: could not save the prompt before
sending it (...); it is saved when sent`, went through its seconds of start-up, and then failed its
first write with a second line for the same cause: the prompt was saved neither then nor when sent.
A new session's half-written file went with it only in part: `sessions` listed `0 messages (no prompt)`.

The first append of a `-p` run is its prompt's (early_prompt.py): `append.partial:1+` fails it after
half of it is written, and every write after it (a disk that stays full, a file that stays read-only)."""

from __future__ import annotations

import pytest

from tests.fakes.openai_server import FakeOpenAIServer, Reply, user_messages

from .test_print_prompt_saved_early import fake


@pytest.fixture
def server():
    with FakeOpenAIServer(lambda req: Reply.text("noted")) as s:
        yield s


@pytest.mark.parametrize("cause, words", [("enospc", "No space left on device"), ("erofs", "Read-only file system")])
@pytest.mark.parametrize("fmt", ["text", "json"])
def test_a_prompt_that_cannot_be_saved_is_one_line_and_nothing_sent(cli, server, cause, words, fmt):
    out = cli("-p", "remember PELICAN", "--output-format", fmt, *fake(server),
              env={"COMPACT_AGENT_CRASH_AT": f"append.partial:1+:{cause}"})
    assert out.code == 1, out.stderr
    [line] = out.stderr.splitlines()
    assert line.startswith("compact-agent: could not write the session file "), line
    assert line.endswith(f".jsonl: {words} (injected at append.partial); nothing was sent to the model"), line
    assert "saved when sent" not in line
    assert server.requests == []
    assert cli.sessions() == []  # no session of nothing: `sessions` listed it as `0 messages  (no prompt)`
    if fmt == "json":
        result = out.json()
        assert result["is_error"] and result["error"] == line.removeprefix("compact-agent: "), result
        assert result["session_id"] is None


def test_a_continued_session_whose_prompt_cannot_be_saved_is_left_as_it_was(cli, server):
    assert cli("-p", "remember PELICAN", *fake(server)).code == 0
    [session] = cli.sessions()
    out = cli("-c", "-p", "and HERON", *fake(server), env={"COMPACT_AGENT_CRASH_AT": "append.partial:1+:erofs"})
    assert out.code == 1, out.stderr
    [line] = out.stderr.splitlines()
    assert line == (f"compact-agent: could not write the session file {session}: Read-only file system "
                    "(injected at append.partial); nothing was sent to the model, and what was saved before is intact")
    assert len(server.requests) == 1
    again = cli("-c", "-p", "go on", *fake(server))
    assert again.code == 0, again.stderr
    assert cli.sessions() == [session]
    assert [m["content"] for m in user_messages(server.requests[-1])] == ["remember PELICAN", "go on"]
