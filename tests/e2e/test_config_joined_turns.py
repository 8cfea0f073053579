"""A server whose chat template refused user messages in a row is kept per endpoint and model
(servers/turns.json), and later runs there join them from their first request. `compact-agent config`
listed the windows kept, not this: a user could not see that the agent joins user messages for a
server, nor make it forget (after the server's template changed, say) but by deleting the file. Now
`config` lists each server and model with when it was learned (`joined_user_messages` in `--json`),
and `config --forget-server URL|all` forgets all that was learned of a server: its windows and the
joining, every model there or, with `-m NAME` before `config`, NAME's alone. `--forget-window`
forgets windows alone, as before."""

from __future__ import annotations

import json
from datetime import UTC, datetime
from types import SimpleNamespace

from pydantic_ai.messages import ModelMessage, ModelRequest, UserPromptPart
from pydantic_ai.models import ModelRequestParameters

from compact_agent.agent.run import server_turns, server_windows
from compact_agent.models import build_model, model_info
from tests.e2e.conftest import Cli
from tests.fakes._wire import message_text
from tests.fakes.openai_server import FakeOpenAIServer, Reply

A, B = "http://127.0.0.1:8080/v1", "http://localhost:11434/v1"
WHEN = datetime(2026, 5, 1, 9, 30, tzinfo=UTC)


def keep(cli: Cli) -> None:
    server_windows.remember(cli.home, A, "mistral", 8_000, "refused", now=WHEN)
    server_turns.keep(cli.home, A, "mistral", now=WHEN)
    server_turns.keep(cli.home, A, "gemma", now=WHEN)
    server_turns.keep(cli.home, B, "gemma", now=WHEN)


def squeezed(lines: list[str]) -> list[str]:
    return [" ".join(line.split()) for line in lines]


async def test_what_a_run_learned_is_listed_with_when(cli: Cli) -> None:
    none = cli("config")
    assert none.code == 0, none.stderr
    assert none.stdout.endswith(f"user messages sent joined: none ({cli.home / 'servers' / 'turns.json'})\n")

    asked: list[ModelMessage] = [ModelRequest(parts=[UserPromptPart("the task"), UserPromptPart("a digest")])]
    with FakeOpenAIServer(lambda req: Reply.text(message_text(req.messages[-1])), model="local",
                          alternating_roles="llama.cpp") as server:
        model = build_model("local", base_url=server.base_url, api_key="k")
        opts = SimpleNamespace(model_override=None, home=cli.home, base_url=server.base_url)
        server_turns.wire(model, opts, model_info("local", provider="openai"))  # as a session wires its model
        await model.request(asked, None, ModelRequestParameters())
        url = server.base_url
    assert len(server.rejected) == 1

    listed = cli("config")
    assert listed.code == 0, listed.stderr
    lines = listed.stdout.splitlines()
    start = lines.index(f"user messages sent joined ({cli.home / 'servers' / 'turns.json'}):")
    [row] = squeezed(lines[start + 1:start + 2])
    assert row.startswith(f"{url} local its chat template refused them in a row, 20"), row
    assert row.endswith(" UTC") and len(lines) == start + 3, lines[start:]
    assert lines[start + 2] == ("forget: compact-agent config --forget-server URL (its windows too; every server: "
                                "--forget-server all)")
    [joined] = cli("config", "--json").json()["joined_user_messages"]
    assert joined["endpoint"] == url and joined["model"] == "local"
    assert datetime.fromisoformat(joined["learned"]).tzinfo is not None


def test_config_lists_every_server_and_model_and_a_first_versions_file(cli: Cli) -> None:
    keep(cli)
    lines = cli("config").stdout.splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith("user messages sent joined ("))
    assert squeezed(lines[start + 1:start + 4]) == [
        f"{A} gemma its chat template refused them in a row, 2026-05-01 09:30 UTC",
        f"{A} mistral its chat template refused them in a row, 2026-05-01 09:30 UTC",
        f"{B} gemma its chat template refused them in a row, 2026-05-01 09:30 UTC"]
    assert any(line.startswith(f"{A}") and "8,000 tokens" in line for line in lines[:start])  # the windows, before

    server_turns.path_in(cli.home).write_text(json.dumps({"joined": {A: ["mistral"]}}))  # as the first version wrote it
    assert server_turns.joins(cli.home, A, "mistral")
    lines = cli("config").stdout.splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith("user messages sent joined ("))
    assert squeezed(lines[start + 1:start + 2]) == [f"{A} mistral its chat template refused them in a row"]
    assert cli("config", "--json").json()["joined_user_messages"] == [
        {"endpoint": A, "model": "mistral", "learned": None}]


