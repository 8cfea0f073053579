"""The built-in tools on real files and real subprocesses, and the toolset inside a pydantic-ai Agent."""

from __future__ import annotations

import asyncio
import os
import re
import subprocess
import threading
import time
from pathlib import Path
from typing import Any

import pytest
from pydantic_ai import Agent
from pydantic_ai.messages import (
    ModelMessage,
    ModelRequest,
    ModelResponse,
    TextPart,
    ToolCallPart,
    ToolReturn,
    ToolReturnPart,
)
from pydantic_ai.models.function import AgentInfo, FunctionModel

from compact_agent.agent.safety.permissions import Permissions
from compact_agent.agent.tools.base import ToolEnv
from compact_agent.agent.tools.checkpoints import Checkpoints
from compact_agent.agent.tools.file_state import ReadFileState
from compact_agent.agent.tools.files import read_file_text
from compact_agent.agent.tools.names import TOOL_NAMES
from compact_agent.agent.tools.toolset import build_toolset, mention_messages
from compact_agent.config import Settings
from compact_agent.context.plumbing.markers import tool_mark
from tests.processes import ended


def make_env(cwd: Path, mode: str = "yes", **settings: Any) -> ToolEnv:
    changes: list[tuple[str, dict[str, Any]]] = []
    env = ToolEnv(
        cwd=cwd,
        settings=Settings(**settings),
        read_state=ReadFileState(),
        permissions=Permissions(cwd, mode),  # type: ignore[arg-type]
        on_change=lambda tool, info: changes.append((tool, info)),
    )
    env.changes = changes  # type: ignore[attr-defined]
    return env


async def call(env: ToolEnv, tool: str, **args: Any) -> str:
    """The text the model reads (a failure comes back as a marked ToolReturn)."""
    out = await build_toolset(env).tools[tool].function(**args)
    return str(out.return_value) if isinstance(out, ToolReturn) else out


def test_toolset_registers_every_tool_with_descriptions(env: ToolEnv) -> None:
    tools = build_toolset(env).tools
    assert tuple(tools) == TOOL_NAMES
    for t in tools.values():
        assert t.description and len(t.description) < 200


# ------------------------------------------------------------------------------------------ read


async def test_read_numbers_lines_and_records(env: ToolEnv, work: Path) -> None:
    (work / "a.py").write_text("one\ntwo\nthree\n")
    assert await call(env, "read_file", path="a.py") == "     1\tone\n     2\ttwo\n     3\tthree"
    entry = env.read_state.get(work / "a.py")
    assert entry is not None and not entry.partial


async def test_read_offset_limit_and_default_lines(work: Path) -> None:
    env = make_env(work, read_default_lines=5)
    (work / "n.txt").write_text("".join(f"line{i}\n" for i in range(1, 11)))
    out = await call(env, "read_file", path="n.txt", offset=3, limit=2)
    assert out.splitlines() == [
        "[n.txt: lines 3-4 of 10; read more with offset=5]",
        "     3\tline3",
        "     4\tline4",
    ]
    entry = env.read_state.get(work / "n.txt")
    assert entry is not None and entry.partial and entry.offset == 3 and entry.limit == 2
    out = await call(env, "read_file", path="n.txt")
    assert out.splitlines()[0] == "[n.txt: lines 1-5 of 10; read more with offset=6]"
    assert "past the end" in await call(env, "read_file", path="n.txt", offset=50)
    (work / "one.txt").write_text("only\n")
    assert await call(env, "read_file", path="one.txt", offset=2) == "one.txt has 1 line; offset 2 is past the end."
    (work / "lone").mkdir()
    (work / "lone" / "a.txt").write_text("")
    assert (await call(env, "read_file", path="lone")).startswith("lone is a directory (1 entry); read a file in it")


async def test_read_truncates_long_lines(env: ToolEnv, work: Path) -> None:
    (work / "long.txt").write_text("x" * 5000 + "\n")
    out = await call(env, "read_file", path="long.txt")
    assert out.startswith("     1\t" + "x" * 2000 + " […line truncated: the first 2,000 of 5,000 characters; grep ")
    assert out.endswith("`tail -c +2001 long.txt | head -c 4000` shows the next 4,000 bytes]") and len(out) < 2200


