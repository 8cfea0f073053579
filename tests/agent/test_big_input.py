"""Piped input too large for a request is saved whole and sent as its two ends (big_input.py)."""

from __future__ import annotations

import re
import subprocess
from datetime import datetime
from pathlib import Path

from compact_agent.agent.run.big_input import fit_input
from compact_agent.context.layers.previews import build_preview
from tests.preview_offsets import assert_reads_on_after_the_head

NOW = datetime(2026, 12, 2, 9, 30)


def test_input_that_fits_is_sent_as_it_is(tmp_path: Path) -> None:
    prompt = "explain\n\n" + "a line of log\n" * 100
    assert fit_input(prompt, "explain", 24_000, tmp_path, NOW) == (prompt, None)
    assert not (tmp_path / "tool-results").exists()


def test_one_huge_line_is_cut_at_both_ends_and_saved_whole(tmp_path: Path) -> None:
    """The room is half the threshold (12,000 tokens of 24,000); each end shows a quarter of it,
    3,000 tokens or 12,000 characters, framed as a spilled tool result's preview is."""
    blob = "".join(chr(65 + i % 26) for i in range(400_000))
    sent, saved = fit_input(blob, "", 24_000, tmp_path, NOW)
    assert saved == tmp_path / "tool-results" / "input-20261202-093000-000000.txt"
    assert saved.read_text() == blob and oct(saved.stat().st_mode & 0o777) == "0o600"
    assert sent == build_preview(blob, 24_000, saved, kind="input")
    assert sent.startswith(blob[:12_000] + "\n\n[... 376,000 characters omitted ...]\n\n" + blob[-12_000:])
    # one line: read_file would cut it at 2,000 characters, so the note points to grep or `tail -c`
    assert sent.endswith(f"Full input saved to {saved} . Read the rest with grep, which shows the text around "
                         f"a match, or `tail -c +12001 {saved} | head -c 4000` for the next 4,000 bytes (its lines "
                         "are too long for read_file).]")
    assert "[Input too large for the context (400,000 characters, 1 line);" in sent


def test_the_saved_inputs_rest_is_read_on_exactly_after_the_head_in_any_script(tmp_path: Path) -> None:
    blob = "é" * 11_990 + "MARK" + "ü" * 200_000  # the head is 12,000 characters: 23,996 bytes
    sent, saved = fit_input(blob, "", 24_000, tmp_path, NOW)
    assert saved is not None and sent.startswith(blob[:12_000] + "\n\n[...")
    found = re.search(r"`(tail -c \+23997 \S+ \| head -c 4000)` for the next 4,000 bytes", sent)
    assert found is not None, sent[-400:]
    shown = subprocess.run(["bash", "-c", found.group(1)], capture_output=True, timeout=30, check=True).stdout
    assert shown.decode("utf-8") == blob[12_000:14_000]


def test_a_key_in_the_head_does_not_shift_where_the_rest_is_read_on(tmp_path: Path) -> None:
    """The file holds the input with the API key redacted; the preview and its byte offset are
    made from that same text (before, a key in the head moved the offset by the difference in
    length and `tail -c` skipped or repeated bytes)."""
    from compact_agent.context.plumbing import secrets

    key = "sk-BIGINPUT-offset-0123456789abcdef0123456789"
    secrets.register(key)
    blob = f"export DEEPSEEK_API_KEY={key}\n" + "a" * 50 + "".join(chr(65 + i % 26) for i in range(300_000))
    sent, saved = fit_input(blob, "", 24_000, tmp_path, NOW)
    held = saved.read_text() if saved is not None else ""
    assert key not in held and key not in sent and held == blob.replace(key, secrets.REDACTED)
    assert_reads_on_after_the_head(sent, held)


def test_the_typed_words_go_first_and_whole(tmp_path: Path) -> None:
    log = "".join(f"line {i}\n" for i in range(50_000))
    sent, saved = fit_input(f"why?\n\n{log}", "why?", 8_000, tmp_path, NOW)
    assert saved is not None and saved.read_text() == log
    assert sent == "why?\n\n" + build_preview(log, 8_000, saved, kind="input")
    assert sent.startswith("why?\n\nline 0\nline 1\n") and "line 49999\n" in sent


def test_a_paste_goes_whole_to_the_file_and_a_commands_output_leaves_the_typed_words(tmp_path: Path) -> None:
    """In the REPL the typed line comes after the output of earlier `!cmd`s: that output is the
    input, the line goes whole. A typed line too large by itself (a paste) is the input."""
    out = "".join(f"out {i}\n" for i in range(40_000)) + "what failed? is not in the log\n"
    sent, saved = fit_input(f"{out}\n\nwhat failed?", "what failed?", 8_000, tmp_path, NOW)
    assert saved is not None and saved.read_text() == out.rstrip("\n")
    assert sent.startswith("what failed?\n\nout 0\nout 1\n") and "Full input saved to" in sent
    paste = "".join(f"pasted {i}\n" for i in range(40_000))
    sent, saved = fit_input(paste, paste, 8_000, tmp_path, datetime(2026, 12, 2, 9, 31))
    assert saved is not None and saved.read_text() == paste
    assert sent.startswith("pasted 0\npasted 1\n") and f"Full input saved to {saved} ." in sent


def test_the_line_says_more_than_the_room_before_compaction_when_it_is() -> None:
    """'about 15,007 tokens … is over half of the 11,700 at which the conversation is compacted':
    true, and it was more than all of it."""
    from compact_agent.agent.run.big_input import cut_line

    over = cut_line(15_007, 11_700, 16_000, "/p/in.txt")
    assert "(about 15,007 tokens) is more than the 11,700 at which the conversation is compacted in the " \
           "16,000-token window: " in over, over
    half = cut_line(7_000, 11_700, 16_000, "/p/in.txt", server="DeepSeek's API")
    assert "(about 7,000 tokens) is over half of the 11,700 at which the conversation is compacted in the " \
           "16,000-token window of DeepSeek's API: " in half, half
