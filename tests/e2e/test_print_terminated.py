"""`-p` ended by SIGTERM or SIGHUP says in one line that its session is saved and how to go on, as a
failure or `--max-turns` does; it said nothing, and exited as killed. It still exits as killed by
the signal (143 or 129 in a shell), and `-c` goes on with the message its request was carrying,
its turn closed as the signal left it and said so (it was said as a message that 'got no answer',
and closed as one 'interrupted, stopped at its limit of model requests, or the request failed')."""

from __future__ import annotations

import signal

import pytest

from tests.fakes.openai_server import FakeOpenAIServer, Reply, user_messages

from .held_request import stopped_while_starting, terminated
from .test_print_prompt_saved_early import fake
from .test_resume_after_failures import UNANSWERED

LINE = "compact-agent: terminated ({}); the session is saved: `compact-agent -c -p ...` continues it\n"


@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGHUP])
def test_a_run_terminated_during_its_request_says_its_session_is_saved(cli, sig):
    code, lines, err = terminated(cli, sig)
    assert code == -sig  # killed by it, as before: 128 + its number in a shell
    assert err == LINE.format(sig.name) and lines == []
    with FakeOpenAIServer(lambda req: Reply.text("ok")) as server:
        again = cli("-c", "-p", "go on", *fake(server))
    assert again.code == 0, again.stderr
    words = {"SIGTERM": "a termination signal (SIGTERM)", "SIGHUP": "a hangup signal (SIGHUP: its terminal closed)"}
    assert f"the last turn was stopped by {words[sig.name]} before the model answered: your next message goes " \
        "on from there" in again.stderr  # said so, where it said the message 'got no answer'
    assert "got no answer" not in again.stderr
    assert [m["content"] for m in user_messages(server.requests[-1])] == ["remember HERON", "go on"]
    closed = [m["content"] for m in server.requests[-1].messages if m["role"] == "assistant"]
    assert closed == [f"[compact-agent: this turn was stopped by {words[sig.name]} before an answer]"]


def test_a_run_terminated_while_starting_says_it_too(cli):
    with FakeOpenAIServer(lambda req: Reply.text("ok")) as server:
        code, err = stopped_while_starting(cli, signal.SIGTERM, "remember PELICAN", *fake(server))
        assert code == -signal.SIGTERM and err == LINE.format("SIGTERM")
        again = cli("-c", "-p", "go on", *fake(server))
    assert UNANSWERED in again.stderr and again.code == 0


def test_the_message_sent_again_after_the_signal_retries_it_the_file_only_appended_to(cli):
    """The close the signal left was saved as a message, so the retry had to cut it out: the whole
    session file was archived and rewritten, and /history called the plain retry 'the conversation
    went on from an earlier point (an answer asked for again, or a branch)'. The run marks the
    request instead, and the retry goes on from it."""
    terminated(cli, signal.SIGTERM)
    [path] = (cli.home / "projects").glob("*/*.jsonl")
    before = path.read_bytes()
    with FakeOpenAIServer(lambda req: Reply.text("HERON noted")) as server:
        again = cli("-c", "-p", "remember HERON", *fake(server))
    assert again.code == 0 and again.stdout.strip() == "HERON noted", again.stderr
    sent = server.requests[-1].messages
    assert [m["content"] for m in user_messages(server.requests[-1])] == ["remember HERON"]  # once, and no close
    assert not [m for m in sent if m["role"] == "assistant"]
    assert path.read_bytes().startswith(before)  # appended to, not rewritten
    assert not list((cli.home / "projects").glob("*/compact-history/*"))  # nothing archived
    history = cli("-c", "-p", "/history")
    assert "went on from an earlier point" not in history.stdout + history.stderr, history.stdout