# read_file shows 2,000 characters of such a line; every character after them differs from its neighbours
LONG = "é" * 1990 + "MARK" + "".join(chr(0x400 + i % 256) for i in range(6000))  # 2-byte characters
LONG_LATIN1 = "é" * 1990 + "MARK" + "".join(chr(0xC0 + i % 64) for i in range(6000))


def _advised(out: str, cwd: Path) -> bytes:
    """What the command a cut note advises prints, run by bash in the tools' working directory."""
    found = re.search(r"`(tail -c \+\d+ .+? \| head -c 4000)` shows the next 4,000 bytes\]", out)
    assert found is not None, out[-300:]
    done = subprocess.run(["bash", "-c", found.group(1)], cwd=cwd, capture_output=True, timeout=30, check=True)
    return done.stdout


@pytest.mark.parametrize(("name", "before", "encoding", "huge", "junk"), [
    ("wide.txt", "", "utf-8", False, b""),  # the long line alone
    ("my dir/-é data.txt", "añö\r\nline two\r\n\r\nßß\r\n", "utf-8", False, b""),  # line 5, CRLF, a path to quote
    ("legacy.txt", "café\n" * 4, "latin-1", False, b""),  # not UTF-8: each byte is one Latin-1 character
    ("huge.txt", "añö\n" * 4, "utf-8", True, b""),  # over read_max_bytes: streamed, the line's rest unread
    ("broken.txt", "añö\n" * 4, "utf-8", True, b"\xe2\x82"),  # streamed, two bytes that are not UTF-8
])
async def test_the_cut_notes_command_prints_what_follows_the_part_shown(
        work: Path, name: str, before: str, encoding: str, huge: bool, junk: bytes) -> None:
    line = LONG if encoding == "utf-8" else LONG_LATIN1
    path = work / name
    path.parent.mkdir(exist_ok=True)
    path.write_bytes(before.encode(encoding) + junk + (line + "\nafter\n").encode(encoding))
    env = make_env(work, read_max_bytes=100 if huge else 2_000_000)
    row = before.count("\n") + 1
    out = await call(env, "read_file", path=name, offset=row, limit=1)
    seen = "\ufffd" * len(junk) + line  # an undecodable byte is shown as U+FFFD
    size = "" if huge else " of 7,994"
    assert f"{row:>6}\t{seen[:2000]} […line truncated: the first 2,000{size} characters; grep finds " in out
    assert _advised(out, work).decode(encoding) == seen[2000:4000 if encoding == "utf-8" else 6000]


async def test_read_binary_huge_missing_directory_empty(work: Path) -> None:
    env = make_env(work, read_max_bytes=100)
    (work / "img.png").write_bytes(b"\x89PNG\0\0" + bytes(50))
    assert await call(env, "read_file", path="img.png") == "img.png is a binary file (56 bytes); not shown."
    (work / "latin.txt").write_bytes(b"caf\xe9\n")
    assert "1\tcafé" in await call(env, "read_file", path="latin.txt")  # Latin-1 text, not binary
    (work / "big.log").write_text("".join(f"entry {i}\n" for i in range(100)))
    out = await call(env, "read_file", path="big.log")
    assert "offset" in out and "limit" in out and "entry" not in out
    out = await call(env, "read_file", path="big.log", offset=50, limit=2)
    assert "    50\tentry 49" in out and "of 100" in out
    (work / "notes.txt").write_text("n")
    assert (
        await call(env, "read_file", path="note.txt") == "File not found: note.txt. Did you mean: notes.txt?"
    )
    (work / "pkg").mkdir()
    (work / "pkg" / "m.py").write_text("")
    out = await call(env, "read_file", path="pkg")
    assert "is a directory" in out and "m.py" in out
    assert await call(env, "read_file", path="pkg/m.py") == "pkg/m.py is empty."


async def test_tool_errors_are_one_line_strings(env: ToolEnv) -> None:
    out = await call(env, "read_file", path="bad\0name")
    assert out == "read_file failed: a path cannot hold a NUL character"  # in our words, not Python's
    assert await call(env, "write_file", path="a\0b", content="x") == "write_file failed: a path cannot hold a NUL character"
    assert await call(env, "bash", command="echo a\0b") == "bash failed: a command cannot hold a NUL character"
    assert "invalid regex" in await call(env, "grep", pattern="(")


# ---------------------------------------------------------------------------------- edit / write


