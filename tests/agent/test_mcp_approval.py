"""A call of an MCP server's tool needs approval as a `bash` command does (mcp_calls.py): refused in
print mode without `--yes` or an allow rule, asked in the REPL (server, tool and arguments shown,
"always" allowing the tool for the session), allowed by `--allowed-tools <server>_<tool>` or the
server's `allow_tools`, refused by its `deny_tools` even with `--yes`. Every MCP tool ran unasked."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import pytest

from compact_agent.agent.integrations.mcp_servers import McpConfigError, parse_servers
from compact_agent.agent.run.options import SessionOptions
from compact_agent.agent.run.runner import AgentSession
from compact_agent.agent.safety.permissions import Answer, Instead
from compact_agent.config import Settings
from tests.fakes.openai_server import ChatRequest, FakeOpenAIServer, Reply, message_text, tool_results

SERVER = str(Path(__file__).resolve().parents[1] / "fakes" / "mcp_notes_stdlib.py")
NOTE = "NOTE[alpha]: the note body"
NEEDS = ("permission denied: notes_lookup_note, the tool lookup_note of MCP server notes, needs approval; rerun "
         'with --yes, or allow it with --allowed-tools notes_lookup_note or allow_tools = ["lookup_note"] in '
         "[mcp_servers.notes]")


def model(req: ChatRequest) -> Reply:
    """Looks the note up, and bash runs `true`, in one reply; then again; then says what it got."""
    done = sum(1 for r in req.messages if r.get("role") == "tool")
    if done >= 4:
        return Reply.text("done")
    return Reply.tools([("notes_lookup_note", {"key": "alpha"}), ("bash", {"command": "true"})])


async def results(tmp_path: Path, mode: str, server: dict[str, Any] | None = None, allowed: tuple[str, ...] = (),
                  ask: Any = None) -> list[str]:
    """What the model got for each call (the MCP call first in each pair), in `mode`."""
    cwd = tmp_path / "project"
    cwd.mkdir(exist_ok=True)
    settings = Settings(memory_enabled=False, mcp_servers={"notes": {"command": sys.executable, "args": [SERVER],
                                                                     **(server or {})}})
    with FakeOpenAIServer(model) as fake:
        s = AgentSession(SessionOptions(cwd=cwd, model="fake-model", base_url=fake.base_url, api_key="k",
                                        context_window=32_000, permission_mode=mode, home=tmp_path / "home",
                                        settings=settings, allowed_tools=allowed, ask=ask))
        try:
            assert (await s.run_turn("look it up")).output == "done"
        finally:
            await s.aclose()
    last = [r for r in fake.requests if tool_results(r)][-1]
    return [message_text(m) for m in last.messages if m.get("role") == "tool"]


async def test_print_mode_refuses_an_mcp_call_without_yes_or_a_rule(tmp_path: Path) -> None:
    got = await results(tmp_path, "deny")
    assert got[0] == NEEDS and got[2] == NEEDS, got
    assert got[1].startswith("permission denied: bash needs approval")


@pytest.mark.parametrize("how", ["--allowed-tools", "allow_tools", "allow_tools *", "--yes"])
async def test_an_allow_rule_or_yes_lets_it_run(tmp_path: Path, how: str) -> None:
    server = {"allow_tools": ["lookup_note"]} if how == "allow_tools" else \
        {"allow_tools": ["*"]} if how == "allow_tools *" else {}
    got = await results(tmp_path, "yes" if how == "--yes" else "deny", server,
                        ("notes_lookup_note",) if how == "--allowed-tools" else ())
    assert got[0].startswith(NOTE) and got[2].startswith(NOTE), got


async def test_an_allow_rule_for_another_tool_allows_nothing(tmp_path: Path) -> None:
    got = await results(tmp_path, "deny", {"allow_tools": ["lookup"]}, ("notes_lookup",))
    assert got[0] == NEEDS, got


async def test_deny_tools_refuses_it_even_with_yes(tmp_path: Path) -> None:
    got = await results(tmp_path, "yes", {"deny_tools": ["lookup_*"], "allow_tools": ["*"]}, ("notes_lookup_note",))
    assert got[0] == ("permission denied: notes_lookup_note matches the rule 'lookup_*' of deny_tools in "
                      "[mcp_servers.notes]"), got
    assert got[1].endswith("exit code: 0"), got  # --yes: bash ran


async def test_the_repl_asks_naming_server_tool_and_arguments_and_always_covers_the_tool(tmp_path: Path) -> None:
    asked: list[tuple[str, str]] = []
    answers: list[Answer | Instead] = ["always", "once", "once"]

    def ask(tool: str, detail: str) -> Answer | Instead:
        asked.append((tool, detail))
        return answers.pop(0)

    got = await results(tmp_path, "ask", ask=ask)
    assert got[0].startswith(NOTE) and got[2].startswith(NOTE), got
    assert [tool for tool, _ in asked] == ["notes_lookup_note", "bash", "bash"]  # asked once: "always"
    assert asked[0][1] == 'call the tool lookup_note of MCP server notes, with these arguments\n{\n  "key": "alpha"\n}'


async def test_the_repl_s_no_refuses_it(tmp_path: Path) -> None:
    answers: list[Answer | Instead] = ["deny", "once", Instead("use the docs"), "once"]
    got = await results(tmp_path, "ask", ask=lambda tool, detail: answers.pop(0))
    assert got[0] == "permission denied: the user declined this notes_lookup_note call"
    assert got[2] == ("permission denied: the user declined this notes_lookup_note call. The user's instruction "
                      "(follow it instead of this call): use the docs")


def test_the_rules_are_lists_of_names() -> None:
    [cfg] = parse_servers({"t": {"command": "x", "allow_tools": ["a", "b_*"], "deny_tools": ["c"]}})
    assert cfg.allow_tools == ("a", "b_*") and cfg.deny_tools == ("c",)
    with pytest.raises(McpConfigError) as e:
        parse_servers({"t": {"command": "x", "allow_tools": "a", "deny_tools": [1]}})
    assert str(e.value) == ('mcp_servers.t.allow_tools: expected a list of the server\'s tool names (`*`: every one), '
                            'not "a"; mcp_servers.t.deny_tools: expected a list of the server\'s tool names (`*`: '
                            "every one), not [1]")


def test_print_mode_and_allowed_tools_on_the_command_line(tmp_path: Path, zygote) -> None:  # type: ignore[no-untyped-def]
    from tests.e2e.conftest import Cli

    cwd, home = tmp_path / "project", tmp_path / "home"
    cwd.mkdir()
    home.mkdir()
    (home / "config.toml").write_text(f"[mcp_servers.notes]\ncommand = {sys.executable!r}\nargs = [{SERVER!r}]\n")
    cli = Cli(home=home, cwd=cwd, zygote=zygote)
    got: list[list[str]] = []
    refused = []
    for allowed in ([], ["--allowed-tools", "notes_lookup_note"], ["--allowed-tools", "bash(true),notes_lookup_note"]):
        with FakeOpenAIServer(model) as fake:
            res = cli("--base-url", fake.base_url, "-m", "fake-model", *allowed, "-p", "look it up",
                      env={"OPENAI_API_KEY": "sk-test"})
            assert res.stdout == "done\n", res.stderr
        refused.append((res.code, res.stderr.partition(" — ")[0]))
        got.append([message_text(m) for m in fake.requests[-1].messages if m.get("role") == "tool"])
    assert refused == [  # exit 3: refused actions, said on stderr
        (3, 'compact-agent: refused 4 actions needing approval: notes_lookup_note({"key": "alpha"}); bash(true); '
            'notes_lookup_note({"key": "alpha"}); bash(true)'),
        (3, "compact-agent: refused 2 actions needing approval: bash(true); bash(true)"), (0, "")]
    assert got[0][0] == NEEDS
    assert got[1][0].startswith(NOTE) and got[1][1].startswith("permission denied: bash needs approval")
    assert got[2][0].startswith(NOTE) and got[2][1].endswith("exit code: 0")
    typo = cli("--allowed-tools", "write_fle", "-p", "hi", env={"OPENAI_API_KEY": "sk-test"})
    assert typo.code == 2 and "unknown tool 'write_fle'; did you mean write_file?" in typo.stderr, typo.stderr
