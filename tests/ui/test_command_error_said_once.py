"""A command's result line and the tail under it in the REPL: the line quoted the last line of
output after the exit code, and the tail under it showed that line again:

    ⎿ exit code: 4 · ERROR: file or directory not found: M11
        … 1 line before · ctrl+o shows all
        no tests ran in 2.64s
        ERROR: file or directory not found: M11

With a tail under it the line says the exit code; the last lines, in their order, say the rest.
A command whose output is one line keeps it on the result line (no tail is shown)."""

from __future__ import annotations

from tests.fakes.openai_server import Reply

from .repl_driver import drive


def runs(command: str):
    def responder(req) -> Reply:
        if not any(m.get("role") == "tool" for m in req.messages):
            return Reply.tools([("bash", {"command": command})])
        return Reply.text("SEEN")
    return responder


async def test_the_last_line_of_a_failed_command_is_shown_once(tmp_path) -> None:
    command = "printf '\\nno tests ran in 2.64s\\nERROR: file or directory not found: M11\\n'; exit 4"
    run = await drive(tmp_path, runs(command), ["go\r"], permission_mode="yes")
    result = run.out.split("  ⎿ ", 1)[1]  # not the call's own line
    assert result.count("ERROR: file or directory not found: M11") == 1, run.out
    assert ("  ⎿ exit code: 4\n    … 1 line before · ctrl+o shows all\n    no tests ran in 2.64s\n"
            "    ERROR: file or directory not found: M11\n") in run.out, run.out


async def test_a_one_line_output_stays_on_the_result_line(tmp_path) -> None:
    run = await drive(tmp_path, runs("echo only line; exit 2"), ["go\r"], permission_mode="yes")
    assert "  ⎿ exit code: 2 · only line\n" in run.out, run.out
    assert run.out.split("  ⎿ ", 1)[1].count("only line") == 1, run.out