async def test_edit_requires_a_current_read(env: ToolEnv, work: Path) -> None:
    f = work / "m.py"
    f.write_text("x = 1\ny = 2\n")
    assert "has not been read" in await call(
        env, "edit_file", path="m.py", old_string="x = 1", new_string="x = 3"
    )
    await call(env, "read_file", path="m.py")
    st = f.stat()
    f.write_text("x = 1\ny = 5\n")  # someone else saved it
    os.utime(f, ns=(st.st_atime_ns, st.st_mtime_ns + 2_000_000_000))
    out = await call(env, "edit_file", path="m.py", old_string="x = 1", new_string="x = 3")
    assert "changed on disk since it was read" in out
    assert f.read_text() == "x = 1\ny = 5\n"


async def test_edit_after_read_and_again_without_rereading(env: ToolEnv, work: Path) -> None:
    f = work / "m.py"
    f.write_text("a\nb\nx = 1\nc\n")
    await call(env, "read_file", path="m.py")
    out = await call(env, "edit_file", path="m.py", old_string="x = 1", new_string="x = 2")
    assert out.startswith("Edited m.py (1 replacement)") and "     3\tx = 2" in out
    out = await call(env, "edit_file", path="m.py", old_string="x = 2", new_string="x = 3")
    assert out.startswith("Edited")
    assert f.read_text() == "a\nb\nx = 3\nc\n"
    assert [t for t, _ in env.changes] == ["edit_file", "edit_file"]  # type: ignore[attr-defined]
    assert "+x = 3" in env.changes[-1][1]["diff"]  # type: ignore[attr-defined]


async def test_edit_multiple_occurrences_and_replace_all(env: ToolEnv, work: Path) -> None:
    f = work / "m.py"
    f.write_text("foo()\nfoo()\nfoo()\n")
    await call(env, "read_file", path="m.py")
    out = await call(env, "edit_file", path="m.py", old_string="foo()", new_string="bar()")
    assert "occurs 3 times" in out and "replace_all" in out
    out = await call(env, "edit_file", path="m.py", old_string="foo()", new_string="bar()", replace_all=True)
    assert "3 replacements" in out
    assert f.read_text() == "bar()\nbar()\nbar()\n"
    assert "identical" in await call(env, "edit_file", path="m.py", old_string="b", new_string="b")
    assert "not found" in await call(env, "edit_file", path="m.py", old_string="zzz", new_string="y")


async def test_edit_matches_crlf_files(env: ToolEnv, work: Path) -> None:
    f = work / "w.txt"
    f.write_bytes(b"one\r\ntwo\r\n")
    await call(env, "read_file", path="w.txt")
    out = await call(env, "edit_file", path="w.txt", old_string="one\ntwo", new_string="1\n2")
    assert out.startswith("Edited")
    assert f.read_bytes() == b"1\r\n2\r\n"


async def test_write_creates_and_guards_overwrites(env: ToolEnv, work: Path) -> None:
    out = await call(env, "write_file", path="src/new.py", content="a\nb\n")
    assert out == "Created src/new.py (2 lines)."
    assert (work / "src" / "new.py").read_text() == "a\nb\n"
    assert env.read_state.is_current(work / "src" / "new.py")  # our own write counts as a read
    (work / "old.txt").write_text("keep")
    assert "read it first" in await call(env, "write_file", path="old.txt", content="lost")
    assert (work / "old.txt").read_text() == "keep"
    await call(env, "read_file", path="old.txt")
    assert await call(env, "write_file", path="old.txt", content="new") == "Overwrote old.txt (1 line)."
    changes = env.changes  # type: ignore[attr-defined]
    assert [(t, i["created"]) for t, i in changes] == [("write_file", True), ("write_file", False)]


async def test_write_outside_cwd_is_refused(env: ToolEnv, work: Path) -> None:
    outside = work.parent / "outside"
    outside.mkdir()
    (work / "link").symlink_to(outside, target_is_directory=True)
    for path in [str(outside / "a.txt"), "../outside/b.txt", "link/c.txt"]:
        out = await call(env, "write_file", path=path, content="x")
        assert "outside the working directory" in out, path
    assert list(outside.iterdir()) == []


async def test_deny_mode_refuses_write_edit_bash(work: Path) -> None:
    env = make_env(work, mode="deny")
    out = await call(env, "write_file", path="a.txt", content="x")
    assert out == "permission denied: write_file needs approval; rerun with --yes to allow"
    assert "needs approval" in await call(env, "bash", command="touch made")
    assert not (work / "a.txt").exists() and not (work / "made").exists()


