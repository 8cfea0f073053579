"""Slash commands in print mode as the REPL runs them: a project's custom commands expand to their
prompt, and a word after a slash that names no command is refused, not sent to the model."""

from __future__ import annotations

from tests.fakes.openai_server import FakeOpenAIServer, Reply, message_text


def fake(server: FakeOpenAIServer) -> tuple[str, ...]:
    return ("--model", "fake-model", "--base-url", server.base_url, "--api-key", "k")


def last_user(req) -> str:
    return [message_text(m) for m in req.messages if m.get("role") == "user"][-1]


def test_a_custom_command_is_expanded_in_print_mode_as_in_the_repl(cli):
    """`-p "/review calc.py"` used to reach the model as the literal text `/review calc.py`."""
    commands = cli.cwd / ".compact-agent" / "commands"
    commands.mkdir(parents=True)
    (commands / "review.md").write_text("---\ndescription: review a file\n---\nPlease review $ARGUMENTS carefully.\n")
    (commands / "explain.md").write_text("Explain what this does.\n")
    with FakeOpenAIServer(lambda req: Reply.text("looked")) as server:
        review = cli("-p", "/review calc.py", *fake(server))
        piped = cli("-p", "/explain", *fake(server), input="LOG LINE 7\n")
        as_json = cli("-p", "/review a.py b.py", *fake(server), "--output-format", "json")
    assert review.code == 0 and piped.code == 0 and as_json.code == 0, review.stderr + piped.stderr + as_json.stderr
    assert last_user(server.requests[0]) == "Please review calc.py carefully."
    sent = last_user(server.requests[1])
    assert sent.startswith("Explain what this does.") and "LOG LINE 7" in sent  # piped input after it
    assert last_user(server.requests[2]) == "Please review a.py b.py carefully."
    assert as_json.json()["result"] == "looked"


def test_an_unknown_command_is_refused_and_a_path_is_still_a_prompt(cli):
    """`-p /bogus` was sent to the model as a question (the REPL refuses it); `/usr/lib …`, a path,
    is a question."""
    with FakeOpenAIServer(lambda req: Reply.text("ok")) as server:
        bogus = cli("-p", "/bogus", *fake(server))
        bogus_args = cli("-p", "/bogus with words", *fake(server), "--output-format", "json")
        path = cli("-p", "/usr/lib is missing a file, why?", *fake(server))
    assert bogus.code == 2 and bogus.stderr.startswith("compact-agent: unknown command /bogus; /help lists them")
    assert bogus_args.code == 2 and bogus_args.json()["is_error"] and "unknown command /bogus" in bogus_args.json()["error"]
    assert path.code == 0 and len(server.requests) == 1  # only the path went to the model
    assert cli.sessions() and len(cli.sessions()) == 1  # no session was made for the refused ones
