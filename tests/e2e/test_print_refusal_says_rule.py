"""A command refused in print mode although --allowed-tools gave 'bash(…)' rules says why they did not
cover it, on stderr, as the model is told: the line said `allow them with --allowed-tools` to one who
had, of `python -c …; sleep 0` under bash(python *), and not that each command of the line must be
allowed by itself. The command is written as a shell line between backticks: it was Python's repr of
its words, so one with a quote mark in it showed another quote or escapes (`"echo it's done"`)."""

from __future__ import annotations

import pytest

from compact_agent.agent.safety.bash_rules import why_not_allowed
from tests.fakes.openai_server import FakeOpenAIServer, Reply, tool_results

COMMAND = "python -c 'print(1)'; sleep 0"


def runs(command: str):
    def reply(req) -> Reply:
        if not tool_results(req):
            return Reply.tools([("bash", {"command": command})])
        return Reply.text("done")
    return reply


def test_the_refusal_says_which_command_no_rule_covers(cli):
    with FakeOpenAIServer(runs(COMMAND)) as server:
        args = ("-p", "run it", "--model", "fake-model", "--base-url", server.base_url, "--api-key", "k")
        ruled = cli(*args, "--allowed-tools", "bash(python *)")
        plain = cli(*args)
    assert ruled.code == 3 and plain.code == 3
    assert (f"refused 1 action needing approval: bash({COMMAND}) (each command of a compound line must be "
            "allowed by itself, and `sleep 0` is not covered by bash(python *)) — print mode does not ask") \
        in ruled.stderr, ruled.stderr
    assert f"refused 1 action needing approval: bash({COMMAND}) — print mode does not ask" in plain.stderr


def test_a_command_with_a_quote_mark_is_said_as_written(cli):
    command = """python x.py && echo "it's done\""""
    with FakeOpenAIServer(runs(command)) as server:
        ruled = cli("-p", "run it", "--model", "fake-model", "--base-url", server.base_url, "--api-key", "k",
                    "--allowed-tools", "bash(python *)")
    assert ruled.code == 3
    assert """and `echo "it's done"` is not covered by bash(python *)) — print mode""" in ruled.stderr, ruled.stderr
    assert "\\" not in ruled.stderr.split("needing approval:")[1], ruled.stderr


@pytest.mark.parametrize(("line", "said"), [
    ("""grep -n "a b" f.py""", "`grep -n 'a b' f.py` is not covered by bash(python *)"),
    ("""printf 'a\\tb'""", "`printf 'a\\tb'` is not covered by bash(python *)"),
    ("""echo "it's\"""", """`echo "it's"` is not covered by bash(python *)"""),
    ("ls", "`ls` is not covered by bash(python *)"),
])
def test_a_command_not_covered_is_a_shell_line(line: str, said: str) -> None:
    assert why_not_allowed(line, ["python *"]) == said
