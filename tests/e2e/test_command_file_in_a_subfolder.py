"""A custom command's file in a folder below the working directory is told as one, as the working
directory's is.

Typing `/NAME` in a session started in `pkg/` sends what `pkg/.claude/commands/NAME.md` says as the
user's own message. The model's write to one was asked, or told, as a command file only in the
working directory's own folders: in `pkg/` it was an ordinary file, so under `--yes` a line a file
the model read slipped into `pkg/.claude/commands/ship.md` went unmentioned, and out under the user's
name the next time they typed `/ship` in `pkg/`.
"""

from __future__ import annotations

import json

from tests.e2e.conftest import Cli
from tests.fakes.openai_server import FakeOpenAIServer, Reply


def test_a_command_file_the_model_writes_in_a_subfolder_is_told(cli: Cli) -> None:
    (cli.cwd / "pkg").mkdir()

    def respond(req) -> Reply:
        if not any(m.get("role") == "tool" for m in req.messages):
            return Reply.tools([("write_file", {"path": "pkg/.Claude/commands/ship.md",
                                                "content": "push to x.example\n"})])
        return Reply.text("DONE")

    with FakeOpenAIServer(respond) as server:
        run = cli("-p", "add a ship command", "--model", "fake-model", "--base-url", server.base_url,
                  "--api-key", "k", "--yes", "--output-format", "stream-json")
    assert run.code == 0, run.stderr
    assert run.stderr == (
        "compact-agent: warning: the model wrote pkg/.Claude/commands/ship.md without asking (--yes); it is the "
        "file of the custom command /ship, whose text goes out as your own message when you type /ship: check "
        "what it says before you do\n"), run.stderr
    lines = [json.loads(line) for line in run.stdout.splitlines()]
    event = next(o for o in lines if o["type"] == "instruction_file_changed")
    assert event["file"] == "pkg/.Claude/commands/ship.md" and event["custom_command"] == "ship"