def test_forget_server_forgets_all_learned_there_one_model_or_every_server(cli: Cli) -> None:
    keep(cli)
    one = cli("-m", "gemma", "config", "--forget-server", A + "/")  # gemma's alone there; the slash as typed
    assert (one.code, one.stderr) == (0, "")
    assert one.stdout == (f"forgot that gemma at {A} wants user messages joined (2026-05-01 09:30 UTC); runs there "
                          "send them apart, and join them again if the server refuses them\n")
    assert [(u, m) for u, m, _ in server_turns.every(cli.home)] == [(A, "mistral"), (B, "gemma")]

    typo = cli("config", "--forget-server", "http://127.0.0.1:8081/v1")
    assert (typo.code, typo.stdout) == (1, "")
    assert typo.stderr == ("compact-agent: --forget-server: nothing is remembered of http://127.0.0.1:8081/v1; "
                           f"kept: {A}, {B}\n")

    there = cli("config", "--forget-server", A)  # the window and the joining
    assert there.code == 0, there.stderr
    assert there.stdout.splitlines() == [
        f"forgot the window of mistral at {A}: 8,000 tokens, named in a refusal, 2026-05-01 09:30 UTC; sessions "
        "there, new or resumed, start in the window given or assumed",
        f"forgot that mistral at {A} wants user messages joined (2026-05-01 09:30 UTC); runs there send them apart, "
        "and join them again if the server refuses them"]
    assert server_windows.every(cli.home) == [] and not server_turns.joins(cli.home, A, "mistral")

    every = cli("config", "--forget-server", "all", "--json").json()
    assert every == {"forgotten": {"server_windows": [], "joined_user_messages": [
        {"endpoint": B, "model": "gemma", "learned": "2026-05-01T09:30:00+00:00"}]}}
    assert server_turns.every(cli.home) == []
    again = cli("config", "--forget-server", "all")
    assert (again.code, again.stdout) == (0, "nothing was remembered of any server\n")


def test_forget_window_leaves_the_joining_and_the_two_options_are_not_given_together(cli: Cli) -> None:
    keep(cli)
    windows = cli("config", "--forget-window", A)
    assert windows.code == 0 and windows.stdout.startswith(f"forgot the window of mistral at {A}")
    assert server_turns.joins(cli.home, A, "mistral")  # the windows' option forgets windows alone
    none = cli("config", "--forget-window", B)  # no window there, and the line says what is kept there
    assert (none.code, none.stdout) == (1, "")
    assert none.stderr == (f"compact-agent: --forget-window: no window is remembered for {B}; none is kept (user "
                           f"messages are sent joined there: --forget-server {B} forgets that)\n")
    odd = "http://127.0.0.1:8080/v1?a=1&b=2"  # named as a shell takes it, as the windows' hint names it
    server_turns.keep(cli.home, odd, "mistral")
    assert cli("config", "--forget-window", odd).stderr.endswith(f"--forget-server '{odd}' forgets that)\n")

    both = cli("config", "--forget-window", "all", "--forget-server", "all")
    assert (both.code, both.stdout) == (2, "")
    assert both.stderr == ("compact-agent: --forget-window and --forget-server: give one (--forget-server forgets "
                           "the windows too)\n")
    assert len(server_turns.every(cli.home)) == 4

    help_text = " ".join(cli("config", "--help").stdout.split())
    assert "--forget-server URL|all Forget all that was learned from the server at URL" in help_text, help_text


def test_a_turns_file_that_cannot_be_read_is_said_once(cli: Cli) -> None:
    """`{not json` in servers/turns.json listed as `user messages sent joined: none`, without a word:
    a warning names the file and says it is ignored, as for the windows' file."""
    path = server_turns.path_in(cli.home)
    path.parent.mkdir(parents=True)
    for text, why in (("{not json", "not valid JSON"), ("[1, 2]", "not in the expected shape")):
        path.write_text(text)
        res = cli("config")
        assert res.code == 0 and f"user messages sent joined: none ({path})" in res.stdout, res.stdout
        assert res.stderr == (f"compact-agent: warning: ignoring the servers user messages are sent joined to, kept "
                              f"in {path}: {why}\n"), res.stderr
