"""`-p` ended by SIGTERM or Ctrl-C (SIGINT) after refusing actions says them as a run that ends
does: the line of each refused call with why on stderr, before the signal's own line, and the JSON
result's `permission_denials` and `permission_denial_details`. The signal path said only its own
line, so a script's log did not show that the run had been refused anything before it was stopped.
The signal's line stays the last, and the exit status is the signal's (killed by SIGTERM; 130)."""

from __future__ import annotations

import json
import signal
import threading

import pytest

from tests.fakes.openai_server import FakeOpenAIServer, Reply, tool_results

from .held_request import signalled
from .test_print_interrupted import LINE as INTERRUPTED
from .test_print_terminated import LINE as TERMINATED

REFUSED = ("compact-agent: refused 2 actions: 1 action by the deny rules, which --yes does not lift: bash(rm -f x) "
           "(command matches deny rule 'rm *'); 1 action needing approval: bash(touch y) — print mode does not ask; "
           "rerun with --yes, or allow them with --allowed-tools\n")
DETAILS = [{"call": "bash(rm -f x)", "kind": "deny_rule", "reason": "command matches deny rule 'rm *'"},
           {"call": "bash(touch y)", "kind": "needs_approval",
            "reason": "needs approval, and print mode does not ask (--yes or --allowed-tools allows it)"}]


def refused_then_stopped(cli, sig: signal.Signals, *args: str) -> tuple[int, list[str], str]:
    """`-p` whose model calls two commands print mode refuses, then `sig` while the request that
    carries the refusals is held by the server: exit, stdout lines, stderr."""
    (cli.cwd / ".compact-agent.toml").write_text('deny_bash = ["rm *"]\n')
    arrived, release = threading.Event(), threading.Event()

    def reply(req) -> Reply:
        if not tool_results(req):
            return Reply.tools([("bash", {"command": "rm -f x"}), ("bash", {"command": "touch y"})])
        arrived.set()  # the refusals are made: held until the signal came
        release.wait(60)
        return Reply.text("done")

    return signalled(cli, FakeOpenAIServer(reply), arrived, release, sig, "-p", "tidy up", *args)


@pytest.mark.parametrize(("sig", "code", "line"), [(signal.SIGTERM, -signal.SIGTERM, TERMINATED.format("SIGTERM")),
                                                   (signal.SIGINT, 130, INTERRUPTED)])
def test_text_output_says_the_refusals_before_the_signals_line(cli, sig, code, line):
    got, lines, err = refused_then_stopped(cli, sig)
    assert got == code and lines == []
    assert err == REFUSED + line, err


@pytest.mark.parametrize(("sig", "code", "subtype"), [(signal.SIGTERM, -signal.SIGTERM, "error_terminated"),
                                                      (signal.SIGINT, 130, "error_interrupted")])
def test_json_output_lists_them_with_why(cli, sig, code, subtype):
    got, lines, err = refused_then_stopped(cli, sig, "--output-format", "json")
    assert got == code and len(lines) == 1, (got, lines, err)
    result = json.loads(lines[0])
    assert result["subtype"] == subtype and result["signal"] == sig.name
    assert result["permission_denials"] == ["bash(rm -f x)", "bash(touch y)"]
    assert result["permission_denial_details"] == DETAILS
    assert err == REFUSED + f"compact-agent: {result['error']}\n", err
