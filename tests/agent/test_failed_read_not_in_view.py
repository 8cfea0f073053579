"""After a compaction, edit_file trusts a read only while its result is in view (runner._after_compact,
`read_paths_in_view`). A read whose result says it failed (an offset past the end, kept in the tail)
holds none of the file: it counted as one in view, so the read the compaction had summarised away
stayed trusted. The results are the agent's own read_file's, run through its toolset."""

from __future__ import annotations

from pathlib import Path

from compact_agent.agent.tools.file_state import read_paths_in_view

from .test_failed_read_not_listed import env_for, results_of, run_tools


def test_a_failed_read_is_no_read_in_view(tmp_path: Path) -> None:
    env = env_for(tmp_path)
    messages = run_tools(env, [("read_file", {"path": "app.py", "offset": 900}), ("read_file", {"path": "util.py"}),
                               ("read_file", {"path": "missing.py"})])
    assert "past the end" in results_of(messages, "c0")[0]
    assert results_of(messages, "c2")[0].startswith("File not found")
    assert read_paths_in_view(messages) == ["util.py"]
