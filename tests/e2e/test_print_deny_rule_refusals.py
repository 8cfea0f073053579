"""A bash line the deny rules refused in print mode (one a rule matches, or one whose commands they
cannot read) is listed and counted as a refused action, as one needing approval is: the result said
"success", `permission_denials` was empty, the exit code 0 and stderr silent, so a script took an
action that never happened for done. The stderr line says why (the rule), and that --yes does not
lift it; the refusal names the deny rules as they are, without a `…` after the only one."""

from __future__ import annotations

import pytest

from compact_agent.agent.safety.bash_rules import deny_words
from tests.fakes.openai_server import FakeOpenAIServer, Reply, tool_results


def runs(*commands: str):
    def reply(req) -> Reply:
        if not tool_results(req):
            return Reply.tools([("bash", {"command": c}) for c in commands])
        return Reply.text("done")
    return reply


@pytest.mark.parametrize(("line", "why"), [
    ("find . -exec rm {} +", "command matches deny rule 'rm *'"),
    ("i=1; echo $((i+1))", "what the command runs cannot be told (arithmetic on a name ($((…)), $[…], ((…)): bash evaluates "
                           "its value again), "
                           "so the deny rule ('rm *') cannot be checked"),
])
@pytest.mark.parametrize("yes", [False, True])
def test_a_deny_rule_refusal_is_counted(cli, line: str, why: str, yes: bool) -> None:
    (cli.cwd / ".compact-agent.toml").write_text('deny_bash = ["rm *"]\n')
    with FakeOpenAIServer(runs(line)) as server:
        res = cli("-p", "run it", "--output-format", "json", "--model", "fake-model", "--base-url", server.base_url,
                  "--api-key", "k", *(["--yes"] if yes else []))
    out = res.json()
    assert res.code == 3, (res.code, res.stderr)
    assert out["subtype"] == "error_permission_denied" and out["is_error"] is True, out
    assert out["permission_denials"] == [f"bash({line})"], out
    assert (f"compact-agent: refused 1 action by the deny rules, which --yes does not lift: bash({line}) ({why})"
            in res.stderr), res.stderr
    assert "needing approval" not in res.stderr, res.stderr


def test_both_kinds_of_refusal_are_said(cli) -> None:
    (cli.cwd / ".compact-agent.toml").write_text('deny_bash = ["rm *"]\n')
    with FakeOpenAIServer(runs("rm -f x", "touch y")) as server:
        res = cli("-p", "run it", "--model", "fake-model", "--base-url", server.base_url, "--api-key", "k")
    assert res.code == 3, res.stderr
    assert ("refused 2 actions: 1 action by the deny rules, which --yes does not lift: bash(rm -f x) "
            "(command matches deny rule 'rm *'); 1 action needing approval: bash(touch y) — print mode does not ask"
            in res.stderr), res.stderr


def test_the_refusal_names_the_rules_as_they_are() -> None:
    line = "i=1; echo $((i+1))"
    assert deny_words(line, "rm *", ["rm *"]).endswith("so the deny rule ('rm *') cannot be checked")
    assert deny_words(line, "rm *", ["rm *", "dd *"]).endswith("so the deny rules ('rm *', 'dd *') cannot be checked")
    five = ["rm *", "dd *", "mkfs *", "shred *", "git push *"]
    assert deny_words(line, "rm *", five).endswith("so the deny rules ('rm *', 'dd *', 'mkfs *', …) cannot be checked")