async def test_writes_are_checkpointed(env: ToolEnv, work: Path, tmp_path: Path) -> None:
    env.checkpoints = Checkpoints(tmp_path / "cps")
    (work / "a.txt").write_text("before\n")
    env.checkpoints.begin(0, 0, "go")
    await call(env, "read_file", path="a.txt")
    await call(env, "edit_file", path="a.txt", old_string="before", new_string="after")
    await call(env, "write_file", path="b.txt", content="new\n")
    assert env.checkpoints.rewind(0)[0] == 0
    assert (work / "a.txt").read_text() == "before\n" and not (work / "b.txt").exists()


# ------------------------------------------------------------------------------------------ bash


async def test_bash_output_and_exit_code(env: ToolEnv, work: Path) -> None:
    assert await call(env, "bash", command="echo out; echo err >&2; exit 3") == "out\nerr\nexit code: 3"
    assert await call(env, "bash", command="pwd") == f"{work.resolve()}\nexit code: 0"
    assert await call(env, "bash", command="true") == "(no output)\nexit code: 0"


async def test_bash_output_is_capped_head_and_tail(work: Path) -> None:
    env = make_env(work, bash_output_max_chars=200)
    out = await call(env, "bash", command="seq 1 20000")
    lines = out.splitlines()
    assert lines[0] == "1" and lines[-2] == "20000" and lines[-1] == "exit code: 0"
    assert "characters of output cut" in out and len(out) < 400


async def test_bash_timeout_kills_the_process_group(env: ToolEnv, work: Path) -> None:
    cmd = "(sleep 30 & echo $! > grandchild.pid; wait) & sleep 30"
    t0 = time.monotonic()
    result = await build_toolset(env).tools["bash"].function(command=cmd, timeout=0.5)
    assert time.monotonic() - t0 < 3
    assert isinstance(result, ToolReturn)
    out = str(result.return_value)
    assert out.endswith("\nexit code: 137 (timed out after 0.5s: killed by SIGKILL, with its child processes)")
    # Marked as a run that did not finish, apart from a failing one: it says nothing of what the command
    # says run through, and a compaction keeps the failing build before it (compaction/runs.py).
    assert tool_mark(result) == {"error": True, "finished": False}
    assert ended(int((work / "grandchild.pid").read_text())), "grandchild survived the timeout"


async def test_a_command_a_signal_ended_shows_the_exit_code_a_shell_shows(env: ToolEnv) -> None:
    # Python's return code was shown: `exit code: -15`, and `[terminated by SIGTERM]` on the line before.
    assert await call(env, "bash", command="echo bye; kill -TERM $$") == "bye\nexit code: 143 (killed by SIGTERM)"
    assert await call(env, "bash", command="exit 137") == "(no output)\nexit code: 137"  # bash's own: as it is


async def test_bash_does_not_hang_on_background_jobs(env: ToolEnv) -> None:
    t0 = time.monotonic()
    out = await call(env, "bash", command="echo hi; sleep 30 &")
    assert time.monotonic() - t0 < 3
    assert out.startswith("hi\n") and "background" in out and out.endswith("exit code: 0")


# ----------------------------------------------------------------------------------- grep / glob


def _tree(work: Path) -> None:
    files = {
        "src/app.py": "def main():\n    return 42\n",
        "src/util.ts": "export const main = 1\n",
        "README.md": "main entry\n",
        ".git/config": "main = x\n",
        ".venv/lib/x.py": "def main(): pass\n",
        "node_modules/m/index.js": "main\n",
        "src/__pycache__/app.pyc": "main\n",
    }
    for rel, text in files.items():
        (work / rel).parent.mkdir(parents=True, exist_ok=True)
        (work / rel).write_text(text)
    (work / "data.bin").write_bytes(b"main\0\0")


async def test_grep_finds_and_skips(env: ToolEnv, work: Path) -> None:
    _tree(work)
    out = await call(env, "grep", pattern=r"\bmain\b")
    assert sorted(out.splitlines()) == [
        "README.md:1:main entry",
        "src/app.py:1:def main():",
        "src/util.ts:1:export const main = 1",
    ]
    assert await call(env, "grep", pattern="main", glob="*.py") == "src/app.py:1:def main():"
    assert (
        await call(env, "grep", pattern="main", glob="*.{ts,md}", path="src")
        == "src/util.ts:1:export const main = 1"
    )
    assert await call(env, "grep", pattern="return", path="src/app.py") == "src/app.py:2:    return 42"
    assert "No matches" in await call(env, "grep", pattern="nothing_here")


