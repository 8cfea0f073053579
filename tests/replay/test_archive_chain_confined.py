"""The archives a session file of ours names are followed only where the agent writes them: this
session's own archives (`<id>-<stamp>.jsonl`) in the `compact-history/` folder beside it, each once,
the chain walked in a loop. A boundary naming the file itself (or two archives naming each other) was
followed until the recursion limit: with a 5 MB file, 64 s, 4.6 GB and 'analysis failed: maximum
recursion depth exceeded' for the whole run; an absolute path anywhere was read, another project's
session rebuilt into this one's replay. Each archive not followed is said in a note, with why."""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

import pytest
from pydantic_ai.messages import (
    ModelRequest,
    ModelResponse,
    TextPart,
    ToolCallPart,
    ToolReturnPart,
    UserPromptPart,
)
from pydantic_ai.usage import RequestUsage

from compact_agent.context.compaction import summary
from compact_agent.replay import _compact_agent
from compact_agent.replay.importers import load_transcript
from compact_agent.session.store import SessionStore

from ._helpers import printed_apart
from .test_cli_analyze import cli

pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="FIFOs and symlinks")

STAMP = "20261201-120000-{:06}"


def exchange(i: int, words: str = "y") -> list[ModelRequest | ModelResponse]:
    return [ModelResponse(parts=[TextPart(f"step {i}"), ToolCallPart("read_file", {"path": f"f{i}"}, tool_call_id=f"c{i}")],
                          usage=RequestUsage(input_tokens=100 * i + 50, output_tokens=10), model_name="m"),
            ModelRequest(parts=[ToolReturnPart("read_file", words * 50, tool_call_id=f"c{i}")])]


def compacted(folder: Path, name: str, archive: str, i: int, words: str = "y") -> Path:
    """The session file `folder/name`: a compaction's boundary naming `archive`, its summary, then
    one exchange of its own (call c`i`)."""
    store = SessionStore(folder, name.removesuffix(".jsonl"))
    store.rewrite({"trigger": "auto", "strategy": "full", "tokens_before": 900, "tokens_after": 300,
                   "archive": archive, "time": ""},
                  [summary.summary_message("what came before", None, ["go"]), *exchange(i, words)])
    return store.path


def calls(path: Path) -> list[str]:
    t = load_transcript(path)
    return [p.tool_call_id for m in t.messages for p in m.parts if isinstance(p, ToolCallPart)]


def loaded_apart(session: Path) -> list[str]:
    """The warnings of `load_transcript(session)`, in a process of its own (`printed_apart`)."""
    load = ("import json, sys; from pathlib import Path; from compact_agent.replay.importers import load_transcript; "
            "print(json.dumps(load_transcript(Path(sys.argv[1])).warnings))")
    warnings: list[str] = printed_apart(load, str(session), "the load")
    return warnings


def note(path: Path, archive: str, why: str) -> str:
    return (f"{path.name}: the archive before a full compaction ({archive}) is not followed: {why}; "
            "replaying from the compacted history")


def test_a_boundary_naming_its_own_file_is_not_followed(tmp_path: Path) -> None:
    session = compacted(tmp_path, "s1.jsonl", str(tmp_path / "s1.jsonl"), 1)
    t = load_transcript(session)
    assert [p.tool_call_id for m in t.messages for p in m.parts if isinstance(p, ToolCallPart)] == ["c1"]
    assert note(session, str(session), "it is not one of this session's archives in the compact-history/ folder "
                "beside it") in t.warnings


def test_archives_that_name_each_other_are_each_read_once(tmp_path: Path) -> None:
    """s1.jsonl → its archive A → archive B → A again: A and B are read once each, and the loop said."""
    history = tmp_path / "compact-history"
    history.mkdir()
    a, b = f"s1-{STAMP.format(1)}.jsonl", f"s1-{STAMP.format(2)}.jsonl"
    compacted(history, a, str(history / b), 1)
    compacted(history, b, str(history / a), 2)
    session = compacted(tmp_path, "s1.jsonl", str(history / a), 3)
    t = load_transcript(session)
    assert note(history / b, str(history / a), "it was read already in this chain of archives (a loop)") in t.warnings
    assert len(t.recorded_compactions) == 2  # A's over B, the session's over A
    # An archive analyzed on its own follows its session's archives beside it, and ends the loop too.
    alone = load_transcript(history / a)
    assert note(history / b, str(history / a), "it was read already in this chain of archives (a loop)") in alone.warnings
    assert len(alone.recorded_compactions) == 1


