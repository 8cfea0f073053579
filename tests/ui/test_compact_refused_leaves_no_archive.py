"""A `/compact --up-to N` refused because the request it leaves would be no smaller leaves nothing
behind, its archive copy of the transcript included: the copy it made before it was counted as the
next request sends it was left in compact-history, for a compaction that never happened."""

from __future__ import annotations

from tests.ui.test_compact_counts_what_is_sent import model

from .repl_driver import drive


async def test_a_refused_compact_up_to_leaves_no_archive(tmp_path, monkeypatch) -> None:
    monkeypatch.setenv("COMPACT_AGENT_CONFIG", str(tmp_path / "none.toml"))
    (tmp_path / "project").mkdir()
    for i in range(2):
        (tmp_path / "project" / f"f{i}.py").write_text("\n".join(f"v{i}_{k} = {k}  # a line of code" for k in range(300)))
    run = await drive(tmp_path, model, ["read the files\r", "read them again\r", "/compact --up-to 4\r"],
                      context_window=32_000)
    assert "not compacted: a compaction would keep" in " ".join(run.out.split()), run.out
    assert not list((tmp_path / "home" / "projects").glob("*/compact-history/*.jsonl"))
