"""A count of one is written in the singular wherever a count can be one: a line said `1 tokens until
auto-compaction`, `a binary file (1 bytes)`, `its last 1 bytes were moved`, `1 redaction markers`.
Each goes through words.plural (the analyzer's counted), with thousands separators where the
line had them."""

from __future__ import annotations

import io
from pathlib import Path

from rich.console import Console

from compact_agent.replay._redaction import RedactionStats
from compact_agent.session.journal import moved_note, set_aside_note
from compact_agent.words import plural
from tests.agent.test_tools import call, make_env
from tests.fakes.openai_server import Reply
from tests.ui.repl_driver import drive


def test_plural_groups_thousands_when_asked() -> None:
    assert (plural(1, "byte", grouped=True), plural(1_024, "byte", grouped=True), plural(1_024, "byte")) == \
        ("1 byte", "1,024 bytes", "1024 bytes")


async def test_a_one_byte_binary_file_is_one_byte(tmp_path: Path) -> None:
    (tmp_path / "x.bin").write_bytes(b"\0")
    env = make_env(tmp_path)
    assert await call(env, "read_file", path="x.bin") == "x.bin is a binary file (1 byte); not shown."


async def test_a_one_byte_binary_file_mentioned_is_one_byte(tmp_path: Path) -> None:
    (tmp_path / "project").mkdir()
    (tmp_path / "project" / "x.bin").write_bytes(b"\0")
    run = await drive(tmp_path, lambda req: Reply.text("ok"), ["read @x.bin\r"])
    assert "⎿ @x.bin: not attached (a binary file, 1 byte)" in run.out, run.out


def test_one_byte_set_aside_is_one_byte(tmp_path: Path) -> None:
    (kept := tmp_path / "kept").write_bytes(b"x")
    assert moved_note(kept) == f"its last byte was moved to {kept}"
    assert set_aside_note("s1.jsonl", kept, read=3) == f"the last line of s1.jsonl is unreadable (1 byte): it is kept in {kept}"
    kept.write_bytes(b"xy")
    assert moved_note(kept) == f"its last 2 bytes were moved to {kept}"


async def test_one_token_until_auto_compaction(tmp_path: Path) -> None:
    """The last request's prompt and answer, as the provider counts them, one token under the threshold."""
    console = Console(record=True, width=200, file=io.StringIO(), force_terminal=False)
    run = await drive(tmp_path, lambda req: Reply.text("ok", usage={"prompt_tokens": 26_781, "completion_tokens": 10}),
                      ["hello\r", "/status\r"], console=console)
    assert "26,791 / threshold 26,792" in run.out, run.out
    assert " 1 token until auto-compaction" in run.out, run.out


def test_one_redaction_marker_is_one() -> None:
    r = RedactionStats()
    r.markers, r.chars, r.images = 1, 1, 1
    assert r.warning() == ("expanded 1 redaction marker into 1 char of deterministic filler and 1 redacted image into "
                        "'[image]' placeholders")


def test_one_character_of_shell_output_not_shown_is_one() -> None:
    from compact_agent.ui.shell_escape import SHOWN_MAX_CHARS, show_shell_output

    console = Console(record=True, width=200, file=io.StringIO(), force_terminal=False)
    show_shell_output(console, "cat big", "x" * (SHOWN_MAX_CHARS + 1))  # one line: its head and tail leave one out
    assert "[… 1 character not shown here …]" in console.export_text(), console.export_text()


async def test_a_one_character_instruction_file_is_one_character(tmp_path: Path) -> None:
    (tmp_path / "project").mkdir()
    (tmp_path / "project" / "AGENTS.md").write_text("x")
    console = Console(record=True, width=200, file=io.StringIO(), force_terminal=False)
    run = await drive(tmp_path, lambda req: Reply.text("ok"), ["/memory\r"], console=console)
    assert "(1 character)" in run.out, run.out
