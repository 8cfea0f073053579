"""`-p /context` written to a file or a pipe carried rich's padding: every line of the picture and
of the table under it was filled with spaces to 80 columns ('context 1.0k / 8.0k tokens (13%),
estimated; auto-compaction at 5.2k          '). Lines now end at their last character."""

from __future__ import annotations

import io

from compact_agent.ui.trimmed_lines import trimmed
from tests.fakes.openai_server import FakeOpenAIServer, Reply


def test_slash_commands_written_to_a_file_have_no_trailing_spaces(cli) -> None:
    with FakeOpenAIServer(lambda req: Reply.text("ok")) as server:
        args = ("--model", "fake-model", "--base-url", server.base_url, "--api-key", "k", "--context-window", "8k")
        context = cli("-p", "/context", *args)
        status = cli("-p", "/status", *args)
    for res in (context, status):
        assert res.code == 0, res.stdout + res.stderr
        padded = [line for line in res.stdout.splitlines() if line != line.rstrip(" ")]
        assert not padded, padded
    assert "system prompt" in context.stdout and "tool definitions" in context.stdout, context.stdout


def test_spaces_are_dropped_only_at_the_end_of_a_line() -> None:
    out = io.StringIO()
    written = trimmed(out)
    for piece in ("a  ", " b   ", "\n", "  c", "   \nd  \n   ", "  "):
        written.write(piece)
    assert out.getvalue() == "a   b\n  c\nd\n"
