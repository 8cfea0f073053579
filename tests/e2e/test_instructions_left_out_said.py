"""An instruction file left out (a `CLAUDE.md` that links out of the repository) is said in one
line when the session starts, in print mode and in the REPL: its rules were missing from the
system prompt without a word."""

from __future__ import annotations

from pathlib import Path

from tests.e2e.conftest import Cli
from tests.fakes.openai_server import FakeOpenAIServer, Reply


def linked_out(cwd: Path, tmp: Path) -> Path:
    (cwd / ".git").mkdir(exist_ok=True)
    rules = tmp / "elsewhere" / "rules.md"
    rules.parent.mkdir(exist_ok=True)
    rules.write_text("ALWAYS SAY OTTER")
    (cwd / "CLAUDE.md").symlink_to(rules)
    return rules


def test_print_mode_says_the_file_left_out_and_why(cli: Cli, tmp_path: Path) -> None:
    rules = linked_out(cli.cwd, tmp_path)
    with FakeOpenAIServer(lambda req: Reply.text("ok")) as server:
        r = cli("-p", "hi", "--model", "fake-model", "--base-url", server.base_url, "--api-key", "k")
        sent = server.requests[0].all_text()
    assert r.code == 0, r.stderr
    assert r.stderr == (f"compact-agent: warning: CLAUDE.md is left out of the instructions: it links to {rules}, "
                        "outside the repository (instruction files are read only from inside it)\n"), r.stderr
    assert "OTTER" not in sent


async def test_the_repl_says_it_at_start(tmp_path: Path) -> None:
    from tests.ui.repl_driver import drive

    project = tmp_path / "project"
    project.mkdir()
    rules = linked_out(project, tmp_path)
    run = await drive(tmp_path, lambda req: Reply.text("ok"), [])
    assert (f"warning: CLAUDE.md is left out of the instructions: it links to {rules}, outside the repository "
            "(instruction files are read only from inside it)") in " ".join(run.out.split()), run.out
