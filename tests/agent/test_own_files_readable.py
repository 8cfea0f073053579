"""The session's own spilled tool results and archives stay readable to the model (previews and
summaries tell it to read them) wherever compact-agent keeps its data: a data folder whose path
holds `[`, `*` or `?` is matched as the folder it is, neither missed nor taken as a wildcard that
opens other folders."""

from __future__ import annotations

from pathlib import Path

from compact_agent.agent.run.options import SessionOptions
from compact_agent.agent.run.runner import AgentSession
from compact_agent.agent.tools.files import read_file_text

KEY = "sk-test-0a1b2c3d4e5f60718293a4b5c6d7e8f9"


def test_own_files_are_readable_under_a_data_folder_with_wildcard_characters(tmp_path: Path) -> None:
    cwd = tmp_path / "project"
    cwd.mkdir()
    home = tmp_path / "data [x] *?"
    s = AgentSession(SessionOptions(cwd=cwd, model="fake-model", base_url="http://127.0.0.1:9/v1", api_key=KEY,
                                    permission_mode="yes", home=home))
    try:
        spilled = s.store.dir / "tool-results" / "call_1.txt"
        spilled.parent.mkdir(parents=True, exist_ok=True)
        spilled.write_text("the whole result\n")
        archive = s.store.archive_dir / f"{s.session_id}-20260101-000000.jsonl"
        archive.parent.mkdir(parents=True, exist_ok=True)
        archive.write_text('{"kind": "message"}\n')
        assert "the whole result" in read_file_text(s.env, spilled)
        assert '"kind": "message"' in read_file_text(s.env, archive)
        # A folder the wildcards would have matched is no folder of this session's: still fenced.
        lookalike = Path(str(s.store.dir).replace(str(home), str(tmp_path / "data x other")))
        other = lookalike / "tool-results" / "call_1.txt"
        other.parent.mkdir(parents=True)
        other.write_text("another folder's file\n")
        refused = read_file_text(s.env, other)
        assert refused.startswith("permission denied:") and "outside the working directory" in refused
    finally:
        s.close()
