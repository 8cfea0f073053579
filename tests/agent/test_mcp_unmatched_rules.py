"""A rule naming an MCP tool that no server offers (a typo, a server that did not start) allowed
nothing without a word: `--allowed-tools notes_lookup_nte`, `allow_tools = ["lookupnote"]`. Once the
servers' lists are known, each such rule is said in one line naming it and the tools there are
(mcp_calls.unmatched_rules), through the real CLI and the notes server; /mcp lists them too."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from compact_agent.agent.integrations.mcp_calls import unmatched_rules
from compact_agent.agent.integrations.mcp_servers import McpServers, parse_servers
from compact_agent.agent.safety.permissions import Permissions
from compact_agent.ui.more_commands import mcp_rows
from tests.e2e.conftest import Cli
from tests.fakes.openai_server import FakeOpenAIServer, Reply

SERVER = str(Path(__file__).resolve().parents[1] / "fakes" / "mcp_notes_stdlib.py")


@pytest.fixture
def cli(tmp_path: Path, zygote) -> Cli:  # type: ignore[no-untyped-def]
    cwd, home = tmp_path / "project", tmp_path / "home"
    cwd.mkdir()
    home.mkdir()
    return Cli(home=home, cwd=cwd, zygote=zygote)


def configure(cli: Cli, extra: str = "", broken: bool = False) -> None:
    command = "/nonexistent/program" if broken else sys.executable
    (cli.home / "config.toml").write_text(
        f"[mcp_servers.notes]\ncommand = {command!r}\nargs = [{SERVER!r}]\n{extra}")


def run(cli: Cli, *args: str) -> list[str]:
    """The warning lines of a print-mode run (its stderr), the model answering at once."""
    with FakeOpenAIServer(lambda req: Reply.text("done")) as fake:
        res = cli("--base-url", fake.base_url, "-m", "fake-model", *args, "-p", "hi", env={"OPENAI_API_KEY": "sk-test"})
    assert res.stdout == "done\n", res.stderr
    return [line.removeprefix("compact-agent: ").removeprefix("warning: ") for line in res.stderr.splitlines()
            if "allows nothing" in line or "refuses nothing" in line]


def test_an_allowed_tool_no_server_offers_is_said_with_the_tools_there_are(cli: Cli) -> None:
    configure(cli)
    assert run(cli, "--allowed-tools", "notes_lookup_nte,bash(true),write_file") == [
        "--allowed-tools notes_lookup_nte allows nothing: no MCP server offers a tool of that name (did you mean "
        "notes_lookup_note? the servers' tools: notes_lookup_note)"]
    assert run(cli, "--allowed-tools", "notes_lookup_note") == []  # a name there is: no line


def test_an_allowed_tool_of_a_server_that_did_not_start_says_so(cli: Cli) -> None:
    configure(cli, broken=True)
    assert run(cli, "--allowed-tools", "notes_lookup_note") == [
        "--allowed-tools notes_lookup_note allows nothing: MCP server notes did not start (no server offers any tool)"]


def test_an_allowed_tool_with_no_server_configured_is_said(cli: Cli) -> None:
    assert run(cli, "--allowed-tools", "docs_search") == [
        "--allowed-tools docs_search allows nothing: no MCP servers are configured (no server offers any tool)"]


def test_a_server_rule_that_matches_none_of_its_tools_is_said(cli: Cli) -> None:
    configure(cli, 'allow_tools = ["lookupnote", "lookup_*"]\ndeny_tools = ["delete"]\n')
    assert run(cli) == [
        "mcp_servers.notes.allow_tools: 'lookupnote' matches none of the server's tools, so it allows nothing "
        "(did you mean lookup_note? its tools: lookup_note)",
        "mcp_servers.notes.deny_tools: 'delete' matches none of the server's tools, so it refuses nothing "
        "(its tools: lookup_note)"]


async def test_mcp_lists_them_under_the_servers(tmp_path: Path) -> None:
    """A /mcp that connects the servers says their lines in its list (a line of its own is not said then)."""
    [cfg] = parse_servers({"notes": {"command": sys.executable, "args": [SERVER], "allow_tools": ["lookup"]}})
    reported: list[str] = []
    mcp = McpServers([cfg], tmp_path, lambda action, line, detail: reported.append(line))
    perms = Permissions(tmp_path, "ask")
    perms.allowed_tools.update({"notes_lookup", "bash"})
    mcp.permissions = lambda: perms
    try:
        await mcp.connect()
    finally:
        await mcp.aclose()
    assert reported[1:] == mcp.unmatched and len(mcp.unmatched) == 2, reported  # after `notes: 1 tool`
    assert mcp.unmatched[0].startswith("--allowed-tools notes_lookup allows nothing")
    assert mcp.unmatched[1].startswith("mcp_servers.notes.allow_tools: 'lookup' matches none")
    assert [row for row, _ in mcp_rows(mcp)][-2:] == mcp.unmatched


def test_many_tools_are_named_up_to_twenty() -> None:
    [cfg] = parse_servers({"big": {"command": "x"}})
    listed = [f"big_t{n}" for n in range(25)]
    [line] = unmatched_rules(["big_zzz"], [(cfg, listed, listed)])
    assert line.endswith("big_t18, big_t19 and 5 more)"), line
