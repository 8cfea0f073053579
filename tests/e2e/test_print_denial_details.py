"""`--output-format json` says why each refused call was refused: `permission_denials` lists the
calls alone (strings, as scripts read them, left as they were), so a script could not tell a deny
rule's refusal (which --yes does not lift) from an action needing an approval print mode never asks
for, nor which rule it was. `permission_denial_details` lists the same calls in the same order, each
with `kind` ("deny_rule" or "needs_approval") and `reason`, the refusal's words whole; a result of a
run that refused nothing, or failed before its session was opened, has it empty."""

from __future__ import annotations

import json

import pytest

from tests.fakes.openai_server import FakeOpenAIServer, Reply, tool_results

from .test_print_prompt_saved_early import fake

CALLS = [("bash", {"command": "rm -f x"}), ("bash", {"command": "make build"}),
         ("write_file", {"path": "b.py", "content": "x = 1\n"})]
DETAILS = [
    {"call": "bash(rm -f x)", "kind": "deny_rule", "reason": "command matches deny rule 'rm *'"},
    {"call": "bash(make build)", "kind": "needs_approval",
     "reason": "needs approval, and print mode does not ask: `make build` is not covered by bash(python *)"},
    {"call": "write_file(b.py)", "kind": "needs_approval",
     "reason": "needs approval, and print mode does not ask (--yes or --allowed-tools allows it)"},
]


def refusing(req) -> Reply:
    return Reply.tools(CALLS) if not tool_results(req) else Reply.text("done")


@pytest.mark.parametrize("how", ["json", "stream-json"])
def test_each_refused_call_says_what_refused_it_and_why(cli, how: str) -> None:
    (cli.cwd / ".compact-agent.toml").write_text('deny_bash = ["rm *"]\n')
    with FakeOpenAIServer(refusing) as server:
        res = cli("-p", "tidy up", "--output-format", how, "--allowed-tools", "bash(python *)", *fake(server))
    assert res.code == 3, res.stderr
    result = json.loads(res.stdout.splitlines()[-1])
    assert result["permission_denials"] == ["bash(rm -f x)", "bash(make build)", "write_file(b.py)"]  # as before
    assert result["permission_denial_details"] == DETAILS
    assert not (cli.cwd / "b.py").exists()


def test_a_run_that_refused_nothing_has_none(cli) -> None:
    with FakeOpenAIServer(lambda req: Reply.text("ok")) as server:
        done = cli("-p", "hi", "--output-format", "json", *fake(server)).json()
    assert done["permission_denials"] == done["permission_denial_details"] == []
    early = cli("-p", "hi", "--output-format", "json").json()  # no API key: failed before its session opened
    assert early["is_error"] is True and early["permission_denial_details"] == []
