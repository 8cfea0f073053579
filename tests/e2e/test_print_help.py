"""`compact-agent -p /help` listed the REPL's help: its keys (Esc, Ctrl-O, Ctrl-R, "Enter sends") and
/exit and /clear, which print mode refuses. It now lists what print mode takes, in its words."""

from __future__ import annotations

import re

from tests.fakes.openai_server import FakeOpenAIServer, Reply

from .test_print_commands import fake

REPL_KEYS = ("Enter sends", "Esc", "Ctrl-O", "Ctrl-R", "Ctrl-C", "Ctrl-D", "Tab completes", "!cmd")


def listed(text: str) -> set[str]:
    return set(re.findall(r"^(/[a-z]+)\b", text, re.M))


def test_print_mode_help_lists_what_print_mode_takes_without_the_repls_keys(cli):
    commands = cli.cwd / ".compact-agent" / "commands"
    commands.mkdir(parents=True)
    (commands / "review.md").write_text("---\ndescription: review a file\n---\nReview $ARGUMENTS.\n")
    with FakeOpenAIServer(lambda req: Reply.text("ok")) as server:
        text = cli("-p", "/help", *fake(server))
        as_json = cli("-p", "/help", *fake(server), "--output-format", "json")
        assert server.requests == []  # nothing sent for it
        refused = [cli("-p", name, *fake(server)) for name in sorted(listed(text.stdout))
                   if name not in ("/help", "/review")]  # each one listed is one print mode takes
    assert text.code == 0 and as_json.code == 0, text.stderr + as_json.stderr
    for out in (text.stdout, as_json.json()["result"]):
        names = listed(out)
        assert {"/help", "/status", "/compact", "/rewind", "/model", "/review"} <= names, out
        assert not names & {"/exit", "/clear", "/resume", "/quit", "/q"}, out
        for key in REPL_KEYS:
            assert key not in out, (key, out)
        assert "for this run only" in out and "only with --yes" in out  # /model's and /init's, as -p runs them
    assert all("is a REPL command" not in r.stderr for r in refused)
