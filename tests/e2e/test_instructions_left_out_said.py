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


def test_a_file_the_file_tools_may_not_read_is_left_out_a_link_to_it_too(cli: Cli) -> None:
    """A repository may commit `AGENTS.md -> .env` (and a folder's `CLAUDE.md -> ../secrets.txt`)
    before the user writes their .env: the file went to the provider with every request, past the
    user's `deny_paths`, while read_file refused it."""
    (cli.cwd / ".git").mkdir()
    (cli.cwd / ".env").write_text("DB_PASSWORD=HUNTER2DOTENV")
    (cli.cwd / "secrets.txt").write_text("SECRETS_TXT_MARKER")
    (cli.cwd / "AGENTS.md").symlink_to(".env")
    sub = cli.cwd / "sub"
    sub.mkdir()
    (sub / "CLAUDE.md").symlink_to("../secrets.txt")
    (sub / "AGENTS.md").write_text("SAY OTTER")  # a file of its own, read as ever
    cli.home.mkdir(parents=True, exist_ok=True)
    (cli.home / "config.toml").write_text('deny_paths = [".env", "secret*"]\n')
    in_sub = Cli(home=cli.home, cwd=sub, zygote=cli.zygote)
    with FakeOpenAIServer(lambda req: Reply.text("ok")) as server:
        r = in_sub("-p", "hi", "--model", "fake-model", "--base-url", server.base_url, "--api-key", "k")
        sent = server.requests[0].all_text()
    assert r.code == 0, r.stderr
    assert "HUNTER2DOTENV" not in sent and "SECRETS_TXT_MARKER" not in sent and "SAY OTTER" in sent
    root = cli.cwd.resolve()
    assert r.stderr == (
        f"compact-agent: warning: {root / 'AGENTS.md'} is left out of the instructions: it links to {root / '.env'}, "
        "which the file tools may not read (deny rule '.env')\n"
        f"compact-agent: warning: CLAUDE.md is left out of the instructions: it links to {root / 'secrets.txt'}, "
        "which the file tools may not read (deny rule 'secret*')\n"), r.stderr
    for session in in_sub.sessions():
        assert "HUNTER2DOTENV" not in session.read_text()
