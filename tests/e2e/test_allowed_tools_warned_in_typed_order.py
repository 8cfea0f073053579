"""`--allowed-tools` names that no MCP server offers are warned of in the order they were typed:
they were kept as a set and listed alphabetically (`--allowed-tools zeta_find,alpha_find` warned of
alpha_find first), so the lines did not follow the command line the user was reading them against.
Both where no server is configured and once the configured servers' tools are known."""

from __future__ import annotations

import sys
from pathlib import Path

from tests.fakes.openai_server import FakeOpenAIServer, Reply

from .test_print_prompt_saved_early import fake

SERVER = str(Path(__file__).resolve().parents[1] / "fakes" / "mcp_notes_stdlib.py")
TYPED = ["zeta_find", "notes_lookup_nte", "alpha_find", "mid_find"]


def warned(cli, *args: str) -> list[str]:
    """The names the `allows nothing` warnings of a print-mode run name, in the order said."""
    with FakeOpenAIServer(lambda req: Reply.text("done")) as server:
        res = cli(*args, "-p", "hi", *fake(server))
    assert res.code == 0 and res.stdout == "done\n", res.stderr
    return [line.partition("--allowed-tools ")[2].partition(" ")[0] for line in res.stderr.splitlines()
            if "allows nothing" in line]


def test_with_no_server_configured(cli) -> None:
    assert warned(cli, "--allowed-tools", ",".join(TYPED[:2]), "--allowed-tools", ",".join(TYPED[2:])) == TYPED


def test_once_the_servers_tools_are_known(cli) -> None:
    cli.home.mkdir(exist_ok=True)
    (cli.home / "config.toml").write_text(f"[mcp_servers.notes]\ncommand = {sys.executable!r}\nargs = [{SERVER!r}]\n")
    allowed = [*TYPED[:2], "notes_lookup_note", *TYPED[2:]]  # the one the server offers is no warning
    assert warned(cli, "--allowed-tools", ",".join(allowed)) == TYPED
