"""The provider key reaches no model request through the texts the program itself puts in the
context beside the tools' results: a SessionStart hook's output (a hook that prints a project's
`.env`) and a PreCompact hook's, which join the compaction's instructions. A tool result is
redacted before the model sees it; these texts come from files and commands just the same."""

from __future__ import annotations

import json
from pathlib import Path

from compact_agent.agent.run.options import SessionOptions
from compact_agent.agent.run.runner import AgentSession
from compact_agent.config import Settings
from tests.fakes.openai_server import ChatRequest, FakeOpenAIServer, Reply

KEY = "sk-test-5f1e0c9a8b7d6e5f4a3b2c1d0e9f8a7b"


async def bodies_sent(tmp_path: Path, cwd: Path, steps: list[str | None], reply: str = "noted",
                      **options: object) -> list[str]:
    """Every request body an AgentSession in `cwd` sends to the fake server, given the key, for
    `steps`: each a message to send, or None for a /compact (its summary is a fixed one)."""
    sent: list[str] = []

    def model(req: ChatRequest) -> Reply:
        sent.append(json.dumps(req.body))
        if req.tool_choice == "none":
            return Reply.text("<summary>1. Primary Request and Intent: as asked.</summary>")
        return Reply.text(reply)

    with FakeOpenAIServer(model, api_key=KEY) as server:
        s = AgentSession(SessionOptions(cwd=cwd, model="fake-model", base_url=server.base_url, api_key=KEY,
                                        permission_mode="yes", home=tmp_path / "home", **options))  # type: ignore[arg-type]
        try:
            for step in steps:
                await (s.compact() if step is None else s.run_turn(step))
        finally:
            await s.aclose()
    return sent


async def test_hook_output_reaches_the_model_without_the_key(tmp_path: Path) -> None:
    cwd = tmp_path / "project"
    cwd.mkdir()
    (cwd / ".env").write_text(f"OPENAI_API_KEY={KEY}\n")
    hooks = {event: [{"hooks": [{"type": "command", "command": "cat .env"}]}] for event in ("SessionStart", "PreCompact")}
    sent = await bodies_sent(tmp_path, cwd, ["say hello", "again", None], reply="hello " * 400,
                             settings=Settings(hooks=hooks))
    assert any("OPENAI_API_KEY=[REDACTED]" in r for r in sent)  # the hook did run and its output went
    assert len(sent) >= 3
    assert not [r for r in sent if KEY in r]


async def test_a_shell_command_typed_in_the_repl_shows_and_sends_no_key(tmp_path: Path, monkeypatch) -> None:
    """`!cat .env` runs as the bash tool does, and its output goes to the terminal and with the next
    message: the key in it is redacted in both, as in the bash tool's result."""
    from tests.ui.repl_driver import drive

    monkeypatch.setenv("OPENAI_API_KEY", KEY)  # registered as the key in use when the model is built
    (tmp_path / "project").mkdir()
    (tmp_path / "project" / ".env").write_text(f"OPENAI_API_KEY={KEY}\n")
    sent: list[str] = []

    def model(req: ChatRequest) -> Reply:
        sent.append(json.dumps(req.body))
        return Reply.text("noted")

    run = await drive(tmp_path, model, ["!cat .env\r", "what is in it?\r"])
    assert run.prompts and "OPENAI_API_KEY=[REDACTED]" in run.prompts[0]
    assert KEY not in run.out
    assert sent and not [r for r in sent if KEY in r]


async def test_an_instruction_file_reaches_the_system_prompt_without_the_key(tmp_path: Path) -> None:
    """AGENTS.md is read into the system prompt of every request: a key written in it (the notes
    of how to run the project) goes there redacted, as the file read with read_file would."""
    cwd = tmp_path / "project"
    cwd.mkdir()
    (cwd / "AGENTS.md").write_text(f"Run the tests with OPENAI_API_KEY={KEY} make test.\n")
    sent = await bodies_sent(tmp_path, cwd, ["how do I run the tests?"])
    assert sent and all("OPENAI_API_KEY=[REDACTED] make test" in r for r in sent)
    assert not [r for r in sent if KEY in r]


async def test_appended_system_prompt_text_reaches_the_model_without_the_key(tmp_path: Path) -> None:
    """--append-system-prompt goes into the system prompt of every request, as AGENTS.md does: a key
    pasted in it goes there redacted."""
    cwd = tmp_path / "project"
    cwd.mkdir()
    sent = await bodies_sent(tmp_path, cwd, ["deploy it"],
                             append_system_prompt=f"Deploy with DEPLOY_KEY={KEY} when asked.")
    assert sent and all("Deploy with DEPLOY_KEY=[REDACTED] when asked." in r for r in sent)
    assert not [r for r in sent if KEY in r]


async def test_an_mcp_servers_instructions_reach_the_model_without_the_key(tmp_path: Path) -> None:
    """A server's instructions are declared to the model in the conversation (and again after a
    compaction), and its tools' descriptions go with every request: a server that echoes the key
    in them (its own config) has it redacted there."""
    import sys

    from tests.e2e.test_mcp import SERVER

    cwd = tmp_path / "project"
    cwd.mkdir()
    server_env = {"NOTES_SERVER_INSTRUCTIONS": f"NOTES-SERVER-RULE: the token is {KEY}.",
                  "NOTES_TOOL_DESCRIPTION": f"Look up a note; the server's token is {KEY}."}
    settings = Settings(memory_enabled=False,
                        mcp_servers={"notes": {"command": sys.executable, "args": [SERVER], "env": server_env}})
    sent = await bodies_sent(tmp_path, cwd, ["use the notes", "again", None, "and again"], reply="noted " * 400,
                             context_window=32_000, settings=settings)
    assert any("NOTES-SERVER-RULE: the token is [REDACTED]." in r for r in sent)  # the server did say it
    tooled = [r for r in sent if "notes_lookup_note" in r]
    assert tooled and all("Look up a note; the server's token is [REDACTED]." in r for r in tooled)
    assert not [r for r in sent if KEY in r]
