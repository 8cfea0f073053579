"""A turn stopped by its limit of model requests (--max-turns) keeps what it did: the model's tool
calls and their results were lost (the history is saved before each request, and the limit stops
the run before the next one), so the session held the user's message alone, was listed
`(unanswered)`, and -c warned '1 message you typed got no answer before the last run ended'
though the tools had run. Now the listing shows the session answered, a resume says in a plain
note that the limit stopped the turn, and the next message goes on from the tools' results."""

from __future__ import annotations

from tests.fakes.openai_server import FakeOpenAIServer, Reply


def test_the_tool_calls_a_limit_stopped_are_kept(cli):
    def responder(req) -> Reply:
        if "go on" in req.last_user_text():
            return Reply.text("done")
        return Reply.tools([("glob", {"pattern": "*.txt"})])

    (cli.cwd / "notes.txt").write_text("x\n")
    with FakeOpenAIServer(responder) as server:
        fake = ("--model", "fake-model", "--base-url", server.base_url, "--api-key", "k")
        stopped = cli("-p", "list the text files", "--max-turns", "1", *fake)
        listed = cli("sessions")
        resumed = cli("-c", "-p", "go on", "--max-turns", "5", *fake)
        last = server.requests[-1]
    assert stopped.code == 1 and "stopped after 1 model request (--max-turns 1)" in stopped.stderr
    assert "list the text files" in listed.stdout and "unanswered" not in listed.stdout, listed.stdout
    assert resumed.code == 0 and resumed.stdout == "done\n", resumed.stderr
    assert "warning" not in resumed.stderr and "got no answer" not in resumed.stderr, resumed.stderr
    assert "the last turn stopped at its limit of 1 model request per turn, after the model's tool calls ran: " \
           "your next message goes on from there" in resumed.stderr
    found = [m for m in last.messages if m.get("role") == "tool" and "notes.txt" in str(m.get("content"))]
    assert found, last.messages  # what the tool found went with the next message


def test_the_close_of_a_turn_its_limit_stopped_names_the_limit(cli):
    """The next message closes the stopped turn with a marked answer the model reads, and `/history`
    shows it as a `no answer` row: both said the turn was 'interrupted, or the request failed', which
    it was not, and the model read of a failure that never happened."""
    def responder(req) -> Reply:
        if "go on" in req.last_user_text():
            return Reply.text("done")
        return Reply.tools([("glob", {"pattern": "*.txt"})])

    with FakeOpenAIServer(responder) as server:
        fake = ("--model", "fake-model", "--base-url", server.base_url, "--api-key", "k")
        assert cli("-p", "list the text files", "--max-turns", "1", *fake).code == 1
        assert cli("-c", "-p", "go on", "--max-turns", "5", *fake).code == 0
        history = cli("-c", "-p", "/history", *fake)
        last = server.requests[-1]
    [close] = [m for m in last.messages if m.get("role") == "assistant" and "turn ended" in str(m.get("content"))]
    assert "stopped at its limit of model requests" in str(close["content"]), close
    assert "no answer    the turn was interrupted, hit its request limit, or failed" \
        in history.stdout, history.stdout
