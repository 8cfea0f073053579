"""Japanese and Chinese files in Shift-JIS, EUC-JP or GBK, and UTF-16 without a byte-order mark,
through the tools as the agent calls them: read as their text, said so by read_file and grep, and
edited in their own encoding. Latin-1 and Windows-1252 files stay what they were, and a file in an
encoding no rule reads gets no UTF-8 written into it."""

from __future__ import annotations

import struct
from pathlib import Path

import pytest

from compact_agent.agent.tools.base import ToolEnv

from .test_tools import call

JAPANESE = "設定ファイル\r\n名前＝テスト\r\n値＝日本語\r\n"
CHINESE = "名称=测试\n值=中文\n"


@pytest.mark.parametrize(("codec", "name", "text", "line2"), [
    ("cp932", "Shift-JIS", JAPANESE, "名前＝テスト"),
    ("euc_jp", "EUC-JP", JAPANESE, "名前＝テスト"),
    ("gbk", "GBK", CHINESE, "值=中文"),
])
async def test_a_cjk_file_is_read_grepped_and_edited_in_its_encoding(
        env: ToolEnv, work: Path, codec: str, name: str, text: str, line2: str) -> None:
    f = work / "conf.txt"
    f.write_bytes(text.encode(codec))
    first = text.splitlines()[0]
    assert await call(env, "read_file", path="conf.txt") == (
        f"[conf.txt is {name} text, not UTF-8; edits keep that encoding]\n     1\t{first}\n     2\t{line2}"
        + ("\n     3\t値＝日本語" if text is JAPANESE else ""))
    assert await call(env, "grep", pattern=line2[:2]) == (
        f"conf.txt:2:{line2}\n"
        f"[not UTF-8: the lines above are read in each file's encoding, which edits keep: conf.txt ({name})]")
    out = await call(env, "edit_file", path="conf.txt", old_string=first, new_string=f"{first} # 変更")
    assert out.startswith(f"Edited conf.txt (1 replacement, kept as {name}); lines 1-"), out
    assert f.read_bytes() == text.replace(first, f"{first} # 変更").encode(codec)  # no UTF-8 byte in it


@pytest.mark.parametrize(("raw", "name"), [
    ("Il était une fois, à Noël, un garçon très âgé.\nÇa va être ça.\n".encode("latin-1"), "Latin-1"),
    ("Informação e ação: não são questões.\nA função é útil.\n".encode("latin-1"), "Latin-1"),
    ("Schöne Grüße aus Köln, Äpfel und Öl.\n".encode("latin-1"), "Latin-1"),
    ("“Déjà vu” – naïve… €5\n".encode("cp1252"), "Windows-1252"),
    ("Привет, как дела? Всё хорошо.\n".encode("cp1251"), "Latin-1"),  # Cyrillic: read byte for byte, as before
])
async def test_8_bit_text_is_not_taken_for_japanese_or_chinese(env: ToolEnv, work: Path, raw: bytes, name: str) -> None:
    (work / "old.txt").write_bytes(raw)
    out = await call(env, "read_file", path="old.txt")
    assert out.startswith(f"[old.txt is {name} text, not UTF-8; edits keep that encoding]\n"), out


async def test_a_file_in_an_unknown_encoding_gets_no_utf8_written_into_it(env: ToolEnv, work: Path) -> None:
    f = work / "odd.txt"
    raw = b"caf\xe9 \xc3\xa9t\xe9 na\xefve\nkey = 1\n"  # three bytes not UTF-8, and one UTF-8 letter by chance
    f.write_bytes(raw)
    assert (await call(env, "read_file", path="odd.txt")).startswith(
        "[odd.txt is UTF-8 but for 3 bytes that are not, shown as \ufffd; edits keep them]\n")
    out = await call(env, "edit_file", path="odd.txt", old_string="key = 1", new_string="key = 'ü'")
    assert out == ("refused: odd.txt is not UTF-8 (3 of its bytes are not) and not in an encoding this tool reads, "
                   "so 'ü' (U+00FC) cannot be written in it; write only ASCII characters there, or convert the "
                   "file to UTF-8 first (iconv).")
    assert f.read_bytes() == raw
    out = await call(env, "edit_file", path="odd.txt", old_string="key = 1", new_string="key = 2")
    assert out.startswith("Edited odd.txt (1 replacement)"), out
    assert f.read_bytes() == raw.replace(b"key = 1", b"key = 2")


