"""The print-mode commands that send no request (`-c -p /cost`, `/history`, `/status`) run without
the provider's key, as `sessions` does: they failed with 'ANTHROPIC_API_KEY is not set', exit 1,
because the session's model was built, key and all, before the command ran. The key is now checked
when a request is about to be made; `/init`, whose turn sends one, is refused at once as before
(exit 1), leaving nothing unanswered in the session, and so is a prompt; nothing reaches the provider."""

from __future__ import annotations

from tests.fakes.anthropic_server import AnthropicReply, FakeAnthropicServer


def test_request_free_commands_run_without_the_key(cli) -> None:
    with FakeAnthropicServer(lambda req: AnthropicReply("ANSWERED")) as server:
        first = cli("-p", "hello", "--model", "claude-sonnet-4-5",
                    env={"ANTHROPIC_BASE_URL": server.base_url, "ANTHROPIC_API_KEY": "sk-ant-test"})
        assert first.code == 0, first.stderr
        keyless = {"ANTHROPIC_BASE_URL": server.base_url}  # the test's environment has no *_API_KEY
        ran = {c: cli("-c", "-p", c, env=keyless) for c in ("/cost", "/history", "/status")}
        init = cli("-c", "-p", "/init", "--yes", env=keyless)
        after = cli("-c", "-p", "/history", env=keyless)
        prompt = cli("-c", "-p", "go on", env=keyless)
        listed = cli("sessions", env=keyless)
    for command, run in ran.items():
        assert run.code == 0 and "not set" not in run.stderr, (command, run.stderr)
    assert "claude-sonnet-4-5" in ran["/cost"].stdout and "claude-sonnet-4-5" in ran["/status"].stdout
    assert "hello" in ran["/history"].stdout and "ANSWERED" in ran["/history"].stdout
    assert listed.code == 0 and "hello" in listed.stdout
    for run in (init, prompt):
        assert run.code == 1 and "ANTHROPIC_API_KEY is not set" in run.stderr, run.stderr
        assert "Traceback" not in run.stderr and len(run.stderr.strip().splitlines()) == 1, run.stderr
    assert after.code == 0 and "no answer" not in after.stderr, after.stderr  # /init's request was not left unanswered
    assert len(server.requests) == 1  # only the first run's: no command sent one, nor a placeholder key
