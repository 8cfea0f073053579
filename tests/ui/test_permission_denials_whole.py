"""`--output-format json`'s `permission_denials` names each refused call whole, as it was made: the
entries were the refusal line's, cut at the terminal's 100 columns with `…`, and the white space of
the command taken as one space, so a program reading them could not tell which call it was."""

from __future__ import annotations

from pathlib import Path

from compact_agent.agent.safety.permissions import Permissions
from compact_agent.ui.print_mode import PrintRun

COMMAND = "make -C services/archive-gateway integration-tests \\\n  ARGS='--junit-xml=reports/archive.xml --maxfail=3 -k \"not slow\"'"


def test_permission_denials_are_the_whole_calls(tmp_path: Path) -> None:
    permissions = Permissions(tmp_path, "deny", allow_bash=["python *"])
    run = PrintRun("json", verbose=False)
    run.on_tool({"type": "tool_call", "id": "1", "tool": "bash", "args": {"command": COMMAND}})
    run.on_tool({"type": "tool_result", "id": "1", "tool": "bash", "error": True,
                 "content": permissions.check("bash", COMMAND)})
    assert len(f"bash({COMMAND})") > 100
    assert run.refused_and_changed()["permission_denials"] == [f"bash({COMMAND})"]