async def test_grep_shows_the_text_around_a_match_deep_in_a_long_line(env: ToolEnv, work: Path) -> None:
    items = ", ".join(f'{{"id": "item{i}", "v": {i}}}' for i in range(3_000))
    (work / "data.min.json").write_text(f"[{items}]")  # 90,780 characters on one line, no newline
    out = await call(env, "grep", pattern="item1399")
    column = f"[{items}]".index("item1399") + 1
    assert out.startswith(f"data.min.json:1:[match at column {column:,} of 90,780] …")
    assert '{"id": "item1399", "v": 1399}' in out and out.endswith("…") and len(out) <= 520
    first = await call(env, "grep", pattern=r'"v": 0\b')  # near the start: the window is the line's head
    assert first.startswith('data.min.json:1:[match at column 18 of 90,780] [{"id": "item0", "v": 0}')
    last = await call(env, "grep", pattern=r"item2999")  # near the end: the window is the line's tail
    assert last.startswith("data.min.json:1:[match at column 90,759 of 90,780] …")
    assert last.endswith('{"id": "item2999", "v": 2999}]') and len(last) <= 520
    (work / "data.min.json").write_text('{"id": "item1399"}\n' + " " * 700 + "x\n")
    assert await call(env, "grep", pattern="item1399|x$") == 'data.min.json:1:{"id": "item1399"}\n' \
        "data.min.json:2:[match at column 701 of 701] …" + " " * 470 + "x"  # 500 characters after the path


async def test_grep_caps_matches(env: ToolEnv, work: Path) -> None:
    (work / "many.txt").write_text("hit\n" * 300)
    out = await call(env, "grep", pattern="hit")
    assert len(out.splitlines()) == 201 and "stopped at 200 matches" in out


async def test_glob_recursive_sorted_newest_first(env: ToolEnv, work: Path) -> None:
    _tree(work)
    (work / "top.py").write_text("")
    now = time.time()
    os.utime(work / "top.py", (now - 100, now - 100))
    os.utime(work / "src" / "app.py", (now, now))
    assert (await call(env, "glob", pattern="**/*.py")).splitlines() == ["src/app.py", "top.py"]
    assert await call(env, "glob", pattern="*.py") == "top.py"
    assert await call(env, "glob", pattern="src/*.{py,ts}") in (
        "src/app.py\nsrc/util.ts",
        "src/util.ts\nsrc/app.py",
    )
    assert await call(env, "glob", pattern="*.py", path="src") == "src/app.py"
    assert "No files match" in await call(env, "glob", pattern="**/*.rs")


async def test_a_pattern_is_quoted_as_written(env: ToolEnv, work: Path) -> None:
    """The search tools' answers name the pattern as sent: Python's form of it put one holding a quote
    in double quotes and doubled each backslash, a regex the model never wrote."""
    from compact_agent.agent.tools.tool_search import DeferredTools

    assert await call(env, "grep", pattern=r"it's\d") == r"No matches for 'it's\d' in ."
    assert await call(env, "grep", pattern=r"it's\d(") == r"invalid regex 'it's\d(': missing ) at position 7"
    assert await call(env, "glob", pattern=r"it's\*.rs") == r"No files match 'it's\*.rs' under ."
    assert DeferredTools(lambda: 1000).search(r"it's\x") == r"No tool matches 'it's\x'. Available: "


# ---------------------------------------------------------------------------------------- mentions


def test_mention_messages_pair_calls_and_returns(env: ToolEnv, work: Path) -> None:
    (work / "a.py").write_text("print('a')\n")
    (work / "b.md").write_text("# b\n")
    msgs = mention_messages(env, [work / "a.py", Path("b.md")], None)
    assert len(msgs) == 2
    resp, req = msgs
    assert isinstance(resp, ModelResponse) and isinstance(req, ModelRequest)
    calls = [p for p in resp.parts if isinstance(p, ToolCallPart)]
    rets = [p for p in req.parts if isinstance(p, ToolReturnPart)]
    assert [c.args for c in calls] == [{"path": "a.py"}, {"path": "b.md"}]
    assert [c.tool_call_id for c in calls] == [r.tool_call_id for r in rets]
    assert calls[0].tool_call_id.startswith("mention_0_")
    assert rets[0].content == "     1\tprint('a')"
    assert rets[0].metadata == {"compact_agent": {"synthetic": "mention"}} == resp.metadata
    assert env.read_state.paths() == [(work / "a.py").resolve(), (work / "b.md").resolve()]
    again = mention_messages(env, [work / "a.py", Path("b.md")], None)
    assert [p.tool_call_id for p in again[0].parts] == [c.tool_call_id for c in calls]  # deterministic
    salted = mention_messages(env, [work / "a.py"], None, salt="turn 2")
    assert salted[0].parts[0].tool_call_id != calls[0].tool_call_id
    assert mention_messages(env, [], None) == []


