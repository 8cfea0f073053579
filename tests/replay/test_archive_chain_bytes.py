"""The archives of a session of ours are read back up to MAX_CHAIN_BYTES in all, not only 1,000 of them:
every archive of a chain is loaded before they are joined, so a chain of large archives was held whole,
however many gigabytes. Past the cap the chain stops, said in one line with why."""

from __future__ import annotations

from pathlib import Path

import pytest

from compact_agent.replay import _compact_agent
from compact_agent.replay.importers import load_transcript
from compact_agent.session.removal import size_text
from compact_agent.session.store import SessionStore

from .test_archive_chain_confined import STAMP, calls, compacted, exchange, note


def test_the_chain_stops_where_its_archives_would_pass_the_byte_cap(tmp_path: Path,
                                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    """s1.jsonl → archive 3 → archive 2 → archive 1, the cap set to what 3 and 2 weigh: 1 is not read."""
    history = tmp_path / "compact-history"
    history.mkdir()
    names = [history / f"s1-{STAMP.format(i)}.jsonl" for i in (1, 2, 3)]
    SessionStore(history, names[0].stem).append(exchange(0))
    compacted(history, names[1].name, str(names[0]), 1, "big " * 40)
    compacted(history, names[2].name, str(names[1]), 2)
    session = compacted(tmp_path, "s1.jsonl", str(names[2]), 3)
    assert calls(session) == ["c0", "c1", "c2", "c3"]  # the whole chain under the cap as shipped

    held = names[2].stat().st_size + names[1].stat().st_size
    monkeypatch.setattr(_compact_agent, "MAX_CHAIN_BYTES", held)
    assert calls(session) == ["c1", "c2", "c3"]
    said = note(names[1], str(names[0]), f"the archives read back weigh {size_text(held)} and it "
                f"{size_text(names[0].stat().st_size)}, past the {size_text(held)} the analyzer reads back in one chain")
    assert said in load_transcript(session).warnings and "\n" not in said
    monkeypatch.setattr(_compact_agent, "MAX_CHAIN_BYTES", held - 1)  # the second archive is past it already
    assert calls(session) == ["c2", "c3"]
