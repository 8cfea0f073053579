"""Codex compresses the rollouts it archives (`archived_sessions/rollout-….jsonl.zst`): the analyzer
reads no compressed file, and says what the file is and what to do, told by its first bytes
whatever its name; the plain rollouts beside such files are read as ever."""

from __future__ import annotations

from pathlib import Path

from compact_agent.replay.batch import load_or_note
from compact_agent.replay.finding import skip_lines

from .test_cli_analyze import cli
from .test_codex_rollouts import FIRST, HEAD
from .test_importer_traps import write_jsonl

#: A zstd frame's first bytes (the magic number, then a frame header and data, not read here).
ZSTD = b"\x28\xb5\x2f\xfd\x24\x10\x81\x00\x00\x7b\x7d\x0a"
SAID = ("zstd-compressed (as Codex keeps its archived rollouts), which the analyzer does not read: decompress it first "
        "(zstd -d FILE)")


def test_a_zstd_file_is_said_to_be_one_whatever_its_name(tmp_path: Path) -> None:
    for name in ("rollout-2026-08-01T10-00-00-a.jsonl.zst", "rollout-2026-08-01T10-00-00-b.jsonl"):
        (tmp_path / name).write_bytes(ZSTD)
        assert load_or_note(tmp_path / name) == f"skipped {tmp_path / name}: {SAID}"


def test_a_folder_of_both_reads_the_plain_rollouts(tmp_path: Path) -> None:
    (tmp_path / "sessions").mkdir()
    write_jsonl(tmp_path / "sessions" / "rollout-2026-08-01T10-00-00-a.jsonl", [*HEAD, *FIRST])
    packed = tmp_path / "archived_sessions" / "rollout-2026-07-01T10-00-00-b.jsonl.zst"
    packed.parent.mkdir()
    packed.write_bytes(ZSTD)
    out = cli(str(tmp_path), "--window", "32000", "--strategy", "none")
    assert out.returncode == 0, out.stderr
    assert "codex, 2 recorded requests" in out.stdout
    assert f"skipped {packed}: {SAID}" in out.stderr


def test_many_are_said_in_one_line() -> None:
    notes = [f"skipped /a/archived_sessions/r{i}.jsonl.zst: {SAID}" for i in range(12)]
    assert skip_lines(notes, frozenset()) == [
        "skipped 12 zstd-compressed files (r0.jsonl.zst, r1.jsonl.zst, r2.jsonl.zst, …), which the analyzer does not "
        "read: decompress them first (zstd -d FILE)"]
