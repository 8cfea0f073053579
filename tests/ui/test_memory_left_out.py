"""`/memory` says each instruction file it left out, and why: a `CLAUDE.md` linked out of the
repository was missing from its list without a word."""

from __future__ import annotations

from tests.fakes.openai_server import Reply

from .repl_driver import drive

OUT = ("CLAUDE.md is left out of the instructions: it links to {}, outside the repository (instruction "
       "files are read only from inside it)")


async def test_memory_lists_the_files_read_and_says_the_one_left_out(tmp_path) -> None:
    project, rules = tmp_path / "project", tmp_path / "elsewhere.md"
    (project / ".git").mkdir(parents=True)
    (project / "AGENTS.md").write_text("inside rules")
    rules.write_text("outside rules")
    (project / "CLAUDE.md").symlink_to(rules)
    run = await drive(tmp_path, lambda req: Reply.text("ok"), ["/memory\r"])
    said = " ".join(run.out.split())
    assert f"1. {project / 'AGENTS.md'} (12 characters) {OUT.format(rules)} /memory N opens" in said, run.out


async def test_memory_with_none_read_still_says_why(tmp_path) -> None:
    project, rules = tmp_path / "project", tmp_path / "elsewhere.md"
    (project / ".git").mkdir(parents=True)
    rules.write_text("outside rules")
    (project / "CLAUDE.md").symlink_to(rules)
    run = await drive(tmp_path, lambda req: Reply.text("ok"), ["/memory\r"])
    assert f"/init writes one {OUT.format(rules)}" in " ".join(run.out.split()), run.out
