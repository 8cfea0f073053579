"""A custom command whose file's name macOS stored decomposed (NFD: `cafe\u0301.md`) runs when its
name is typed composed (NFC: `/caf\u00e9`): /help listed `/café` and the same `/café` typed said
"unknown command /café". Tab offers it either way too."""

from __future__ import annotations

import unicodedata
from pathlib import Path

from prompt_toolkit.completion import CompleteEvent
from prompt_toolkit.document import Document

from compact_agent.ui.custom_commands import custom_command, custom_commands
from compact_agent.ui.prompt_input import ReplCompleter
from tests.fakes.openai_server import Reply

from .repl_driver import drive

NFC = unicodedata.normalize("NFC", "café")
NFD = unicodedata.normalize("NFD", "café")


def project(tmp_path: Path) -> Path:
    folder = tmp_path / "project" / ".claude" / "commands"
    folder.mkdir(parents=True)
    (folder / f"{NFD}.md").write_text("Order a coffee for $ARGUMENTS.\n")
    assert [p.stem for p in folder.iterdir()] == [NFD]  # stored as macOS writes it
    return tmp_path / "project"


def test_the_name_is_found_composed_or_not(tmp_path: Path) -> None:
    cwd = project(tmp_path)
    assert list(custom_commands(cwd)) == [NFC]
    assert custom_command(cwd, NFC) == custom_command(cwd, NFD) == cwd / ".claude" / "commands" / f"{NFD}.md"


def test_tab_offers_the_command_typed_either_way(tmp_path: Path) -> None:
    cwd = project(tmp_path)
    comp = ReplCompleter(lambda: ["compact", *custom_commands(cwd)], cwd)

    def texts(line: str) -> list[str]:
        return [c.text for c in comp.get_completions(Document(line), CompleteEvent(completion_requested=True))]

    assert texts("/caf") == [f"/{NFC}"]
    assert texts(f"/{NFC}") == [f"/{NFC}"] and texts(f"/{NFD}") == [f"/{NFC}"]


async def test_the_repl_runs_it_typed_composed(tmp_path: Path) -> None:
    project(tmp_path)
    run = await drive(tmp_path, lambda req: Reply.text("ok"), [f"/{NFC} two\r", "/help\r"])
    assert "unknown command" not in run.out, run.out
    assert [p.splitlines()[0] for p in run.prompts] == ["Order a coffee for two."], run.out
    assert f"/{NFC}" in run.out.split("/help")[-1]  # listed as it is typed