def test_an_archive_named_outside_the_sessions_compact_history_is_not_read(tmp_path: Path) -> None:
    """Another project's session, by its absolute path; a file named as this session's archive in
    another folder's compact-history/ (looked for in this session's own, where there is none); and
    a link in this session's compact-history/ to a file elsewhere: none of them is read."""
    other = tmp_path / "other-project"
    other.mkdir()
    victim = SessionStore(other, "s9")
    victim.append([ModelRequest(parts=[UserPromptPart("the other project's words")]), *exchange(7, "secret")])
    (other / "compact-history").mkdir()
    elsewhere = other / "compact-history" / f"s1-{STAMP.format(1)}.jsonl"
    elsewhere.write_bytes(victim.path.read_bytes())
    here = tmp_path / "here"
    (here / "compact-history").mkdir(parents=True)

    session = compacted(here, "s1.jsonl", str(victim.path), 1)
    assert calls(session) == ["c1"]
    assert note(session, str(victim.path), "it is not one of this session's archives in the compact-history/ "
                "folder beside it") in load_transcript(session).warnings

    session = compacted(here, "s1.jsonl", str(elsewhere), 1)
    assert calls(session) == ["c1"]
    assert (f"s1.jsonl: the archive before a full compaction is missing: no {elsewhere.name} in "
            f"{os.path.realpath(here / 'compact-history')}/ (recorded as {elsewhere}); replaying from the compacted "
            "history") in load_transcript(session).warnings

    (here / "compact-history" / elsewhere.name).symlink_to(elsewhere)
    t = load_transcript(session)
    assert [p.tool_call_id for m in t.messages for p in m.parts if isinstance(p, ToolCallPart)] == ["c1"]
    assert note(session, str(elsewhere), f"it is a link out of the compact-history/ folder (to {elsewhere})") in t.warnings
    assert not any("secret" in str(getattr(p, "content", "")) for m in t.messages for p in m.parts)


def test_a_pipe_in_place_of_an_archive_is_not_opened(tmp_path: Path) -> None:
    (tmp_path / "compact-history").mkdir()
    pipe = tmp_path / "compact-history" / f"s1-{STAMP.format(1)}.jsonl"
    os.mkfifo(pipe)
    session = compacted(tmp_path, "s1.jsonl", str(pipe), 1)
    assert note(session, str(pipe), "it is not a regular file (a pipe, a device or a folder)") in loaded_apart(session)


def long_chain(folder: Path) -> tuple[Path, list[str]]:
    """The session file `folder/s1.jsonl` and the names of its archives, oldest first: MAX_CHAIN + 1 of
    them, each a boundary naming the one before it (the first names one that is not there)."""
    history = folder / "compact-history"
    history.mkdir()
    names = [f"s1-{STAMP.format(i)}.jsonl" for i in range(_compact_agent.MAX_CHAIN + 2)]
    for before, name in zip(names, names[1:], strict=False):
        (history / name).write_text(json.dumps(
            {"v": 1, "id": "b", "parent": None, "time": "2026-12-01T12:00:00+00:00", "kind": "boundary",
             "boundary": {"trigger": "auto", "strategy": "full", "tokens_before": 9, "tokens_after": 3,
                          "archive": str(history / before), "time": "2026-12-01T12:00:00+00:00"}}) + "\n")
    return compacted(folder, "s1.jsonl", str(history / names[-1]), 1), names


def test_a_chain_longer_than_the_stack_is_walked_to_the_last_archive_followed(tmp_path: Path) -> None:
    """MAX_CHAIN archives back: walked in a loop, so no recursion limit ends it; the archive past
    them is said."""
    session, names = long_chain(tmp_path)
    t = load_transcript(session)
    history = tmp_path / "compact-history"
    last = history / names[-_compact_agent.MAX_CHAIN]  # the session file, then MAX_CHAIN archives back
    assert note(last, str(history / names[-1 - _compact_agent.MAX_CHAIN]),
                f"it is past the {_compact_agent.MAX_CHAIN:,} archives the analyzer follows back") in t.warnings


def test_a_session_reached_through_a_link_or_from_its_archives_folder_follows_its_own_archives(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    project = tmp_path / "project"
    (project / "compact-history").mkdir(parents=True)
    first = f"s1-{STAMP.format(1)}.jsonl"
    SessionStore(project / "compact-history", first.removesuffix(".jsonl")).append(exchange(0))
    session = compacted(project, "s1.jsonl", str(project / "compact-history" / first), 1)
    (tmp_path / "elsewhere.jsonl").symlink_to(session)
    assert calls(tmp_path / "elsewhere.jsonl") == ["c0", "c1"]
    second = f"s1-{STAMP.format(2)}.jsonl"
    compacted(project / "compact-history", second, str(project / "compact-history" / first), 2)
    monkeypatch.chdir(project / "compact-history")
    assert calls(Path(second)) == ["c0", "c2"]  # named as it is from there: its session's archives beside it


def test_the_whole_run_goes_on_past_a_long_chain_of_archives(tmp_path: Path) -> None:
    """The recursion the chain took ended the whole run, 'analysis failed: maximum recursion depth
    exceeded', exit 1, the other transcripts' figures lost."""
    long_chain(tmp_path)
    (tmp_path / "chat.json").write_text(json.dumps([{"role": "user", "content": "hi"},
                                                    {"role": "assistant", "content": "hello there"}]))
    out = cli("s1.jsonl", "chat.json", "-s", "ours", "--json", cwd=tmp_path)
    assert out.returncode == 0, out.stderr
    assert [t["path"] for t in json.loads(out.stdout)["transcripts"]] == ["s1.jsonl", "chat.json"]