@pytest.mark.parametrize(("codec", "name"), [("utf-16-le", "UTF-16 LE"), ("utf-16-be", "UTF-16 BE")])
async def test_utf16_without_a_mark_is_text(env: ToolEnv, work: Path, codec: str, name: str) -> None:
    f = work / "u16.txt"
    f.write_bytes("héllo\r\nno mark\r\n".encode(codec))
    assert await call(env, "read_file", path="u16.txt") == (
        f"[u16.txt is {name} text, not UTF-8; edits keep that encoding]\n     1\théllo\n     2\tno mark")
    assert await call(env, "grep", pattern="mark") == (
        f"u16.txt:2:no mark\n[not UTF-8: the lines above are read in each file's encoding, which edits keep: "
        f"u16.txt ({name})]")
    out = await call(env, "edit_file", path="u16.txt", old_string="no mark", new_string="no mark → kept")
    assert out.startswith(f"Edited u16.txt (1 replacement, kept as {name})"), out
    assert f.read_bytes() == "héllo\r\nno mark → kept\r\n".encode(codec)


async def test_numbers_in_16_bits_are_still_binary(env: ToolEnv, work: Path) -> None:
    (work / "samples.bin").write_bytes(struct.pack("<12H", *range(3, 15)))  # small numbers: NULs on one side
    assert await call(env, "read_file", path="samples.bin") == "samples.bin is a binary file (24 bytes); not shown."


PROPERTIES = "label.descricao=Descrição\nlabel.situacao=Situação\nlabel.titulo=Título\n"


async def test_a_latin1_properties_file_with_paired_accents_stays_latin1(env: ToolEnv, work: Path) -> None:
    # "ção" is two accented bytes side by side, and "í" stands before an ASCII letter: GBK reads all
    # of it (as "Descri玢o", "T韙ulo"), and an edit would have written "á" as GBK's two-byte pinyin letter.
    f = work / "messages.properties"
    f.write_bytes(PROPERTIES.encode("latin-1"))
    assert await call(env, "read_file", path="messages.properties") == (
        "[messages.properties is Latin-1 text, not UTF-8; edits keep that encoding]\n"
        "     1\tlabel.descricao=Descrição\n     2\tlabel.situacao=Situação\n     3\tlabel.titulo=Título")
    out = await call(env, "edit_file", path="messages.properties", old_string="label.titulo=",
                     new_string="label.pagina=Página\nlabel.titulo=")
    assert out.startswith("Edited messages.properties (1 replacement, kept as Latin-1)"), out
    assert f.read_bytes() == PROPERTIES.replace(
        "label.titulo=", "label.pagina=Página\nlabel.titulo=").encode("latin-1")


@pytest.mark.parametrize("text", ["name=Größe\n", "título = 'Configuração'\n", "Situação\nAções: öß, ñó\n"])
async def test_latin1_words_whose_accents_pair_up_are_not_gbk(env: ToolEnv, work: Path, text: str) -> None:
    (work / "de.txt").write_bytes(text.encode("latin-1"))
    out = await call(env, "read_file", path="de.txt")
    assert out.startswith("[de.txt is Latin-1 text, not UTF-8; edits keep that encoding]\n"), out
    assert text.splitlines()[0] in out


@pytest.mark.parametrize(("codec", "name", "text"), [("gbk", "GBK", CHINESE), ("cp932", "Shift-JIS", JAPANESE)])
async def test_a_file_read_as_cjk_gets_no_latin_letter_written_into_it(
        env: ToolEnv, work: Path, codec: str, name: str, text: str) -> None:
    f = work / "conf.txt"
    f.write_bytes(raw := text.encode(codec))
    await call(env, "read_file", path="conf.txt")
    first = text.splitlines()[0]
    out = await call(env, "edit_file", path="conf.txt", old_string=first, new_string=f"{first} # página")
    assert out == (f"refused: conf.txt is read as {name} text, and 'á' (U+00E1, line 1) is not a character such "
                   "text holds; if the file is in another encoding, convert it to UTF-8 first (iconv), else write "
                   "only ASCII, Chinese or Japanese characters there."), out
    assert f.read_bytes() == raw
    out = await call(env, "edit_file", path="conf.txt", old_string=first, new_string=f"{first} → 中文")
    assert out.startswith(f"Edited conf.txt (1 replacement, kept as {name})"), out
    assert f.read_bytes() == text.replace(first, f"{first} → 中文").encode(codec)
