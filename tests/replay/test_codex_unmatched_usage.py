"""The Codex importer's note on token counts that match no reply, in a user's words."""

from __future__ import annotations

from pathlib import Path

from compact_agent.replay import load_transcript

from .test_importer_traps import CODEX_SESSION, token_count, write_jsonl


def test_codex_token_counts_that_match_no_reply_are_said_in_a_users_words(tmp_path: Path) -> None:
    """It said '2 token_count events matched no response': the rollout's event name, and no word
    on what it meant for the figures."""
    for extra, n in (([token_count(2500, 160, 0, 40)], "1 token count"),
                     ([token_count(2500, 160, 0, 40), token_count(2700, 170, 0, 40)], "2 token counts")):
        warnings = load_transcript(write_jsonl(tmp_path / "rollout.jsonl", CODEX_SESSION + extra)).warnings
        [note] = [w for w in warnings if "token count" in w]
        assert note.startswith(f"left out {n} Codex recorded for a model call whose reply the file does not hold")
        assert "token_count" not in note and "(s)" not in note
        assert ("it does not enter" if n.startswith("1 ") else "they do not enter") in note
