"""An MCP server's instructions are declared in the conversation and put back after every compaction,
so a server whose instructions ran to 360 KB (about 90K tokens) held a 16K window's history above the
window for good: no compaction could shrink it below them ('compaction would not shrink the
context'). A server's instructions keep their first 10,000 characters, as a hook's output does, and
a line inside the fence says how many more were left out."""

from __future__ import annotations

import json
import sys

from compact_agent.agent.integrations.fenced import MAX_INSTRUCTION_CHARS, kept_start
from tests.e2e.conftest import Cli
from tests.e2e.test_hook_and_server_text_fenced import responder, run_session, user_messages
from tests.e2e.test_mcp import SERVER
from tests.fakes.openai_server import FakeOpenAIServer

LONG = "Look notes up with lookup_note. " + "".join(f"Rule {i}: keep notes short. " for i in range(3_500))  # ~95 KB: an environment string holds at most 128 KB


def test_a_text_within_the_limit_is_kept_whole_and_a_longer_one_keeps_its_start() -> None:
    assert kept_start("short") == "short"
    cut = kept_start(LONG)
    assert cut.startswith(LONG[:MAX_INSTRUCTION_CHARS])
    assert cut.endswith(f"[cut here: {len(LONG) - MAX_INSTRUCTION_CHARS:,} more characters left out, "
                        f"the first {MAX_INSTRUCTION_CHARS:,} kept]")


def test_a_servers_long_instructions_keep_their_start_in_every_declaration(cli: Cli) -> None:
    assert len(LONG) > 90_000
    cli.home.mkdir(parents=True, exist_ok=True)
    (cli.home / "config.toml").write_text(
        f"[mcp_servers.notes]\ncommand = {json.dumps(sys.executable)}\nargs = [{json.dumps(SERVER)}]\n"
        f"env = {{ NOTES_SERVER_INSTRUCTIONS = {json.dumps(LONG)} }}\n")
    with FakeOpenAIServer(responder, window=64_000, model="deepseek-chat") as server:
        run_session(cli, server)  # three turns and a /compact, nothing refused
    declared = [text for req in server.requests for text in user_messages(req)
                if text.startswith("[compact-agent: MCP servers]")]
    assert len(declared) >= 4  # in every request, and put back after the compaction
    for text in declared:
        assert "Look notes up with lookup_note." in text and "more characters left out" in text
        assert len(text) < MAX_INSTRUCTION_CHARS + 2_000, len(text)
