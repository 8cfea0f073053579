"""What `-c` goes on with after a run that failed: killed while starting, unable to reach the model,
or started with a model the remembered endpoint does not serve.

A run killed while starting kept its prompt but not its options, so `-c` ran at the defaults (another
model, another endpoint). A run with new options that never reached the model still changed what the
session remembers. `-c --model other` dropped the endpoint the session was started with, though one
local server serves many models. The warning about a message a killed run left unanswered came back on
every resume, said "1 message(s)", and did not count a message a failed run left. A window remembered
too small was named as the flag, which this command line never gave."""

from __future__ import annotations

import json
import signal
import socket

from tests.fakes.openai_server import FakeOpenAIServer, Reply, user_messages
from tests.ui.test_typed_prompt_kill import saved

from .test_print_prompt_saved_early import fake, held_run
from .test_remembered_base_url import remembered_line

UNANSWERED = "you typed had not reached the model"


def init(res) -> dict:
    first = json.loads(res.stdout.splitlines()[0])
    assert first["type"] == "init", res.stdout
    return first


def killed_while_starting(cli, *args: str) -> None:
    """`compact-agent ARGS` killed (SIGTERM) once its prompt is saved, before anything is imported."""
    proc = held_run(cli, *args)
    try:
        saved(cli.home, args[args.index("-p") + 1])
        proc.send_signal(signal.SIGTERM)
        assert proc.wait(30) != 0
    finally:
        proc.kill()
        proc.communicate()


#: The sockets holding the ports `dead_endpoint` gave, for the life of the test process.
_HELD: list[socket.socket] = []


def dead_endpoint() -> str:
    """An address where nothing answers: a port bound and never listened on, which refuses every
    connection and which no other server can take while this process holds it. A stopped server's
    port was free to reuse, and now and then another test's fake server took it and answered."""
    held = socket.socket()
    held.bind(("127.0.0.1", 0))
    _HELD.append(held)
    return f"http://127.0.0.1:{held.getsockname()[1]}/v1"


def test_a_run_killed_while_starting_is_continued_with_the_options_it_was_started_with(cli):
    with FakeOpenAIServer(lambda req: Reply.text("I remember")) as server:
        killed_while_starting(cli, "-p", "remember PELICAN", *fake(server), "--context-window", "16k")
        assert server.requests == []
        again = cli("-c", "-p", "go on", "--api-key", "k", "--output-format", "stream-json")
    assert again.code == 0, again.stderr
    assert (init(again)["model"], init(again)["window"]) == ("fake-model", 16_000), init(again)
    [request] = server.requests  # the endpoint the user chose, not the default provider
    assert [m["content"] for m in user_messages(request)] == ["remember PELICAN", "go on"]


def test_the_unanswered_warning_counts_every_message_and_is_not_said_again_once_answered(cli):
    with FakeOpenAIServer(lambda req: Reply.text("ok")) as server:
        assert cli("-p", "first", *fake(server)).code == 0
        killed_while_starting(cli, "-c", "-p", "remember A", *fake(server))
        failed = cli("-c", "-p", "remember B", "--base-url", dead_endpoint(), "--api-key", "k")
        answered = cli("-c", "-p", "go on", *fake(server))
        later = cli("-c", "-p", "and on", *fake(server))
    assert failed.code == 1, failed.stderr
    assert f"1 message {UNANSWERED} when the last run ended: it is in the conversation" in failed.stderr
    assert answered.code == 0 and later.code == 0, answered.stderr + later.stderr
    assert answered.stderr.count(UNANSWERED) == 1, answered.stderr
    assert f"2 messages {UNANSWERED} when the last run ended: they are in the conversation" in answered.stderr
    assert UNANSWERED not in later.stderr, later.stderr
    sent = [m["content"] for m in user_messages(server.requests[-2])]
    assert sent == ["first", "remember A", "remember B", "go on"]


def test_new_options_that_never_reached_the_model_are_not_remembered(cli):
    """`-c --model X` or `-c --base-url Y` that fails (a model the server does not serve, an endpoint
    that is down) leaves the session remembering what worked."""
    with FakeOpenAIServer(lambda req: Reply.text("ok")) as server:
        assert cli("-p", "hello", *fake(server), "--context-window", "16k").code == 0
        missing = cli("-c", "-p", "try this", "--model", "no-such-model", "--api-key", "k")
        down = cli("-c", "-p", "try that", "--base-url", dead_endpoint(), "--api-key", "k")
        again = cli("-c", "-p", "go on", "--api-key", "k", "--output-format", "stream-json")
        switched = cli("-c", "-p", "wider", "--context-window", "20k", "--api-key", "k")
        after = cli("-c", "-p", "still wider?", "--api-key", "k", "--output-format", "stream-json")
    assert missing.code == 1 and down.code == 1, missing.stderr + down.stderr
    assert again.code == 0, again.stderr
    assert (init(again)["model"], init(again)["window"]) == ("fake-model", 16_000), init(again)
    assert switched.code == 0 and after.code == 0, switched.stderr + after.stderr
    assert init(after)["window"] == 20_000  # a change that reached the model is remembered


def test_another_model_goes_on_at_the_remembered_endpoint_unless_the_registry_sends_it_elsewhere(cli):
    """One vLLM or Ollama address serves several models: `-c --model other` keeps the endpoint the
    session was started with. A model the registry knows from another provider goes to its own, and a
    line says so (that run fails here: no key for it, so the session remembers what it had)."""
    with FakeOpenAIServer(lambda req: Reply.text("ok")) as server:
        url = server.base_url
        assert cli("-p", "hello", *fake(server), "--context-window", "16k").code == 0
        server.model = "other-model"  # the same server, now serving another model
        other = cli("-c", "-p", "go on", "--model", "other-model", "--api-key", "k", "--output-format", "stream-json")
        plain = cli("-c", "-p", "and on", "--api-key", "k")
        registry = cli("-c", "-p", "elsewhere", "--model", "deepseek-chat", "--api-key", "k")
        back = cli("-c", "-p", "here again", "--api-key", "k", "--output-format", "stream-json")
    assert other.code == 0 and plain.code == 0, other.stderr + plain.stderr
    assert other.stderr == ("compact-agent: note: --model other-model overrides fake-model, which the session "
                            f"remembers; {remembered_line(url)}\n"), other.stderr  # and no line of an endpoint left
    assert (init(other)["model"], init(other)["window"]) == ("other-model", 32_768)  # its own window
    line = " ".join(registry.stderr.split())
    assert (f"compact-agent: note: the session reached other-model at {url}; deepseek-chat goes to "
            "DeepSeek (give --base-url to keep that endpoint)") in line, registry.stderr
    assert "overrides" not in line, registry.stderr  # that line names both models
    assert back.code == 0, back.stderr
    assert init(back)["model"] == "other-model"
    assert len(server.requests) == 4  # hello, go on, and on, here again: all at the endpoint it was started with


def test_a_remembered_window_too_small_is_named_as_the_sessions(cli):
    """The project's instructions grew since the session was started at the smallest window: the
    refusal names the window as remembered, not as a flag this command line did not give."""
    with FakeOpenAIServer(lambda req: Reply.text("ok")) as server:
        assert cli("-p", "hello", *fake(server), "--context-window", "6k").code == 0
        (cli.cwd / "AGENTS.md").write_text("Follow the house rules. " * 1_500)
        refused = cli("-c", "-p", "go on", "--api-key", "k")
    assert refused.code == 2, refused.stderr
    assert "(remembered --context-window 6,000)" in refused.stderr, refused.stderr
