"""`/memory 5` with one instruction file said "N from 1 to 1": with one, it is said plainly."""

from __future__ import annotations

from tests.fakes.openai_server import Reply

from .repl_driver import drive


async def test_a_number_past_the_only_file_is_said_plainly(tmp_path):
    (tmp_path / "project").mkdir()
    (tmp_path / "project" / "AGENTS.md").write_text("# rules\n")
    run = await drive(tmp_path, lambda req: Reply.text("ok"), ["/memory 5\r", "/memory two\r"])
    said = [line for line in run.out.splitlines() if line.startswith("usage: /memory")]
    assert said == ["usage: /memory [1]: there is only one instruction file (/memory lists it)"] * 2, run.out
    assert "from 1 to 1" not in run.out and run.prompts == []


async def test_with_two_files_the_range_is_said(tmp_path):
    (tmp_path / "project" / "sub").mkdir(parents=True)
    (tmp_path / "project" / ".git").mkdir()
    (tmp_path / "project" / "AGENTS.md").write_text("# rules\n")
    (tmp_path / "project" / "sub" / "AGENTS.md").write_text("# more\n")
    run = await drive(tmp_path / "project" / "sub", lambda req: Reply.text("ok"), ["/memory 5\r"])
    assert "usage: /memory [N], N from 1 to 2 (the files /memory lists)" in run.out, run.out
