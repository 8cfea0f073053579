"""A command refused in print mode although --allowed-tools gave 'bash(…)' rules says why they did not
cover it, on stderr, as the model is told: the line said `allow them with --allowed-tools` to one who
had, of `python -c …; sleep 0` under bash(python *), and not that each command of the line must be
allowed by itself."""

from __future__ import annotations

from tests.fakes.openai_server import FakeOpenAIServer, Reply, tool_results

COMMAND = "python -c 'print(1)'; sleep 0"


def runs_a_compound_line(req) -> Reply:
    if not tool_results(req):
        return Reply.tools([("bash", {"command": COMMAND})])
    return Reply.text("done")


def test_the_refusal_says_which_command_no_rule_covers(cli):
    with FakeOpenAIServer(runs_a_compound_line) as server:
        args = ("-p", "run it", "--model", "fake-model", "--base-url", server.base_url, "--api-key", "k")
        ruled = cli(*args, "--allowed-tools", "bash(python *)")
        plain = cli(*args)
    assert ruled.code == 3 and plain.code == 3
    assert (f"refused 1 action needing approval: bash({COMMAND}) (each command of a compound line must be "
            "allowed by itself, and 'sleep 0' is not covered by bash(python *)) — print mode does not ask") \
        in ruled.stderr, ruled.stderr
    assert f"refused 1 action needing approval: bash({COMMAND}) — print mode does not ask" in plain.stderr
