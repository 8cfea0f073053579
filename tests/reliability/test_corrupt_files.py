"""Corrupt and hostile files: each loads with a one-line warning and the session keeps working.

Session JSONL with torn, binary, duplicated, reordered, unknown and newer-version lines; a corrupt
collapse commit log; corrupt session notes; spilled tool-result files that went missing; corrupt
layer state. The store-level cases are checked one by one; the CLI case corrupts all of a real
session's files at once and resumes it with `--continue`.
"""

from __future__ import annotations

import json
import shutil
from collections.abc import Callable
from pathlib import Path

import pytest
from pydantic_ai.messages import ModelRequest

from compact_agent.config import Settings
from compact_agent.context.layers.rereads import copy_view
from compact_agent.session.files import project_slug
from compact_agent.session.loading import _broken_pairs
from compact_agent.session.store import SessionStore, load_session_file
from tests.fakes.openai_server import FakeOpenAIServer

from .common import cli, cli_args, pairs_history, session
from .drive import TurnsAgent, turn_prompt
from .harness import ENV, Zygote, make_project

Lines = list[bytes]


def texts(messages: list) -> list[str]:
    out = []
    for m in messages:
        for p in m.parts:
            c = getattr(p, "content", None)
            out.append(c if isinstance(c, str) else getattr(p, "tool_call_id", "?"))
    return out


def _valid_file(tmp_path: Path) -> tuple[Path, Lines]:
    s = SessionStore(tmp_path, "s1")
    s.append(pairs_history(3))
    return s.path, s.path.read_bytes().splitlines(keepends=True)


