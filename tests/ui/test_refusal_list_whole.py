"""Print mode's refusal line (`compact-agent: refused N actions needing approval: …`) lists whole
calls, and whole reasons why the --allowed-tools rules did not cover them, the rest counted (`and
N more`): it cut its lists at 300 characters, mid-word and with nothing said, so a run that refused
several long commands did not show which the last one was, nor the rule that would cover it."""

from __future__ import annotations

from pathlib import Path

from compact_agent.agent.safety.permissions import Permissions
from compact_agent.ui.print_mode import EXIT_REFUSED, PrintRun

COMMANDS = [f"make -C services/{name}-gateway integration-tests" for name in ("billing", "accounts", "search",
                                                                              "reports", "archive", "ledger")]


def test_the_refusal_line_lists_whole_calls_and_counts_the_rest(tmp_path: Path, capsys) -> None:  # type: ignore[no-untyped-def]
    permissions = Permissions(tmp_path, "deny", allow_bash=["find *"])
    run = PrintRun("text", verbose=False)
    for n, command in enumerate(["find . -exec rm {} +", *COMMANDS], 1):
        run.on_tool({"type": "tool_call", "id": str(n), "tool": "bash", "args": {"command": command}})
        if (refusal := permissions.check("bash", command)) is not None:
            run.on_tool({"type": "tool_result", "id": str(n), "tool": "bash", "error": True, "content": refusal})
    assert run.refused() == EXIT_REFUSED
    line = capsys.readouterr().err
    head = "compact-agent: refused 7 actions needing approval: bash(find . -exec rm {} +); " + "; ".join(
        f"bash({c})" for c in COMMANDS[:4])
    assert line.startswith(f"{head} and 2 more ("), line
    # each reason whole (the first with the rule that would cover it), the others counted
    assert ("only a rule that spells it out covers it, such as bash(find * -exec rm *); `make -C "
            "services/billing-gateway integration-tests` is not covered by bash(find *) and 5 more) — print mode "
            "does not ask") in line, line
