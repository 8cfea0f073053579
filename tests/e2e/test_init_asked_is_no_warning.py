"""`/init --yes` writes the AGENTS.md the user asked for without a warning that the model wrote an
instruction file without asking: print mode said 'warning: the model wrote AGENTS.md without asking
(--yes); … check what it says' of the file the user had just asked for, and listed it among the
instruction files changed unasked. Another instruction file the same turn writes is still said."""

from __future__ import annotations

from typing import Any

from tests.fakes.openai_server import FakeOpenAIServer, Reply

from .test_print_commands import fake


def writes(*names: str):
    def answer(req: Any) -> Reply:
        done = sum(1 for m in req.messages if m.get("role") == "tool")
        if done < len(names):
            return Reply.tools([("write_file", {"path": names[done], "content": "# notes\nRun pytest -q.\n"})])
        return Reply.text("done")
    return answer


def test_init_yes_writes_agents_md_without_a_warning(cli) -> None:
    with FakeOpenAIServer(writes("AGENTS.md")) as server:
        r = cli("-p", "/init", "--yes", "--output-format", "json", *fake(server))
    assert r.code == 0, r.stderr
    assert (cli.cwd / "AGENTS.md").read_text() == "# notes\nRun pytest -q.\n"
    assert "without asking" not in r.stderr, r.stderr
    assert r.json()["instruction_files_changed"] == []


def test_another_instruction_file_init_writes_is_still_said(cli) -> None:
    with FakeOpenAIServer(writes("AGENTS.md", "CLAUDE.md")) as server:
        r = cli("-p", "/init", "--yes", *fake(server))
    assert r.code == 0, r.stderr
    assert "the model wrote CLAUDE.md without asking (--yes)" in r.stderr, r.stderr
    assert "wrote AGENTS.md without asking" not in r.stderr, r.stderr
