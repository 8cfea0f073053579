"""servers/turns.json is written atomically (a temp, then a rename): a run killed between the two left
its temp beside the file for good. The next change, made under the flock every writer takes, removes
it, as for servers/windows.json."""

from __future__ import annotations

from pathlib import Path

from compact_agent.agent.run import server_turns


def test_a_killed_writers_temp_goes_with_the_next_change(tmp_path: Path) -> None:
    folder = server_turns.path_in(tmp_path).parent
    folder.mkdir(parents=True)
    stale = folder / ".turns.json.3f2a9c.tmp"
    stale.write_text('{"joined": {}}')
    other = folder / ".windows.json.77aa.tmp"  # another writer's: its own change removes it
    other.write_text("{}")
    server_turns.keep(tmp_path, "http://127.0.0.1:8080/v1", "mistral")
    assert not stale.exists() and other.exists()
    assert [(u, m) for u, m, _ in server_turns.every(tmp_path)] == [("http://127.0.0.1:8080/v1", "mistral")]
    assert server_turns.joins(tmp_path, "http://127.0.0.1:8080/v1", "mistral")
