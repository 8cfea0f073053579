"""A file's line endings, through the tools as the agent calls them: the model writes a line break
as LF, and an edit or an overwrite writes it as the file's own ending (CRLF, a lone CR), in any
encoding, saying so; a mixed file keeps its endings outside the edited text; read_file and grep
number the lines of a file with lone CRs alike."""

from __future__ import annotations

import codecs
from pathlib import Path

import pytest

from compact_agent.agent.tools.base import ToolEnv

from .test_tools import call, make_env

ENCODED = [  # (codec, mark, what the result says of the encoding kept)
    ("utf-8", b"", ""),
    ("utf-8", codecs.BOM_UTF8, ", kept as UTF-8 with a byte-order mark"),
    ("utf-16-le", codecs.BOM_UTF16_LE, ", kept as UTF-16 LE with a byte-order mark"),
]


@pytest.mark.parametrize(("ending", "name"), [("\r\n", "CRLF"), ("\r", "CR")])
@pytest.mark.parametrize(("codec", "mark", "kept"), ENCODED)
async def test_an_edit_writes_the_models_line_breaks_as_the_files(
        env: ToolEnv, work: Path, ending: str, name: str, codec: str, mark: bytes, kept: str) -> None:
    f = work / "notes.txt"
    f.write_bytes(mark + ending.join(["alpha", "beta", "gamma", ""]).encode(codec))
    assert (await call(env, "read_file", path="notes.txt")).endswith("     1\talpha\n     2\tbeta\n     3\tgamma")
    out = await call(env, "edit_file", path="notes.txt", old_string="beta", new_string="BETA\nextra line")
    assert out == (f"Edited notes.txt (1 replacement{kept}, line breaks written as {name} to match the file); "
                   "lines 1-4 now read:\n     1\talpha\n     2\tBETA\n     3\textra line\n     4\tgamma")
    assert f.read_bytes() == mark + ending.join(["alpha", "BETA", "extra line", "gamma", ""]).encode(codec)
    # Lines the model quotes with LF are found in the file whatever ends them there.
    out = await call(env, "edit_file", path="notes.txt", old_string="extra line\ngamma\n", new_string="end\n")
    assert out.startswith("Edited notes.txt (1 replacement"), out
    assert f.read_bytes() == mark + ending.join(["alpha", "BETA", "end", ""]).encode(codec)


async def test_replace_all_writes_every_replacement_with_the_files_ending(env: ToolEnv, work: Path) -> None:
    f = work / "list.txt"
    f.write_bytes(b"x = 1\r\ny = 2\r\nx = 1\r\n")
    await call(env, "read_file", path="list.txt")
    out = await call(env, "edit_file", path="list.txt", old_string="x = 1", new_string="x = 1\n# again",
                     replace_all=True)
    assert out.startswith("Edited list.txt (2 replacements, line breaks written as CRLF to match the file)"), out
    assert f.read_bytes() == b"x = 1\r\n# again\r\ny = 2\r\nx = 1\r\n# again\r\n"


async def test_a_mixed_file_keeps_its_endings_and_new_lines_take_their_lines_ending(
        env: ToolEnv, work: Path) -> None:
    f = work / "mixed.txt"
    f.write_bytes(b"one\r\ntwo\nthree\r\nfour\r\n")
    await call(env, "read_file", path="mixed.txt")
    out = await call(env, "edit_file", path="mixed.txt", old_string="two", new_string="TWO\nadded")
    assert out.startswith("Edited mixed.txt (1 replacement); lines 1-5 now read:"), out  # LF there: nothing converted
    assert f.read_bytes() == b"one\r\nTWO\nadded\nthree\r\nfour\r\n"
    out = await call(env, "edit_file", path="mixed.txt", old_string="three", new_string="3\nthree and a half")
    assert "line breaks written as CRLF to match the file" in out
    assert f.read_bytes() == b"one\r\nTWO\nadded\n3\r\nthree and a half\r\nfour\r\n"


async def test_an_overwrite_keeps_the_files_line_endings_and_says_so(env: ToolEnv, work: Path) -> None:
    crlf, lf = work / "crlf.txt", work / "lf.txt"
    crlf.write_bytes(b"alpha\r\nbeta\r\ngamma\r\n")
    lf.write_bytes(b"alpha\nbeta\n")
    for name in ("crlf.txt", "lf.txt"):
        await call(env, "read_file", path=name)
    out = await call(env, "write_file", path="crlf.txt", content="one\ntwo\nthree\n")
    assert out == "Overwrote crlf.txt (3 lines, line breaks written as CRLF to match the file)."
    assert crlf.read_bytes() == b"one\r\ntwo\r\nthree\r\n"
    assert await call(env, "write_file", path="lf.txt", content="one\ntwo\n") == "Overwrote lf.txt (2 lines)."
    assert lf.read_bytes() == b"one\ntwo\n"
    # A new file is written as the model gives it.
    assert await call(env, "write_file", path="new.txt", content="a\r\nb\r\n") == "Created new.txt (2 lines)."
    assert (work / "new.txt").read_bytes() == b"a\r\nb\r\n"


@pytest.mark.parametrize("read_max_bytes", [None, 40])  # read whole, and read as a stream (a big file)
async def test_read_file_and_grep_number_lines_with_lone_crs_alike(
        work: Path, read_max_bytes: int | None) -> None:
    env = make_env(work, read_max_bytes=read_max_bytes) if read_max_bytes else make_env(work)
    (work / "mac.txt").write_bytes(b"line one\rline two\r\nline three\rline four\nlast line\r")
    assert await call(env, "grep", pattern="three|last") == "mac.txt:3:line three\nmac.txt:5:last line"
    assert await call(env, "read_file", path="mac.txt", offset=3, limit=1) == (
        "[mac.txt: lines 3-3 of 5; read more with offset=4]\n     3\tline three")
    assert await call(env, "read_file", path="mac.txt", offset=5) == "[mac.txt: lines 5-5 of 5]\n     5\tlast line"
