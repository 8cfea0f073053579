"""Print mode with only `--allowed-tools 'bash(pytest *)'` (no --yes) runs none of the commands a
model hid in a line the rule seemed to cover: a comment, `$'\\''` quoting and `$[_]` / `${_@P}`
re-evaluating the word before each ran `touch`, unasked, through the real CLI and bash."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.e2e.conftest import Cli
from tests.fakes.openai_server import FakeOpenAIServer, Reply, tool_results
from tests.reliability.harness import Zygote


@pytest.fixture
def cli(tmp_path: Path, zygote: Zygote) -> Cli:
    cwd = tmp_path / "project"
    cwd.mkdir()
    return Cli(home=tmp_path / "home", cwd=cwd, zygote=zygote)


def lines(folder: Path) -> dict[str, str]:
    """Each hiding spelling, with the file its hidden `touch` makes."""
    made = {name: str(folder / name) for name in ("comment", "ansi_c", "arithmetic", "prompt")}
    return {
        made["comment"]: f"pytest --version #'\ntouch {made['comment']} #'",
        made["ansi_c"]: f"pytest --version $'\\'' ; touch {made['ansi_c']} ; pytest --version \\'",
        made["arithmetic"]: f"pytest --version x\\[\\$\\(touch\\ {made['arithmetic']}\\)\\]; pytest --version $[_]",
        made["prompt"]: f"pytest --version \\$\\(touch\\ {made['prompt']}\\); pytest --version ${{_@P}}",
    }


def script(commands: list[str]):
    def reply(req) -> Reply:
        if not tool_results(req):
            return Reply.tools([("bash", {"command": c}) for c in commands])
        return Reply.text("done")
    return reply


def test_an_allow_rule_runs_no_hidden_command(cli: Cli, tmp_path: Path) -> None:
    hidden = lines(tmp_path)
    with FakeOpenAIServer(script(list(hidden.values()))) as server:
        result = cli("-p", "run the tests", "--model", "fake-model", "--base-url", server.base_url,
                     "--api-key", "k", "--allowed-tools", "bash(pytest *)")
    assert [f for f in hidden if Path(f).exists()] == []
    assert result.code == 3, result.stderr  # refused: print mode does not ask
    said = [m["content"] for m in server.requests[-1].messages if m["role"] == "tool"]
    assert len(said) == 4 and all("bash needs approval" in s for s in said), said


def test_with_yes_the_same_lines_do_run_their_hidden_command(cli: Cli, tmp_path: Path) -> None:
    """The other side of the test above: bash does run what these lines hide."""
    hidden = lines(tmp_path)
    with FakeOpenAIServer(script(list(hidden.values()))) as server:
        cli("-p", "run the tests", "--model", "fake-model", "--base-url", server.base_url, "--api-key", "k", "--yes")
    assert [f for f in hidden if not Path(f).exists()] == []
