"""Files that are text but not UTF-8, through the tools as the agent calls them: a byte-order mark
(UTF-16, UTF-32, UTF-8) names the encoding; an 8-bit file (Latin-1, Windows-1252) is text, not
binary; an edit or a write keeps the file's encoding and mark."""

from __future__ import annotations

import codecs
import re
import subprocess
from pathlib import Path

import pytest

from compact_agent.agent.tools.base import ToolEnv

from .test_tools import call, make_env

TEXT = "naïve café\r\nline two\r\n"
MARKED = [
    ("utf-16-le", codecs.BOM_UTF16_LE, "UTF-16 LE"),
    ("utf-16-be", codecs.BOM_UTF16_BE, "UTF-16 BE"),
    ("utf-32-le", codecs.BOM_UTF32_LE, "UTF-32 LE"),
    ("utf-32-be", codecs.BOM_UTF32_BE, "UTF-32 BE"),
    ("utf-8", codecs.BOM_UTF8, "UTF-8"),
]


@pytest.mark.parametrize(("codec", "mark", "name"), MARKED)
async def test_a_file_with_a_byte_order_mark_is_read_grepped_and_edited_in_its_encoding(
        env: ToolEnv, work: Path, codec: str, mark: bytes, name: str) -> None:
    f = work / "notes.txt"
    f.write_bytes(mark + TEXT.encode(codec))
    out = await call(env, "read_file", path="notes.txt")
    assert out.endswith("     1\tnaïve café\n     2\tline two"), out
    assert "binary" not in out and "\ufeff" not in out  # the mark is not a character of line 1
    if codec != "utf-8":
        assert out.startswith(f"[notes.txt is {name} text with a byte-order mark, not UTF-8; edits keep that encoding]\n")
    assert await call(env, "grep", pattern="caf.") == "notes.txt:1:naïve café"

    out = await call(env, "edit_file", path="notes.txt", old_string="line two", new_string="line 2 → ok")
    assert out.startswith(f"Edited notes.txt (1 replacement, kept as {name} with a byte-order mark)"), out
    assert "     2\tline 2 → ok" in out
    assert f.read_bytes() == mark + "naïve café\r\nline 2 → ok\r\n".encode(codec)  # same encoding, mark, CRLF

    out = await call(env, "write_file", path="notes.txt", content="rewritten ü\n")
    assert out == (f"Overwrote notes.txt (1 line, kept as {name} with a byte-order mark, "
                   "line breaks written as CRLF to match the file).")
    assert f.read_bytes() == mark + "rewritten ü\r\n".encode(codec)  # the file's CRLF kept


async def test_binary_files_are_still_refused_in_one_line(env: ToolEnv, work: Path) -> None:
    (work / "img.bin").write_bytes(b"\x7fELF\x02\x01\x01\0" + bytes(48))  # an executable
    (work / "fake16.bin").write_bytes(codecs.BOM_UTF16_LE + b"\x00\xd8A\x00")  # a lone surrogate: not UTF-16
    (work / "nul16.bin").write_bytes(codecs.BOM_UTF16_LE + "a\0b".encode("utf-16-le"))  # UTF-16 holding a NUL
    for name, size in (("img.bin", 56), ("fake16.bin", 6), ("nul16.bin", 8)):
        assert await call(env, "read_file", path=name) == f"{name} is a binary file ({size} bytes); not shown."
    assert await call(env, "grep", pattern="A|a") == "No matches for 'A|a' in ."
    # A mark the rest of the file (past what is sniffed) does not follow: refused, nothing written.
    bad = work / "late.txt"
    bad.write_bytes(codecs.BOM_UTF16_LE + "ok\n".encode("utf-16-le") * 5000 + b"\x00\xdcx")
    assert await call(env, "read_file", path="late.txt") == (
        "late.txt starts with a UTF-16 LE byte-order mark but is not UTF-16 LE text (30005 bytes); not shown.")


@pytest.mark.parametrize(("raw", "shown", "name", "new", "written"), [
    (b"# caf\xe9 na\xefve\nx = 1\n", "# café naïve", "Latin-1", "x = '\xa3'", b"x = '\xa3'"),
    (b"# \x93quoted\x94 \x80 caf\xe9\nx = 1\n", "# “quoted” € café", "Windows-1252", "x = '\u2026'", b"x = '\x85'"),
])
async def test_an_8_bit_file_is_text_and_edits_keep_its_encoding(
        env: ToolEnv, work: Path, raw: bytes, shown: str, name: str, new: str, written: bytes) -> None:
    f = work / "old.py"
    f.write_bytes(raw)
    out = await call(env, "read_file", path="old.py")
    assert out == f"[old.py is {name} text, not UTF-8; edits keep that encoding]\n     1\t{shown}\n     2\tx = 1"
    assert await call(env, "grep", pattern="caf", path="old.py") == f"old.py:1:{shown}"
    out = await call(env, "edit_file", path="old.py", old_string="x = 1", new_string=new)
    assert out.startswith(f"Edited old.py (1 replacement, kept as {name})"), out
    assert f.read_bytes() == raw.replace(b"x = 1", written)
    # A character the encoding has no byte for: refused, the file left as it was.
    out = await call(env, "edit_file", path="old.py", old_string=new, new_string="x = '→'")
    assert out == (f"refused: old.py is {name} text, which has no '→' (U+2192, line 2); "
                   f"write only characters {name} has (the file keeps its encoding).")
    assert f.read_bytes() == raw.replace(b"x = 1", written)


async def test_stray_bytes_in_a_utf8_file_are_kept_by_an_edit(env: ToolEnv, work: Path) -> None:
    f = work / "mixed.txt"
    f.write_bytes("déjà vu\n".encode() + b"one stray \xff byte\nlast\n")
    out = await call(env, "read_file", path="mixed.txt")
    assert out == ("[mixed.txt is UTF-8 but for 1 byte that is not, shown as \ufffd; edits keep them]\n"
                   "     1\tdéjà vu\n     2\tone stray \ufffd byte\n     3\tlast")
    out = await call(env, "edit_file", path="mixed.txt", old_string="last", new_string="final")
    assert out.startswith("Edited mixed.txt (1 replacement)") and "stray \ufffd byte" in out
    assert f.read_bytes() == "déjà vu\n".encode() + b"one stray \xff byte\nfinal\n"


async def test_a_big_utf16_file_is_read_in_slices_and_its_cut_note_prints_text(work: Path) -> None:
    env = make_env(work, read_max_bytes=1_000)
    long = "".join(chr(0x3B1 + i % 20) for i in range(6000))  # Greek letters, 2 bytes each in UTF-16
    (work / "big.txt").write_bytes(codecs.BOM_UTF16_LE + ("ü\n" * 600 + long + "\nend\n").encode("utf-16-le"))
    assert "over the 1000-byte read limit" in await call(env, "read_file", path="big.txt")
    out = await call(env, "read_file", path="big.txt", offset=600, limit=3)
    assert out.startswith("[big.txt: lines 600-602 of 602]\n"
                          "[big.txt is UTF-16 LE text with a byte-order mark, not UTF-8; edits keep that encoding]\n"
                          "   600\tü\n   601\t" + long[:2000] + " […line truncated: the first 2,000 characters;")
    assert out.endswith("\n   602\tend")
    found = re.search(r"`(tail -c \+\d+ big.txt \| head -c 4000 \| iconv -f UTF-16LE -t UTF-8)`", out)
    assert found is not None, out[-400:]
    shown = subprocess.run(["bash", "-c", found.group(1)], cwd=work, capture_output=True, timeout=30, check=True)
    assert shown.stdout.decode() == long[2000:4000]
