"""A reader that closes the pipe while the model's tool calls run (`-p ... --output-format
stream-json | head`) ends the turn as Ctrl-C does, and saves what Ctrl-C saves (agent/run/turn.py,
ended_calls.py): the model's answer with its calls, the result of each call that finished, a mark
for each that did not. It went back to what was saved before the answer: the next `-c` said the
turn 'was stopped by you before an answer', and the file the agent had written was in no history."""

from __future__ import annotations

import json
import os

from tests.fakes.openai_server import FakeOpenAIServer, Reply, tool_results

from .test_print_cli import _piped, fake, user_text


def test_a_tool_turn_cut_short_by_the_reader_keeps_its_calls_and_their_results(cli):
    go = cli.cwd.parent / "go"
    os.mkfifo(go)
    hold = os.open(go, os.O_RDWR)  # a writer from the start: the command's read waits only for the line
    calls = [("write_file", {"path": "notes.txt", "content": "KESTREL\n"}),
             ("bash", {"command": f"head -n 1 {go}"})]  # ends once the test has closed stdout

    def responder(req) -> Reply:
        said = user_text(req)
        if "write the notes" in said and "go on" not in said and not tool_results(req):
            return Reply.tools(calls)
        return Reply.text("answered")

    try:
        with FakeOpenAIServer(responder) as server:
            assert cli("-p", "base", *fake(server)).code == 0
            proc = _piped(cli, "-c", "-p", "write the notes", "--yes", *fake(server), "--output-format", "stream-json")
            seen = []
            while not any(o["type"] == "tool_result" and o["tool"] == "write_file" for o in seen):
                line = proc.stdout.readline()
                assert line, proc.stderr.read().decode()
                seen.append(json.loads(line))
            proc.stdout.close()  # `| head`: the reader leaves while bash still runs
            os.write(hold, b"go\n")  # bash ends, and its result meets the closed pipe
            err = proc.stderr.read().decode()
            proc.stderr.close()
            assert proc.wait(timeout=120) == 141, err
            assert (cli.cwd / "notes.txt").read_text() == "KESTREL\n"
            again = cli("-c", "-p", "go on", *fake(server))
    finally:
        os.close(hold)
    assert again.code == 0 and again.stdout == "answered\n", again.stderr
    assert "the last turn was stopped by you while the model's tool calls ran: they had finished" in again.stderr
    assert "before an answer" not in again.stderr and "got no answer" not in again.stderr, again.stderr
    sent = server.requests[-1].messages
    asked = [c for m in sent if m["role"] == "assistant" for c in m.get("tool_calls") or ()]
    assert [c["function"]["name"] for c in asked] == ["write_file", "bash"]
    assert json.loads(asked[0]["function"]["arguments"])["content"] == "KESTREL\n"
    results = {m["tool_call_id"]: m["content"] for m in sent if m["role"] == "tool"}
    assert set(results) == {c["id"] for c in asked}  # every call with its result, as a provider requires
    assert "notes.txt" in results[asked[0]["id"]]  # the write, done
    [path] = cli.sessions()
    saved = path.read_text()
    assert "KESTREL" in saved and all(c["id"] in saved for c in asked)
