"""`compact-agent sessions` counts the messages a load reads: a torn, binary, duplicated, unknown or
garbage line is none (a file of one entry and two garbage lines showed "3 entries")."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from pydantic_ai.messages import ModelRequest, ModelResponse, TextPart, UserPromptPart
from typer.testing import CliRunner

from compact_agent.agent.run.options import session_root
from compact_agent.cli import app
from compact_agent.session.loading import load_session_file, readable_entries
from compact_agent.session.store import SessionStore


def sessions_root(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A project to run `compact-agent sessions` in (its own home, no config): its sessions folder."""
    work = tmp_path / "project"
    work.mkdir()
    monkeypatch.setenv("COMPACT_AGENT_HOME", str(tmp_path / "home"))
    monkeypatch.setenv("COMPACT_AGENT_CONFIG", str(tmp_path / "none.toml"))
    monkeypatch.chdir(work)
    return session_root(work.resolve())


def test_sessions_counts_only_the_entries_a_load_reads(tmp_path, monkeypatch) -> None:
    store = SessionStore(sessions_root(tmp_path, monkeypatch), "20261202-1030-ab12")
    store.append([ModelRequest(parts=[UserPromptPart("fix the parser")])])
    first = store.path.read_bytes()
    store.append([ModelResponse(parts=[TextPart("done")])])
    with store.path.open("ab") as f:
        f.write(b"garbage that is no json\n")
        f.write(b"\xff\xfe\x00binary\n")
        f.write(b"[1, 2, 3]\n")
        f.write(json.dumps({"v": 1, "id": "u1", "kind": "from-the-future"}).encode() + b"\n")
        f.write(first)  # the first entry again
        f.write(b'{"v": 1, "id": "torn", "kind": "mess\n')
    assert len(load_session_file(store.path).messages) == 2
    assert len(list(readable_entries(store.path))) == 2
    res = CliRunner().invoke(app, ["sessions"])
    assert res.exit_code == 0, res.output
    assert "20261202-1030-ab12" in res.output and "    2 messages  fix the parser" in res.output, res.output


def test_a_session_of_garbage_lines_has_no_entries(tmp_path, monkeypatch) -> None:
    """A file of a session's name with no line that reads as an entry is listed as no session."""
    root = sessions_root(tmp_path, monkeypatch)
    root.mkdir(parents=True)
    (root / "20261202-1031-cd34.jsonl").write_bytes(b"not json\n{\n\x00\x01\n")
    res = CliRunner().invoke(app, ["sessions"])
    assert res.exit_code == 0, res.output
    assert "20261202-1031-cd34" in res.output and "not a session file" in res.output, res.output
    assert "messages" not in res.output, res.output


def test_a_session_of_one_typed_message_that_never_reached_the_model_lists_it(tmp_path, monkeypatch) -> None:
    """A REPL killed while it started leaves only the line typed meanwhile (journal.py): a load reads
    it as the user's message, unanswered, and the listing shows it so (it said '0 messages (no
    prompt)'). One a request carried is listed as any message; one marked unsent is none."""
    from compact_agent.session import journal

    root = sessions_root(tmp_path, monkeypatch)
    journal.save_prompt_early(root, "20261202-1030-ab12", "remember PELICAN")
    sent = SessionStore(root, "20261202-1031-cd34")
    sent.lock()
    sent.save_prompt("fix the parser")
    sent.append([ModelRequest(parts=[UserPromptPart("fix the parser")]), ModelResponse(parts=[TextPart("done")])])
    sent.save_prompt("and the lexer")  # typed, then the turn was interrupted before its request
    sent.settle_prompt()
    sent.unlock()
    res = CliRunner().invoke(app, ["sessions"])
    assert res.exit_code == 0, res.output
    assert "    1 message   remember PELICAN  (unanswered)" in res.output, res.output
    assert "    2 messages  fix the parser\n" in res.output, res.output
    for sid in ("20261202-1030-ab12", "20261202-1031-cd34"):  # the count /resume then says
        listed = next(line for line in res.output.splitlines() if sid in line)
        assert f" {len(load_session_file(root / f'{sid}.jsonl').messages)} message" in listed, listed
