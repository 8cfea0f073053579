"""Tab on `@name` that no path begins with offers the files anywhere under the project whose name
begins with it, then those whose name holds it: with a few thousand files in folders, `@file_12` +
Tab offered nothing until the folder was typed (`@flat/file_12`)."""

from __future__ import annotations

from pathlib import Path

import pytest
from prompt_toolkit.completion import CompleteEvent
from prompt_toolkit.document import Document

from compact_agent.ui import prompt_input
from compact_agent.ui.prompt_input import MAX_PATH_COMPLETIONS, ReplCompleter


def offered(comp: ReplCompleter, line: str) -> list[str]:
    return [c.text for c in comp.get_completions(Document(line), CompleteEvent(completion_requested=True))]


def test_a_name_without_its_folder_finds_the_file_below(tmp_path: Path) -> None:
    (tmp_path / "src" / "pkg").mkdir(parents=True)
    (tmp_path / "src" / "pkg" / "parser.py").write_text("")
    (tmp_path / "src" / "my_parser_test.py").write_text("")
    (tmp_path / "src" / "odd name.py").write_text("")
    for skipped in (".git", "node_modules", ".hidden"):
        (tmp_path / skipped).mkdir()
        (tmp_path / skipped / "parser.py").write_text("")
    comp = ReplCompleter([], tmp_path)
    # the name's beginning first, nearest first, then a name that holds it; ignored folders left out
    assert offered(comp, "see @pars") == ["@src/pkg/parser.py", "@src/my_parser_test.py"]
    assert offered(comp, "see @PARSER") == ["@src/pkg/parser.py", "@src/my_parser_test.py"]
    assert offered(comp, "see @odd") == ["@src/odd\\ name.py"]  # written as a path with a space is
    assert offered(comp, 'see @"odd') == ['@"src/odd name.py"']
    assert offered(comp, "see @sr") == ["@src/"]  # a path that begins so: as before, alone
    assert offered(comp, "see @src/pars") == []  # a folder typed: its own entries only
    assert offered(comp, "see @.hidden/p") == ["@.hidden/parser.py"]


def test_thousands_of_files_the_list_is_capped_and_so_is_the_walk(tmp_path: Path,
                                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / "flat").mkdir()
    for i in range(5000):
        (tmp_path / "flat" / f"file_{i:04d}.py").write_text("")
    for i in range(5000):
        sub = tmp_path / "deep" / f"pkg{i // 100}"
        sub.mkdir(parents=True, exist_ok=True)
        (sub / f"mod_{i}.py").write_text("")
    comp = ReplCompleter([], tmp_path)
    found = offered(comp, "@file_12")
    assert found[:2] == ["@flat/file_1200.py", "@flat/file_1201.py"] and len(found) == MAX_PATH_COMPLETIONS
    assert offered(comp, "@mod_4999") == ["@deep/pkg49/mod_4999.py"]
    # a tree bigger than what is looked at: the walk stops (here after the 5,000 files of flat/)
    monkeypatch.setattr(prompt_input, "MAX_WALKED", 5_010)
    assert offered(comp, "@mod_4999") == []