def test_mention_truncates_with_a_hint(env: ToolEnv, work: Path) -> None:
    (work / "big.py").write_text("".join(f"x{i} = {i}\n" for i in range(1000)))
    (_, req) = mention_messages(env, [work / "big.py"], max_tokens_per_file=50)
    content = req.parts[0].content
    assert len(content) < 50 * 4 + 120
    assert "read_file(path='big.py', offset=" in content
    entry = env.read_state.get(work / "big.py")
    assert entry is not None and entry.partial
    assert read_file_text(env, "big.py", 999, 5).endswith("   999\tx998 = 998\n  1000\tx999 = 999")


# ------------------------------------------------------------------------------------ inside Agent


async def test_agent_reads_then_edits(env: ToolEnv, work: Path) -> None:
    f = work / "greet.py"
    f.write_text("print('hello')\n")

    def model(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        returns = [
            p
            for m in messages
            if isinstance(m, ModelRequest)
            for p in m.parts
            if isinstance(p, ToolReturnPart)
        ]
        if not returns:
            return ModelResponse(parts=[ToolCallPart("read_file", {"path": "greet.py"})])
        if len(returns) == 1:
            assert "print('hello')" in returns[0].content
            args = {"path": "greet.py", "old_string": "hello", "new_string": "goodbye"}
            return ModelResponse(parts=[ToolCallPart("edit_file", args)])
        return ModelResponse(parts=[TextPart(f"done: {returns[-1].content.splitlines()[0]}")])

    agent = Agent(FunctionModel(model), toolsets=[build_toolset(env)])
    result = await agent.run("change the greeting")
    assert f.read_text() == "print('goodbye')\n"
    assert result.output.startswith("done: Edited greet.py")


async def test_optional_parameters_are_advertised_as_their_type_and_still_take_null(env: ToolEnv, work: Path) -> None:
    """`offset: int | None = None` reads as an optional integer (no `anyOf [.., null]`, no `default: null`);
    a model that sends null anyway gets the default, as before."""
    (work / "a.txt").write_text("one\ntwo\n")
    seen: dict[str, dict[str, Any]] = {}

    def model(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        seen.update({t.name: t.parameters_json_schema for t in info.function_tools})
        returns = [p for m in messages if isinstance(m, ModelRequest) for p in m.parts if isinstance(p, ToolReturnPart)]
        if not returns:
            return ModelResponse(parts=[ToolCallPart("read_file", {"path": "a.txt", "offset": None, "limit": None}),
                                        ToolCallPart("grep", {"pattern": "two", "path": None, "glob": None})])
        return ModelResponse(parts=[TextPart(" | ".join(str(r.content) for r in returns))])

    result = await Agent(FunctionModel(model), toolsets=[build_toolset(env)]).run("look")
    assert "1\tone" in result.output and "2\ttwo" in result.output and "a.txt:2:two" in result.output
    read, grep, bash = seen["read_file"], seen["grep"], seen["bash"]
    assert read["required"] == ["path"] and grep["required"] == ["pattern"] and bash["required"] == ["command"]
    assert {k: v["type"] for k, v in read["properties"].items()} == {"path": "string", "offset": "integer",
                                                                     "limit": "integer"}
    assert grep["properties"]["glob"]["type"] == "string" and bash["properties"]["timeout"]["type"] == "number"
    for schema in seen.values():
        for prop in schema["properties"].values():
            assert "anyOf" not in prop and prop.get("default", "unset") is not None
    assert seen["edit_file"]["properties"]["replace_all"]["default"] is False  # a real default is still stated


async def test_read_file_speaks_of_images_only_to_a_model_that_takes_them(env: ToolEnv) -> None:
    """The description follows `env.images` at every request (a /model switch changes it)."""
    seen: list[str] = []

    def model(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        seen.append(next(t.description or "" for t in info.function_tools if t.name == "read_file"))
        return ModelResponse(parts=[TextPart("ok")])

    agent = Agent(FunctionModel(model), toolsets=[build_toolset(env)])
    env.images = False
    await agent.run("look")
    env.images = True
    await agent.run("look")
    text_only, sees = seen
    assert text_only.startswith("Read a text file") and "edit" in text_only
    assert "image" not in text_only and "PNG" not in text_only
    assert sees.startswith(text_only) and "PNG, JPEG" in sees and sees.endswith("image itself.")


async def test_failures_are_marked_and_a_failed_write_names_the_file(env: ToolEnv, monkeypatch) -> None:
    from compact_agent.agent.tools import file_state
    from compact_agent.agent.tools.base import is_failure

    tools = build_toolset(env).tools
    missing = await tools["read_file"].function(path="nope.txt")
    assert isinstance(missing, ToolReturn) and is_failure(ToolReturnPart("read_file", "", metadata=missing.metadata))
    ok = await tools["read_file"].function(path=".")
    assert isinstance(ok, ToolReturn)  # a directory is not a file to read
    (env.cwd / "a.txt").write_text("x\n")
    assert isinstance(await tools["read_file"].function(path="a.txt"), str)  # success: plain text, no mark
    assert isinstance(await tools["bash"].function(command="exit 3"), ToolReturn)
    assert isinstance(await tools["bash"].function(command="true"), str)

    real_open = os.open

    def read_only_fs(path, flags, *a):  # what a read-only file system answers for the temp file
        if str(path).endswith(".tmp"):
            raise OSError(30, "Read-only file system", str(path))
        return real_open(path, flags, *a)

    monkeypatch.setattr(file_state.os, "open", read_only_fs)
    out = await call(env, "write_file", path="b.py", content="print(1)\n")
    assert out == "could not write b.py: Read-only file system", out
    assert not (env.cwd / "b.py").exists()


# ---------------------------------------------------------------------------------- grep bounds


async def test_grep_skips_fifos_and_devices(env: ToolEnv, work: Path) -> None:
    (work / "a.txt").write_text("needle\n")
    os.mkfifo(work / "pipe")
    (work / "dev").symlink_to("/dev/zero")
    try:
        out = await asyncio.wait_for(call(env, "grep", pattern="needle"), 10)
    finally:  # without the fix the worker thread sits in open(): let it go
        fd = os.open(work / "pipe", os.O_RDWR | os.O_NONBLOCK)
        os.close(fd)
    assert out == "a.txt:1:needle"


async def test_grep_bounds_a_catastrophic_pattern(env: ToolEnv, work: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from compact_agent.agent.tools import search

    monkeypatch.setattr(search, "LINE_TIME_S", 0.2, raising=False)
    (work / "a.txt").write_text("first needle\n" + "a" * 30 + "b\nnever reached\n")
    t0 = time.monotonic()
    out = await call(env, "grep", pattern=r"needle|(a|aa)+$")
    assert time.monotonic() - t0 < 5  # without a bound: 2^30 steps of backtracking, minutes
    lines = out.splitlines()
    assert lines[0] == "a.txt:1:first needle" and "grep stopped" in lines[1] and "a.txt:2" in lines[1]


async def test_an_interrupted_grep_stops_its_thread(env: ToolEnv, work: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from compact_agent.agent.tools import search

    monkeypatch.setattr(search, "GREP_TIME_S", 1_000.0, raising=False)
    (work / "big.txt").write_text("some ordinary line of text\n" * 2_000_000)
    searching = threading.Event()
    real_lines = search._lines

    def lines(fh: Any) -> Any:
        searching.set()
        yield from real_lines(fh)

    monkeypatch.setattr(search, "_lines", lines)
    task = asyncio.ensure_future(call(env, "grep", pattern=r"(x|xx)+y"))
    deadline = time.monotonic() + 60
    while not searching.is_set():  # the thread is reading big.txt
        assert time.monotonic() < deadline and not task.done(), "the grep never started reading"
        await asyncio.sleep(0.01)
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    t0 = time.monotonic()
    await asyncio.get_running_loop().shutdown_default_executor()  # what exiting the REPL waits for
    assert time.monotonic() - t0 < 1.0
