"""A run that died on an error after the model's tool calls ran (here the server gone: connection
refused) left the history at their results, and the next `-c` said 'the last run stopped after the
model's tool calls … (interrupted, killed or out of turns)', none of which happened. The run printed
why it ended; the session now keeps that cause (a meta line) and the next load says it."""

from __future__ import annotations

import os
import threading

from tests.fakes.openai_server import FakeOpenAIServer, Reply


def test_a_run_the_server_left_says_so_at_the_next_resume(cli):
    gate = cli.cwd / "gate"
    os.mkfifo(gate)  # the tool's command waits on it: the server is gone before the next request

    def responder(req) -> Reply:
        if "go on" in req.last_user_text():
            return Reply.text("done")
        return Reply.tools([("bash", {"command": f"cat {gate}"})])

    cli.home.mkdir(parents=True, exist_ok=True)
    (cli.home / "config.toml").write_text("max_retries = 0\n")  # connection refused once, not after backoffs
    server = FakeOpenAIServer(responder).start()
    url = server.base_url
    result: list = []
    run = threading.Thread(target=lambda: result.append(
        cli("-p", "look around", "--yes", "--model", "fake-model", "--base-url", url, "--api-key", "k")))
    run.start()
    unstick = threading.Timer(90, lambda: os.close(os.open(gate, os.O_RDONLY | os.O_NONBLOCK)))  # a run that never
    unstick.start()  # got to the command: the wait below ends, and the asserts say what it printed
    try:
        with open(gate, "w") as released:  # opens once the command runs: the first reply has come
            server.stop()
            released.write("ok\n")
    finally:
        run.join(120)
        unstick.cancel()
        server.stop()
    [failed] = result
    assert failed.code == 1 and "connection refused" in failed.stderr, failed.stderr
    with FakeOpenAIServer(responder) as again:
        resumed = cli("-c", "-p", "go on", "--model", "fake-model", "--base-url", again.base_url, "--api-key", "k")
    assert resumed.code == 0 and resumed.stdout == "done\n", resumed.stderr
    said = f"the last run ended on an error after the model's tool calls ran (the server at {url}"
    assert said in resumed.stderr and "did not answer (connection refused)): your next message goes on from " \
        "there" in resumed.stderr, resumed.stderr
    assert "interrupted, killed or out of turns" not in resumed.stderr, resumed.stderr
    # The request that went on answered: the mark is stale, the next load says nothing of it.
    with FakeOpenAIServer(responder) as third:
        later = cli("-c", "-p", "go on", "--model", "fake-model", "--base-url", third.base_url, "--api-key", "k")
    assert later.code == 0 and "ended on an error" not in later.stderr and "warning" not in later.stderr, later.stderr
