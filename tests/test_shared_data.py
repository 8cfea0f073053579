"""The tests that replay the shared transcripts find them in one place (tests/shared_data.py): the
folder SHARED_TRANSCRIPTS names, else ../shared/data beside the checkout. Each test module wrote
the path beside the checkout itself, so a clone anywhere else skipped them all, and the reason did
not say how to point them at the data."""

from __future__ import annotations

import re
from pathlib import Path

from tests.shared_data import BESIDE, VARIABLE, data_dir, missing

TESTS = Path(__file__).resolve().parent


def test_the_variable_names_the_folder_else_the_one_beside_the_checkout(tmp_path: Path) -> None:
    assert BESIDE == TESTS.parent.parent / "shared/data"
    assert data_dir({}) == BESIDE and data_dir({VARIABLE: "  "}) == BESIDE
    assert data_dir({VARIABLE: str(tmp_path)}) == tmp_path.resolve()
    assert data_dir({VARIABLE: "~"}) == Path.home().resolve()


def test_a_skip_for_missing_data_says_which_variable_to_set(tmp_path: Path) -> None:
    said = missing(tmp_path / "nowhere")
    assert str(tmp_path / "nowhere") in said and VARIABLE in said


def test_no_test_writes_the_path_to_the_data_itself() -> None:
    written = re.compile(r"""["']shared["']\s*/\s*["']data["']""")
    own = [str(p.relative_to(TESTS)) for p in TESTS.rglob("*.py")
           if p.name != "shared_data.py" and written.search(p.read_text(encoding="utf-8"))]
    assert not own, f"take DATA (or data_dir()) from tests/shared_data.py: {', '.join(own)} write the path themselves"


def test_the_readme_says_where_the_tests_find_the_data() -> None:
    working = (TESTS.parent / "README.md").read_text(encoding="utf-8").partition("## Working on it")[2]
    assert f"`{VARIABLE}`" in working.partition("\n## ")[0], (
        f"README.md's 'Working on it' no longer names {VARIABLE}, where the tests find the shared transcripts")
