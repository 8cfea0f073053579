"""A custom command whose file holds no prompt (front matter alone, or nothing) is refused in one
line before anything is sent: it sent an empty message, which the provider refused with an HTTP 400,
and every later message of the session with it, the history keeping the empty one."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from compact_agent.ui.command_registry import CommandError
from compact_agent.ui.custom_commands import custom_command, custom_prompt
from tests.fakes.openai_server import ChatRequest, Reply, message_text

from .repl_driver import drive


def commands_dir(tmp_path: Path) -> Path:
    d = tmp_path / "project" / ".claude" / "commands"
    d.mkdir(parents=True)
    return d


def refusing_empty(req: ChatRequest) -> Reply:
    """As a provider refuses a message with no text."""
    if any(m.get("role") == "user" and not message_text(m).strip() for m in req.messages):
        return Reply.error(400, {"error": {"message": "Invalid 'messages': empty content", "type": "invalid_request_error"}})
    return Reply.text("fine")


async def test_a_command_of_front_matter_alone_is_refused_and_the_session_goes_on(tmp_path: Path) -> None:
    commands = commands_dir(tmp_path)
    (commands / "x.md").write_text("---\ndescription: x\n---\n")
    run = await drive(tmp_path, refusing_empty, ["/x\r", "hello\r"])
    flat = " ".join(run.out.split())
    assert (f"/x is not run: {commands / 'x.md'} holds only its front matter, and a command needs a prompt "
            "(write one after the front matter, or give one after the command's name)") in flat, run.out
    # no 400 said (a token of its own: the session id's time and hex may hold the digits)
    assert not re.search(r"\b400\b", run.out) and "fine" in run.out, run.out
    assert [m for r in run.server.requests for m in r.messages if m.get("role") == "user"
            and not message_text(m).strip()] == []


@pytest.mark.parametrize("text", ["---\ndescription: x\n---\n", "---\ndescription: x\n---", "", "  \n\n",
                                  "---\n---\n"])
def test_a_blank_command_is_refused_and_arguments_make_it_one(tmp_path: Path, text: str) -> None:
    (commands_dir(tmp_path) / "x.md").write_text(text)
    path = custom_command(tmp_path / "project", "x")
    assert path is not None
    with pytest.raises(CommandError) as e:
        custom_prompt(path, "")
    assert str(e.value).startswith(f"/x is not run: {path} "), e.value
    assert custom_prompt(path, "review a.py") == "review a.py"


def test_a_closing_line_without_a_newline_is_front_matter(tmp_path: Path) -> None:
    (commands_dir(tmp_path) / "x.md").write_text("---\n---\nreview the diff")
    path = custom_command(tmp_path / "project", "x")
    assert path is not None and custom_prompt(path, "") == "review the diff"
