"""The compaction Cline's SDK keeps beside a session (`<id>.compaction.json`) is used only when it was
made from the session's messages, as the SDK itself uses it: its fingerprint of the messages it stands
for (`source_prefix_hash`) or, without one, the key of the last of them. The fingerprints written here
are the SDK's own for these messages (its sourcePrefixHash, both seeds, run on them), so a change in
how ours is computed fails here."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from compact_agent.replay import load_transcript
from compact_agent.replay._cline_sidecar import fingerprint
from compact_agent.replay.simulate import recorded_points

SID = "1760000000000_k3x9q"
MODEL = {"id": "claude-z", "provider": "anthropic", "family": "claude"}
NOTICE = "<mode_notice>The user switched from plan mode to act mode before sending this message.</mode_notice>\n"
#: The SDK's fingerprints of the first two messages below (`said(1, FIRST)`, `answer(2, ...)`).
V2 = "sha256:9d3ea00d18c6a44f6ac51cc2210001983020d7b4b9049a5d74a00e0e72ab0d25"
V1 = "sha256:72c9d8874bbc51097d8fb7ed1748335d0360df513048abf2d99ed54f23358b74"
FIRST = NOTICE + '<user_input mode="act">rename fetch_all in é.py</user_input>'


def said(n: int, words: str, ts: int) -> dict[str, Any]:
    return {"id": f"m{n}", "role": "user", "ts": ts, "content": [{"type": "text", "text": words}]}


def answer(n: int, words: str, prompt: int, cost: float, ts: int) -> dict[str, Any]:
    return {"id": f"m{n}", "role": "assistant", "ts": ts, "modelInfo": MODEL,
            "metrics": {"inputTokens": prompt, "outputTokens": 20, "cacheReadTokens": 0, "cacheWriteTokens": 0,
                        "cost": cost}, "content": [{"type": "text", "text": words}]}


def write(folder: Path, first: str, state: dict[str, Any], after: int = 1_100) -> Path:
    """A session of two prompts, the first `first`, and the compaction `state` beside it, of its first
    two messages; the request after it recorded `after` tokens (the compacted view: 1,100 after 5,200)."""
    folder.mkdir(parents=True)
    messages = [said(1, first, 1_760_000_000_000), answer(2, "Renamed.", 5_200, 0.0162, 1_760_000_001_000),
                said(3, '<user_input mode="act">now the tests</user_input>', 1_760_000_002_000),
                answer(4, "Updated.", after, 0.004, 1_760_000_003_000)]
    path = folder / f"{SID}.messages.json"
    path.write_text(json.dumps({"version": 1, "updated_at": "2026-08-20T10:00:00.000Z", "agent": "lead",
                                "sessionId": SID, "messages": messages}))
    (folder / f"{SID}.compaction.json").write_text(json.dumps({
        "version": 1, "updated_at": "2026-08-20T10:00:00.000Z", "conversation_id": SID, "source_message_count": 2,
        "messages": [{"role": "user", "content": [{"type": "text", "text": "Context summary: renamed fetch_all"}],
                      "metadata": {"kind": "compaction_summary"}}], **state}))
    return path


def fitted(path: Path) -> list[int]:
    transcript = load_transcript(path)
    return [p[1] for p in recorded_points(transcript, transcript.messages)]


def test_the_fingerprint_is_the_sdks() -> None:
    messages = [said(1, FIRST, 1_760_000_000_000), answer(2, "Renamed.", 5_200, 0.0162, 1_760_000_001_000)]
    assert (fingerprint(messages, "v2"), fingerprint(messages, "v1")) == (V2, V1)


def test_a_compaction_made_from_these_messages_is_used(tmp_path: Path) -> None:
    for seed, state in (("v2", {"source_prefix_hash": V2, "source_last_message_key": "id:m2"}),
                        ("v1", {"source_prefix_hash": V1, "source_last_message_key": "id:m2"}),
                        ("key", {"source_last_message_key": "id:m2"})):
        path = write(tmp_path / seed, FIRST, state)
        assert fitted(path) == [5_200], seed
        [note] = load_transcript(path).warnings
        assert note.startswith(f"Cline compacted this session ({SID}.compaction.json beside it stands for its first "
                               "2 messages"), seed


def test_a_compaction_made_from_other_messages_is_not_used(tmp_path: Path) -> None:
    """Its fingerprint or its last message's key is not these messages' (here the first prompt was
    another, as when the session was taken back and written again, or the file is another session's):
    the SDK does not use it, the requests sent the history, and their sizes are fitted."""
    other = NOTICE + '<user_input mode="act">rename fetch_all in b.py</user_input>'
    for name, first, state in (("changed", other, {"source_prefix_hash": V2, "source_last_message_key": "id:m2"}),
                               ("another", FIRST, {"source_last_message_key": "id:x9"}),
                               ("neither", FIRST, {})):
        path = write(tmp_path / name, first, state, after=5_600)
        assert fitted(path) == [5_200, 5_600], name
        transcript = load_transcript(path)
        assert not transcript.recorded_compactions, name
        assert transcript.warnings == [
            f"{SID}.compaction.json beside it, a compaction of Cline's, was not made from this session's first 2 "
            "messages (they are not the ones it names): not used, as Cline would not use it"], name
