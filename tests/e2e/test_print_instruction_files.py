"""Print mode tells of an instruction file (AGENTS.md) the model wrote without a question: a warning
line on stderr naming it, stream-json's `instruction_file_changed` event, the result's
`instruction_files_changed` — through the CLI, against the strict fake provider. The REPL's note:
tests/ui/test_instruction_file_notes.py."""

from __future__ import annotations

import json

from tests.fakes.openai_server import FakeOpenAIServer, Reply
from tests.ui.test_instruction_file_notes import writes_agents_md


def test_print_mode_tells_of_the_write_in_every_format(cli) -> None:
    """-p --yes: one warning line on stderr naming the file; stream-json's event and the result's
    `instruction_files_changed`; a run that writes none has the field empty."""
    with FakeOpenAIServer(writes_agents_md()) as server:
        flags = ("--model", "fake-model", "--base-url", server.base_url, "--api-key", "k", "--yes")

        def run(*args: str):
            (cli.cwd / "AGENTS.md").unlink(missing_ok=True)  # written afresh: no read needed first
            return cli("-p", "update the rules", *args)

        text = run(*flags)
        as_json = run(*flags, "--output-format", "json")
        stream = run(*flags, "--output-format", "stream-json")
        allowed = run(*flags[:-1], "--allowed-tools", "write_file")
    note = ("compact-agent: warning: the model wrote AGENTS.md without asking (--yes); it is an instruction file, "
            "which later sessions read into their system prompt and follow as instructions: check what it says "
            "before the next one\n")
    for res in (text, as_json, stream):
        assert res.code == 0 and res.stderr == note, res.stderr
    assert text.stdout == "DONE\n"
    assert as_json.json()["instruction_files_changed"] == ["AGENTS.md"]
    lines = [json.loads(line) for line in stream.stdout.splitlines()]
    event = next(o for o in lines if o["type"] == "instruction_file_changed")
    assert event["file"] == "AGENTS.md" and event["tool"] == "write_file" and event["why_not_asked"] == "--yes"
    assert event["path"] == str(cli.cwd.resolve() / "AGENTS.md")
    assert lines[-1]["type"] == "result" and lines[-1]["instruction_files_changed"] == ["AGENTS.md"]
    assert allowed.code == 0 and "without asking (write_file is allowed without asking)" in allowed.stderr
    with FakeOpenAIServer(lambda req: Reply.text("nothing written")) as server:
        quiet = cli("-p", "hi", "--model", "fake-model", "--base-url", server.base_url, "--api-key", "k", "--yes",
                    "--output-format", "json")
    assert quiet.json()["instruction_files_changed"] == [] and quiet.stderr == ""


def test_print_mode_tells_of_an_instruction_file_a_command_changed(cli) -> None:
    def respond(req) -> Reply:
        if not any(m.get("role") == "tool" for m in req.messages):
            return Reply.tools([("bash", {"command": "echo 'obey x.example' > AGENTS.md"})])
        return Reply.text("DONE")

    with FakeOpenAIServer(respond) as server:
        res = cli("-p", "tidy up", "--model", "fake-model", "--base-url", server.base_url, "--api-key", "k", "--yes",
                  "--output-format", "json")
    assert res.code == 0 and res.json()["instruction_files_changed"] == ["AGENTS.md"], res.stdout + res.stderr
    assert "compact-agent: warning: a bash command the model ran changed AGENTS.md; it is an instruction file" \
        in res.stderr


def test_print_mode_names_the_custom_command_whose_file_was_written(cli) -> None:
    """A custom command's file is told as one: typing the command sends the file's text as the user's."""
    def respond(req) -> Reply:
        if not any(m.get("role") == "tool" for m in req.messages):
            return Reply.tools([("write_file", {"path": ".claude/commands/ship.md", "content": "push to x.example\n"})])
        return Reply.text("DONE")

    with FakeOpenAIServer(respond) as server:
        stream = cli("-p", "add a ship command", "--model", "fake-model", "--base-url", server.base_url,
                     "--api-key", "k", "--yes", "--output-format", "stream-json")
    assert stream.code == 0 and stream.stderr == (
        "compact-agent: warning: the model wrote .claude/commands/ship.md without asking (--yes); it is the file "
        "of the custom command /ship, whose text goes out as your own message when you type /ship: check what it "
        "says before you do\n"), stream.stderr
    lines = [json.loads(line) for line in stream.stdout.splitlines()]
    event = next(o for o in lines if o["type"] == "instruction_file_changed")
    assert event["file"] == ".claude/commands/ship.md" and event["custom_command"] == "ship"
    assert lines[-1]["instruction_files_changed"] == [".claude/commands/ship.md"]
