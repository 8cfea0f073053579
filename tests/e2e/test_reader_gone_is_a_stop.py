"""A reader that closes the pipe during a turn (`-p ... --output-format stream-json | head -1`)
ends the turn as Ctrl-C does (pipes.py): the session marks it stopped, and `-c` says "the last
turn was stopped by you", not that the run ended with the message unanswered, as a kill leaves it."""

from __future__ import annotations

import json
import threading

from tests.fakes.openai_server import FakeOpenAIServer, Reply, tool_results

from .test_print_cli import _piped, fake, user_text


def test_a_tool_turn_cut_short_by_the_reader_is_said_stopped_by_the_next_run(cli):
    closed = threading.Event()

    def responder(req) -> Reply:
        said = user_text(req)
        if "run the tool" in said and "go on" not in said and not tool_results(req):
            assert closed.wait(60)  # the tool call comes only once the reader is gone
            return Reply.tools([("bash", {"command": "echo hi"})])
        return Reply.text("answered")

    with FakeOpenAIServer(responder) as server:
        assert cli("-p", "base", *fake(server)).code == 0
        proc = _piped(cli, "-c", "-p", "run the tool", "--yes", *fake(server), "--output-format", "stream-json")
        first = json.loads(proc.stdout.readline())
        proc.stdout.close()  # `| head -1`
        closed.set()
        err = proc.stderr.read().decode()
        proc.stderr.close()
        assert proc.wait(timeout=120) == 141 and first["type"] == "init", err
        again = cli("-c", "-p", "go on", *fake(server))
    assert again.code == 0 and again.stdout == "answered\n", again.stderr
    assert "the last turn was stopped by you" in again.stderr
    assert "got no answer saved" not in again.stderr
    assert "run the tool" in user_text(server.requests[-1])  # the message stays in the conversation