def torn_last_line(lines: Lines) -> Lines:
    return [*lines[:-1], lines[-1][: len(lines[-1]) // 2]]


def lost_tool_result(lines: Lines) -> Lines:
    # Line 6 is the tool result of round 1: its call is left unanswered (a crash between the two).
    return [ln for i, ln in enumerate(lines) if i != 6]


def binary_line(lines: Lines) -> Lines:
    return [*lines[:3], b"\x00\xff\xfe\x80 binary \xc3\x28\n", *lines[3:]]


def duplicated_line(lines: Lines) -> Lines:
    return [*lines[:5], lines[4], *lines[5:]]


def reordered_lines(lines: Lines) -> Lines:
    out = list(lines)
    out[2], out[5] = out[5], out[2]
    out[7], out[9] = out[9], out[7]
    return out


def unknown_kind(lines: Lines) -> Lines:
    extra = json.dumps({"v": 1, "id": "bm1", "parent": None, "time": "t", "kind": "bookmark", "name": "x"})
    return [*lines[:4], extra.encode() + b"\n", *lines[4:]]


def newer_version(lines: Lines) -> Lines:
    # A future writer: a new kind, and a message line with fields this version does not know.
    last = json.loads(lines[-1])
    msg = {"parts": [{"part_kind": "user-prompt", "content": "from the future", "timestamp": "2030-01-01T00:00:00Z",
                      "sentiment": "curious"}], "kind": "request", "future_field": [1, 2]}
    future = [{"v": 2, "id": "f1", "parent": last["id"], "time": "t", "kind": "checkpoint", "state": {}},
              {"v": 2, "id": "f2", "parent": "f1", "time": "t", "kind": "message", "message": msg, "signature": "x"}]
    return [*lines, *(json.dumps(e).encode() + b"\n" for e in future)]


def not_objects(lines: Lines) -> Lines:
    return [b"[1, 2, 3]\n", b"42\n", b'"text"\n', b"null\n", *lines, b"[" * 50_000 + b"\n"]


def everything_at_once(lines: Lines) -> Lines:
    return not_objects(unknown_kind(binary_line(duplicated_line(torn_last_line(lost_tool_result(lines)))))) + \
        [b"\n", b"   \n"]


CASES: dict[str, tuple[Callable[[Lines], Lines], str]] = {
    "torn last line": (torn_last_line, "unreadable"),
    "lost tool result": (lost_tool_result, "closed tool calls"),
    "binary line": (binary_line, "unreadable"),
    "duplicated line": (duplicated_line, "duplicated"),
    "reordered lines": (reordered_lines, "out-of-order"),
    "unknown kind": (unknown_kind, "unknown kind"),
    "newer version": (newer_version, "newer compact-agent"),
    "not objects": (not_objects, "unreadable"),
    "everything at once": (everything_at_once, "unreadable"),
}


@pytest.mark.parametrize("name", list(CASES))
def test_hostile_session_file_loads_with_one_warning_line(tmp_path: Path, name: str) -> None:
    path, lines = _valid_file(tmp_path)
    original = load_session_file(path).messages
    mutate, expect = CASES[name]
    path.write_bytes(b"".join(mutate(lines)))
    loaded = load_session_file(path)
    assert len(loaded.warnings) == 1 and "\n" not in loaded.warnings[0], loaded.warnings
    assert expect in loaded.warnings[0] and path.name in loaded.warnings[0]
    assert not _broken_pairs(loaded.messages)  # a provider accepts it
    if name in ("reordered lines", "duplicated line", "binary line", "unknown kind"):
        assert texts(loaded.messages) == texts(original)  # nothing lost, order as written
    if name == "newer version":
        assert texts(loaded.messages) == [*texts(original), "from the future"]
    if name == "lost tool result":
        # The unanswered call got a synthesized result; everything else is there.
        assert {t for t in texts(original) if not t.startswith("content 1")} <= set(texts(loaded.messages))


def test_appending_to_a_hostile_file_keeps_working(tmp_path: Path) -> None:
    path, lines = _valid_file(tmp_path)
    path.write_bytes(b"".join(everything_at_once(lines)))
    s = SessionStore(tmp_path, "s1")
    before = s.load().messages
    s.append(pairs_history(1))
    after = s.load()
    assert texts(after.messages)[-4:] == ["question 0", "call_0", "content 0 ", "answer 0"]
    assert len(after.messages) >= len(before) + 3 and not _broken_pairs(after.messages)


def test_empty_and_blank_files(tmp_path: Path) -> None:
    for data in (b"", b"\n\n  \n"):
        p = tmp_path / "x.jsonl"
        p.write_bytes(data)
        loaded = load_session_file(p)
        assert loaded.messages == [] and loaded.warnings == []


# -- the whole session, through the CLI --------------------------------------------------------------


def _real_session(home: Path, cwd: Path, server: FakeOpenAIServer) -> tuple[Path, Path]:
    """A session with spills, collapse commits and notes, built in-process (fast)."""
    import asyncio

    env = {**ENV, "COMPACT_AGENT_COLLAPSE_COMMIT_FRACTION": "0.5"}
    settings = Settings(**{k.removeprefix("COMPACT_AGENT_").lower(): v for k, v in env.items()})
    s = session(home, cwd, server, settings=settings)

    async def go() -> None:
        try:
            for k in range(6):
                await s.run_turn(turn_prompt(k, [2 * k % 10, (2 * k + 1) % 10]))
            await s.run_turn(turn_prompt(6, [2, 5]))  # two big files: spilled, and still in the kept tail
        finally:
            await s.aclose()

    asyncio.run(go())
    return s.store.path, s.store.dir


def test_every_file_of_a_session_corrupted_and_continue_still_works(tmp_path: Path, zygote: Zygote) -> None:
    home, cwd = tmp_path / "home", tmp_path / "project"
    make_project(cwd)
    with FakeOpenAIServer(TurnsAgent(), window=9_000) as server:
        path, side = _real_session(home, cwd, server)
        spills = sorted((side / "tool-results").glob("*.txt"))
        log = side / "collapse" / "commits.jsonl"
        assert spills and log.exists(), "the setup must produce spills and collapse commits"
        # The session file: every kind of damage at once (the tail keeps the newest messages intact).
        lines = path.read_bytes().splitlines(keepends=True)
        lines = duplicated_line(binary_line(unknown_kind(lines)))
        path.write_bytes(b"".join(newer_version(lines)) + b'{"v": 1, "id": "torn", "kind": "mess')
        with open(log, "ab") as f:
            f.write(b"\x00\x01 not a commit\n{\"v\": 1, \"id\": 5}\n")
        (side / "notes.md").write_bytes(b"\xff\xfe\x00 binary notes \x80")
        for p in spills:
            p.unlink()
        # The results the session holds in full that were spilled: loading it writes their spill files again
        # (whatever the turn then does to the history, a compaction included).
        damaged = load_session_file(path)
        kept = {p.tool_call_id: p.content for m in damaged.messages if isinstance(m, ModelRequest)
                for p in m.parts if p.part_kind == "tool-return" and isinstance(p.content, str) and len(p.content) > 7_000}
        run = cli(home, cwd, *cli_args(server, turn_prompt(99, [0, 1]), "--continue"),
                  env={**ENV, "COMPACT_AGENT_COLLAPSE_COMMIT_FRACTION": "0.5"}, zygote=zygote)
    assert run.code == 0, run.stderr
    assert run.json()["result"].startswith("TURN 99 values: 100, 107.")
    lines_err = run.stderr_lines()
    assert all(ln.startswith("compact-agent: warning: ") for ln in lines_err), lines_err
    joined = "\n".join(lines_err)
    assert path.name in joined and "newer compact-agent" in joined  # the session file
    assert "collapse log" in joined  # the commit log
    assert "session notes" in joined  # the notes
    assert "spilled tool result" in joined  # the missing spill files
    assert not server.rejected
    # Spilled results still in the session were written again, byte for byte the full result (a
    # file read's lines without the read's numbers, as they were spilled: layers/rereads.py).
    assert kept, "the last turn's big results are in the kept tail"
    for call_id, content in kept.items():
        back = [p for p in spills if p.stem.startswith(call_id.replace(".", "_"))]
        assert back and back[0].read_text() == copy_view(content)[0]
        assert oct(back[0].stat().st_mode & 0o777) == "0o600"


async def test_corrupt_side_state_starts_afresh_with_a_warning(tmp_path: Path) -> None:
    home, cwd = tmp_path / "home", tmp_path / "project"
    make_project(cwd)
    with FakeOpenAIServer(TurnsAgent(), window=9_000) as server:
        s = session(home, cwd, server)
        await s.run_turn(turn_prompt(0, [0, 1]))
        await s.aclose()
        side = s.store.dir
        for name in ("layers.json", "read_state.json", "notes.json"):
            (side / name).write_bytes(b"{\"broken\": ")
        (side / "checkpoints").mkdir(exist_ok=True)
        for p in (side / "checkpoints").glob("*.json"):
            p.write_bytes(b"\x00garbage")
        s2 = session(home, cwd, server, continue_last=True)
        assert any("layers.json" in w for w in s2.warnings)
        assert all("\n" not in w for w in s2.warnings)
        out = await s2.run_turn(turn_prompt(1, [2, 3]))
        await s2.aclose()
    assert out.output.startswith("TURN 1 values: 114, 121.")
    assert not server.rejected


SIDE_FILES = ("layers.json", "read_state.json", "todos.json", "notes.json", "checkpoints/checkpoints.json",
              "collapse/commits.jsonl", "events.jsonl", "usage.jsonl", "foretold.json", "typed-ahead.json")


def test_deeply_nested_side_files_and_a_surrogate_line_continue(tmp_path: Path, zygote: Zygote) -> None:
    """100,000 `[` in every JSON side file (a recursion bomb for a recursive parser), the project's
    `.project.json` among them, and a session line holding the JSON escape of a lone surrogate (valid
    JSON, not encodable as UTF-8): each is one warning, `sessions` lists the session and `--continue`
    answers. The project's file ended every command with a traceback."""
    home, cwd = tmp_path / "home", tmp_path / "project"
    make_project(cwd)
    with FakeOpenAIServer(TurnsAgent(), window=9_000) as server:
        path, side = _real_session(home, cwd, server)
        assert (side / "layers.json").exists() and (side / "collapse" / "commits.jsonl").exists()
        for name in SIDE_FILES:
            (side / name).parent.mkdir(parents=True, exist_ok=True)
            (side / name).write_bytes(b"[" * 100_000)
        others = [p for p in side.rglob("*.json*") if p.relative_to(side).as_posix() not in SIDE_FILES]
        assert not others, f"side files this test does not damage: {others}"
        (path.parent / ".project.json").write_bytes(b"[" * 100_000)
        listed = cli(home, cwd, "sessions", zygote=zygote)
        assert listed.code == 0 and path.stem in listed.stdout and not listed.stderr, listed.stderr
        last = json.loads(path.read_bytes().splitlines()[-1])
        msg = {"parts": [{"part_kind": "user-prompt", "content": "PLACEHOLDER", "timestamp": "2030-01-01T00:00:00Z"}],
               "kind": "request"}
        line = json.dumps({"v": 1, "id": "sur", "parent": last["id"], "time": "t", "kind": "message", "message": msg})
        with open(path, "ab") as f:
            f.write(line.replace("PLACEHOLDER", "lone \\ud800 surrogate").encode() + b"\n")
        run = cli(home, cwd, *cli_args(server, turn_prompt(99, [0, 1]), "--continue"),
                  env={**ENV, "COMPACT_AGENT_COLLAPSE_COMMIT_FRACTION": "0.5"}, zygote=zygote)
    assert run.code == 0, run.stderr
    assert run.json()["result"].startswith("TURN 99 values: 100, 107.")
    lines_err = run.stderr_lines()
    assert lines_err and all(ln.startswith("compact-agent: warning: ") for ln in lines_err), lines_err
    assert "Error" not in run.stderr, run.stderr  # no exception name
    assert not server.rejected
    texts_sent = [m.get("content") for r in server.requests for m in r.messages]
    assert any(isinstance(t, str) and "lone \ufffd surrogate" in t for t in texts_sent)


async def test_names_and_replies_that_are_not_utf8_keep_the_turn_going(tmp_path: Path) -> None:
    """A file name with a byte that is not UTF-8 (listed by glob, grep and a directory read), a
    Latin-1 text file, and a reply holding a lone surrogate: every turn ends normally, the reply is
    saved (with U+FFFD), and the next request is accepted."""
    from tests.fakes.openai_server import Reply, message_text, tool_results

    home, cwd = tmp_path / "home", tmp_path / "project"
    cwd.mkdir()
    (cwd / "caf\udcff.txt").write_bytes(b"needle\n")  # the name's byte 0xff, as the OS hands it over
    (cwd / "latin.txt").write_bytes(b"caf\xe9 au lait\n")
    steps = [("glob", {"pattern": "*"}), ("grep", {"pattern": "needle"}), ("read_file", {"path": "."}),
             ("read_file", {"path": "latin.txt"})]
    results: list[str] = []

    def responder(req):  # type: ignore[no-untyped-def]
        done = tool_results(req)
        if done:
            results.append(message_text(done[0]))
        if len(results) < len(steps) and (not done or req.messages[-1].get("role") == "tool"):
            tool, args = steps[len(results)]
            return Reply.tools([(tool, args)])
        return Reply.text("bad \ud800 reply")

    with FakeOpenAIServer(responder) as server:
        s = session(home, cwd, server)
        out = await s.run_turn("list")
        again = await s.run_turn("and now?")
        await s.aclose()
    assert not server.rejected
    assert all("caf\\xff.txt" in r for r in results[:3]), results
    assert "café au lait" in results[3] and "Latin-1" in results[3], results[3]
    assert out.output.startswith("bad ") and again.output.startswith("bad ")
    saved = [p.content for m in load_session_file(s.store.path).messages for p in m.parts
             if p.part_kind == "text"]
    assert saved == ["bad \ufffd reply", "bad \ufffd reply"], saved


def test_a_huge_junk_line_is_skipped_without_holding_it(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A 40 MB line of junk (a cap of 8 MB here; 64 MB by default) costs about the cap to skip,
    not several times the line: the file is read in chunks, never whole."""
    import tracemalloc

    from compact_agent.session import loading

    monkeypatch.setattr(loading, "MAX_LINE_BYTES", 8 * 1024 * 1024, raising=False)
    path, lines = _valid_file(tmp_path)
    original = load_session_file(path).messages
    with open(path, "wb") as f:
        f.write(b"".join(lines[:4]) + b"x" * 40_000_000 + b"\n" + b"".join(lines[4:]))
    tracemalloc.start()
    try:
        loaded = load_session_file(path)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert texts(loaded.messages) == texts(original)
    assert len(loaded.warnings) == 1 and "skipped 1 unreadable line" in loaded.warnings[0]
    assert peak < 20_000_000, peak  # reading it whole took > 80 MB (the bytes, then the split copy)


def test_a_file_where_a_folder_belongs_is_named_with_what_to_do(tmp_path: Path, zygote: Zygote) -> None:
    """The session's `tool-results/` or the project's session folder replaced by a plain file: one
    line that names it and says to move it (it used to be the bare errno text, "File exists: …")."""
    home, cwd = tmp_path / "home", tmp_path / "project"
    make_project(cwd)
    with FakeOpenAIServer(TurnsAgent(), window=9_000) as server:
        path, side = _real_session(home, cwd, server)
        shutil.rmtree(side / "tool-results", ignore_errors=True)
        (side / "tool-results").write_text("not a folder")
        spilled = cli(home, cwd, *cli_args(server, turn_prompt(99, [0]), "--continue"), env=ENV, zygote=zygote)
        other = tmp_path / "other"
        make_project(other)
        projects = home / "projects"
        taken = [p for p in projects.iterdir() if p.is_dir()]
        assert len(taken) == 1
        blocked = projects / project_slug(other)
        blocked.write_text("not a folder")
        fresh = cli(home, other, *cli_args(server, turn_prompt(1, [0])), env=ENV, zygote=zygote)
    for run, where in ((spilled, side / "tool-results"), (fresh, blocked)):
        assert run.code == 1 and f"{where} is a file where compact-agent needs a folder; move it away or remove it" \
            in run.stderr, run.stderr
        assert "File exists" not in run.stderr and "Error" not in run.stderr
