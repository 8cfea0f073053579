"""`-p "/revew calc.py"` where the project has `/review`: refused with the name it was close to, as a
mistyped built-in is, and nothing is sent."""

from __future__ import annotations

from tests.fakes.openai_server import FakeOpenAIServer, Reply


def test_a_mistyped_custom_command_is_named_in_print_mode(cli):
    commands = cli.cwd / ".compact-agent" / "commands"
    commands.mkdir(parents=True)
    (commands / "review.md").write_text("Please review $ARGUMENTS carefully.\n")
    with FakeOpenAIServer(lambda req: Reply.text("ok")) as server:
        typo = cli("-p", "/revew calc.py", "--model", "fake-model", "--base-url", server.base_url, "--api-key", "k")
    assert typo.code == 2, typo.stderr
    assert "unknown command /revew; did you mean /review? (nothing was sent)" in typo.stderr, typo.stderr
    assert not server.requests
