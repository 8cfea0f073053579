"""Print mode's refusal line (`compact-agent: refused N actions needing approval: …`) lists each
call with why the --allowed-tools rules did not cover it, short, the rest counted (`and N more`).
The calls and the reasons were two lists counted apart (`bash(…) and 3 more (`make …` is not
covered by bash(python *) and 5 more)`, read as five more rules, and no reason could be matched to
its call), and each reason quoted the whole command again: a 1,500-character command gave a line
of 1,776 characters."""

from __future__ import annotations

from pathlib import Path

from compact_agent.agent.safety.permissions import Permissions
from compact_agent.ui.print_mode import EXIT_REFUSED, PrintRun

COMMANDS = [f"make -C services/{name}-gateway integration-tests" for name in ("billing", "accounts", "search",
                                                                              "reports", "archive")]
LONG = "docker compose run --rm tests " + " ".join(f"--env SETTING_{n}=value-{n}" for n in range(60))


def refusals(commands: list[str], tmp_path: Path) -> PrintRun:
    permissions = Permissions(tmp_path, "deny", allow_bash=["python *"])
    run = PrintRun("text", verbose=False)
    for n, command in enumerate(commands, 1):
        run.on_tool({"type": "tool_call", "id": str(n), "tool": "bash", "args": {"command": command}})
        if (refusal := permissions.check("bash", command)) is not None:
            run.on_tool({"type": "tool_result", "id": str(n), "tool": "bash", "error": True, "content": refusal})
    return run


def test_each_call_is_listed_with_its_own_reason_once(tmp_path: Path, capsys) -> None:  # type: ignore[no-untyped-def]
    assert len(LONG) > 1_500
    run = refusals([LONG, "python x.py && sleep 3", *COMMANDS], tmp_path)
    assert run.refused() == EXIT_REFUSED
    line = capsys.readouterr().err
    assert line.count("\n") == 1 and len(line) < 700, (len(line), line)  # bounded, the long command cut once
    assert line.startswith("compact-agent: refused 7 actions needing approval: bash(docker compose run --rm tests "
                           "--env SETTING_0=value-0 "), line
    # the whole command is the call's; its reason does not quote it again
    assert "…) (not covered by bash(python *)); bash(python x.py && sleep 3) (each command of a compound line "\
           "must be allowed by itself, and `sleep 3` is not covered by bash(python *)); bash(make -C " \
           "services/billing-gateway integration-tests) (not covered by bash(python *)) and 4 more — print " \
           "mode does not ask; rerun with --yes, or allow them with --allowed-tools\n" in line, line
