"""The line under a command whose output was cut from the middle says so: `seq 1 100000` showed
`… 5720 lines before · ctrl+o shows all` over its last lines, counting only the lines the tool kept
(the head and tail, 30,000 characters), and Ctrl-O then showed those, not all."""

from __future__ import annotations

from tests.fakes.openai_server import Reply, tool_results
from tests.ui.repl_driver import drive


def runs(command: str):
    def responder(req) -> Reply:
        if tool_results(req):
            return Reply.text("ran it")
        return Reply.tools([("bash", {"command": command})])
    return responder


async def test_a_cut_output_says_how_much_went_and_a_whole_one_shows_all(tmp_path) -> None:
    run = await drive(tmp_path, runs("seq 1 100000"), ["count\r"], permission_mode="yes")
    [line] = [ln.strip() for ln in run.out.splitlines() if "lines before" in ln]
    assert line.startswith("… ") and line.endswith(" characters cut from the middle · ctrl+o shows what was kept"), line
    cut = int(line.split(", and ")[1].split()[0].replace(",", ""))
    assert 500_000 < cut < 588_895, line  # seq's 588,895 characters less the 30,000 kept
    whole = await drive(tmp_path, runs("seq 1 20"), ["count\r"], permission_mode="yes")
    assert "… 17 lines before · ctrl+o shows all" in whole.out, whole.out
