"""`file_tools` is a setting of the library's CompactionSettings only (an application's own tools that
write files): a settings file, a variable or `analyze --set` naming it is told so. A file's
`file_tools = ["save_file"]` was 'unknown setting file_tools' and `--set file_tools=[...]` 'is no
setting', while docs/analyzer.md said --set takes the settings CompactionSettings holds."""

from __future__ import annotations

from pathlib import Path

import pytest

from compact_agent.replay.given_settings import SetError, parse
from compact_agent.settings_file import load

LIBRARY_ONLY = "is a setting of the library's CompactionSettings only"


def test_a_file_naming_file_tools_is_told_it_is_the_librarys(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    user = tmp_path / "config.toml"
    user.write_text('file_tools = ["save_file"]\n[compaction]\nfile_tools = ["x"]\nmodle = "m"\n')
    monkeypatch.setenv("COMPACT_AGENT_CONFIG", str(user))
    monkeypatch.setenv("COMPACT_AGENT_FILE_TOOLS", '["y"]')
    warnings = load(tmp_path).warnings
    assert f"{user}: file_tools {LIBRARY_ONLY}" in " ".join(warnings), warnings
    assert any(w.startswith(f"{user}: compaction.file_tools {LIBRARY_ONLY}") and w.endswith("; ignored") for w in warnings)
    assert any(w.startswith(f"COMPACT_AGENT_FILE_TOOLS: file_tools {LIBRARY_ONLY}") for w in warnings), warnings
    assert f"{user}: unknown setting compaction.modle (did you mean model?); ignored" in warnings  # others as before


def test_analyze_set_file_tools_says_it_is_the_librarys() -> None:
    with pytest.raises(SetError) as e:
        parse(['file_tools=["save_file"]'])
    assert f"file_tools {LIBRARY_ONLY}" in str(e.value) and "\n" not in str(e.value)
    assert "(autocompact_buffer to memory_retry_s)" in str(e.value)
    with pytest.raises(SetError, match="file_toolz is no setting; --set takes one of"):
        parse(["file_toolz=1"])
