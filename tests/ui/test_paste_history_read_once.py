"""Every large paste read the whole prompt history from disk, to word its placeholder apart from
any line up-arrow can bring back: a history of years of prompts was read and parsed on each paste.
What was read is kept, and read again only when the file changed (its size, its mtime, or another
file renamed over it)."""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable
from pathlib import Path

import pytest

from compact_agent.session import prompt_history
from compact_agent.ui.pastes import Pastes
from compact_agent.ui.prompt_input import RedactedHistory, history_lines

LOG = "".join(f"line {i}\n" for i in range(20))


def counting(path: Path, monkeypatch: pytest.MonkeyPatch) -> tuple[Callable[[], list[str]], list[int]]:
    """The history's lines as pastes ask for them, and a count of the file's reads."""
    reads: list[int] = []
    load = RedactedHistory.load_history_strings

    def counted(self: RedactedHistory) -> Iterable[str]:
        reads.append(1)
        return load(self)

    monkeypatch.setattr(RedactedHistory, "load_history_strings", counted)
    return history_lines(path), reads


def test_the_history_is_read_again_only_when_it_changed(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = tmp_path / "prompt_history"
    lines, reads = counting(path, monkeypatch)
    assert lines() == [] and reads == []  # no file yet: nothing read
    prompt_history.append(path, "first [pasted 20 lines]", "s1")
    assert lines() == ["first [pasted 20 lines]"] and lines() == ["first [pasted 20 lines]"]
    assert len(reads) == 1
    prompt_history.append(path, "second", "s1")  # larger
    assert lines() == ["second", "first [pasted 20 lines]"] and len(reads) == 2
    st = os.stat(path)
    os.utime(path, ns=(st.st_atime_ns, st.st_mtime_ns + 1_000_000_000))  # the same size, touched
    lines()
    assert len(reads) == 3
    lines()
    assert len(reads) == 3


def test_pastes_word_their_placeholder_apart_from_the_history(tmp_path: Path) -> None:
    path = tmp_path / "prompt_history"
    prompt_history.append(path, "see [pasted 20 lines]", "s1")
    pastes = Pastes(elsewhere=history_lines(path))
    assert pastes.insert(LOG) == "[pasted 20 lines #2]"
