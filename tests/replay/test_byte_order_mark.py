"""A transcript saved with a UTF-8 byte order mark (PowerShell 5, older Notepad) reads as without it;
UTF-16 text is said to be so."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from compact_agent.replay.importers import load_transcript

CHAT = [{"role": "user", "content": "read src/app/main.py"},
        {"role": "assistant", "content": "src/app/main.py defines main_entry"}]


@pytest.mark.parametrize("name, text", [("chat.json", json.dumps(CHAT, indent=1)),
                                        ("chat.jsonl", "".join(json.dumps(m) + "\n" for m in CHAT))])
def test_a_byte_order_mark_changes_nothing(tmp_path: Path, name: str, text: str) -> None:
    """With the mark a chat JSON was 'not a transcript', and the first line of a JSONL file (a chat's
    first message, a session's first entry) was dropped as 'not a JSON object'."""
    plain, marked = tmp_path / name, tmp_path / f"marked-{name}"
    plain.write_text(text, encoding="utf-8")
    marked.write_text(text, encoding="utf-8-sig")
    assert marked.read_bytes().startswith(b"\xef\xbb\xbf")
    for f in (plain, marked):
        os.utime(f, (1_700_000_000, 1_700_000_000))  # the time parts without one of their own take
    want, got = load_transcript(plain), load_transcript(marked)
    assert (got.format, got.skipped, got.warnings) == (want.format, 0, want.warnings)
    assert [m.parts for m in got.messages] == [m.parts for m in want.messages]


@pytest.mark.parametrize("encoding", ["utf-16", "utf-16-be"])
def test_utf16_text_is_said_to_be_so(tmp_path: Path, encoding: str) -> None:
    """A chat copied with Windows PowerShell's `>` (UTF-16) was 'not a transcript', as if its format
    were unknown."""
    from compact_agent.replay.batch import load_or_note

    path = tmp_path / "chat.json"
    path.write_bytes(("\ufeff" if encoding == "utf-16-be" else "").encode(encoding) + json.dumps(CHAT).encode(encoding))
    assert load_or_note(path) == (f"skipped {path}: UTF-16 text (as Windows PowerShell's > writes), which the "
                                  "analyzer does not read: save it as UTF-8")
