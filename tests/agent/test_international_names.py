"""File names and text past ASCII as the tools take them back from the model.

A name whose bytes are not UTF-8 (`latin_caf\\xe9.txt`, saved by a Latin-1 system) reaches the model
as `tool_text` writes it, `\\xe9`; read_file, edit_file and write_file given that name find the file
and its folder (they answered "File not found: latin_caf\\xe9.txt. Did you mean: latin_caf\\xe9.txt?",
and write_file made a folder named `dir_\\xff` with a backslash). A name or a text typed in one Unicode
normalization finds the one stored in the other (`résumé.md` with one `é`, or with an `e` and a
combining accent, as macOS saves names): read, written over, globbed, grepped and edited, and
`@`-mentioned and Tab-completed at the REPL."""

from __future__ import annotations

import os
import unicodedata
from pathlib import Path

import pytest

from compact_agent.agent.safety.permissions import Permissions
from compact_agent.agent.tools.base import ToolEnv, tool_text
from compact_agent.agent.tools.edits import edit_file_impl, write_file_impl
from compact_agent.agent.tools.files import read_file_text
from compact_agent.agent.tools.search import glob_impl, grep_impl
from compact_agent.ui.prompt_input import ReplCompleter
from tests.ui.test_mention_completion import attached, tab

posix_bytes = pytest.mark.skipif(os.name != "posix", reason="names are bytes on POSIX only")


def nfd(text: str) -> str:
    return unicodedata.normalize("NFD", text)


def nfc(text: str) -> str:
    return unicodedata.normalize("NFC", text)


def names(work: Path) -> list[bytes]:
    return sorted(os.fsencode(p.relative_to(work)) for p in work.rglob("*"))


@posix_bytes
def test_a_name_not_utf8_as_glob_showed_it_is_read_edited_and_written(env: ToolEnv, work: Path) -> None:
    (work / os.fsdecode(b"latin_caf\xe9.txt")).write_text("old\n")
    (shown,) = tool_text(glob_impl(env, "*.txt")).splitlines()  # what the model is sent
    assert shown == "latin_caf\\xe9.txt"
    assert read_file_text(env, shown) == "     1\told"
    assert edit_file_impl(env, shown, "old", "new").startswith("Edited")
    assert write_file_impl(env, shown, "newer\n").startswith("Overwrote")
    assert (work / os.fsdecode(b"latin_caf\xe9.txt")).read_text() == "newer\n"
    assert names(work) == [b"latin_caf\xe9.txt"]


@posix_bytes
def test_a_file_is_written_into_a_folder_whose_name_is_not_utf8(env: ToolEnv, work: Path) -> None:
    (work / os.fsdecode(b"dir_\xff")).mkdir()
    (work / os.fsdecode(b"dir_\xff") / "inner.txt").write_text("needle\n")
    assert tool_text(grep_impl(env, "needle")) == "dir_\\xff/inner.txt:1:needle"
    assert write_file_impl(env, "dir_\\xff/new.txt", "hi\n").startswith("Created")
    assert names(work) == [b"dir_\xff", b"dir_\xff/inner.txt", b"dir_\xff/new.txt"]  # no `dir_\\xff` folder
    assert tool_text(glob_impl(env, "*", path="dir_\\xff")).splitlines() == ["dir_\\xff/new.txt", "dir_\\xff/inner.txt"]


@posix_bytes
def test_a_name_that_only_looks_like_a_byte_escape_is_itself(env: ToolEnv, work: Path) -> None:
    (work / "caf\\xe9.txt").write_text("the backslash one\n")
    (work / os.fsdecode(b"caf\xe9.txt")).write_text("the Latin-1 one\n")
    assert read_file_text(env, "caf\\xe9.txt") == "     1\tthe backslash one"
    # `\x85` is both U+0085, a control path_line escapes, and a byte: whichever is on disk
    (work / "a\x85b").write_text("control\n")
    assert read_file_text(env, "a\\x85b") == "     1\tcontrol"


@pytest.mark.parametrize(("stored", "given"), [(nfd, nfc), (nfc, nfd)])
def test_a_name_in_either_normalization_is_the_file(env: ToolEnv, work: Path, stored, given) -> None:  # type: ignore[no-untyped-def]
    (work / stored("dossiers")).mkdir()
    (work / stored("dossiers") / stored("résumé.md")).write_text("Crème brûlée\n")
    path = given("dossiers/résumé.md")
    assert read_file_text(env, path) == "     1\tCrème brûlée"
    assert write_file_impl(env, path, "Nouveau\n").startswith("Overwrote")
    assert write_file_impl(env, given("dossiers/café.md"), "x\n").startswith("Created")
    assert [p.name for p in sorted(work.rglob("*"))] == [stored("dossiers"), given("café.md"), stored("résumé.md")]
    assert (work / stored("dossiers") / stored("résumé.md")).read_text() == "Nouveau\n"


def test_two_files_alike_are_each_their_own(env: ToolEnv, work: Path) -> None:
    (work / nfd("éé.txt")).write_text("decomposed\n")
    (work / nfc("éé.txt")).write_text("composed\n")
    if len(os.listdir(work)) == 1:
        pytest.skip("this file system stores one of them only")
    assert read_file_text(env, nfd("éé.txt")) == "     1\tdecomposed"
    assert read_file_text(env, nfc("éé.txt")) == "     1\tcomposed"
    # written half one way, half the other: either could be meant, so neither is taken
    assert read_file_text(env, nfc("é") + nfd("é.txt")).startswith("File not found")


def test_glob_matches_under_normalization(env: ToolEnv, work: Path) -> None:
    (work / nfd("résumé.md")).write_text("x\n")
    (work / "plain.md").write_text("x\n")
    assert glob_impl(env, nfc("résumé.md")) == nfd("résumé.md")
    assert glob_impl(env, nfc("*é*")) == nfd("résumé.md")
    assert glob_impl(env, nfd("r?sum*")) == nfd("résumé.md")
    assert grep_impl(env, "x", glob=nfc("*é.md")) == nfd("résumé.md") + ":1:x"


@pytest.mark.parametrize(("stored", "given"), [(nfd, nfc), (nfc, nfd)])
def test_grep_finds_text_in_either_normalization(env: ToolEnv, work: Path, stored, given) -> None:  # type: ignore[no-untyped-def]
    (work / "menu.txt").write_text(stored("La Crème brûlée\nCreme\n"))
    assert grep_impl(env, given("Crème")) == "menu.txt:1:" + stored("La Crème brûlée")  # shown as the file has it
    assert grep_impl(env, nfc("[èé]")) == "menu.txt:1:" + stored("La Crème brûlée")  # a class of accented letters


@pytest.mark.parametrize(("stored", "given"), [(nfd, nfc), (nfc, nfd)])
def test_edit_finds_old_string_in_either_normalization(env: ToolEnv, work: Path, stored, given) -> None:  # type: ignore[no-untyped-def]
    (work / "menu.txt").write_text(stored("La Crème brûlée\n"))
    read_file_text(env, "menu.txt")
    result = edit_file_impl(env, "menu.txt", given("Crème brûlée"), given("Crème caramel à l'été"))
    form = "decomposed (NFD)" if stored is nfd else "composed (NFC)"
    assert f"old_string found in the file's {form} form and new_string written so" in result
    assert (work / "menu.txt").read_text() == stored("La Crème caramel à l'été\n")


def test_an_ascii_edit_is_exact(env: ToolEnv, work: Path) -> None:
    (work / "a.txt").write_text(nfd("e\u0301 e\n"))
    read_file_text(env, "a.txt")
    assert "old_string found" not in edit_file_impl(env, "a.txt", " e", " f")
    assert (work / "a.txt").read_text() == nfd("e\u0301 f\n")


def test_a_mention_in_either_normalization_is_attached_and_tab_writes_it_plain(tmp_path: Path) -> None:
    (tmp_path / nfd("résumé.md")).write_text("one\n")
    assert attached(nfc("read @résumé.md please"), tmp_path) == [nfc("attached résumé.md (1 line)")]
    comp = ReplCompleter([], tmp_path)
    assert tab(comp, nfc("see @rés")) == "see @" + nfd("résumé.md")  # no backslash before an accent
    assert tab(comp, nfc("see @umé")) == "see @" + nfd("résumé.md")  # a name held anywhere
    assert attached("see @" + nfd("résumé.md") + ".", tmp_path) == [nfd("attached résumé.md (1 line)")]


@pytest.mark.parametrize(("stored", "given"), [(nfd, nfc), (nfc, nfd)])
def test_a_deny_rule_covers_the_file_in_either_normalization(env: ToolEnv, work: Path, stored, given) -> None:  # type: ignore[no-untyped-def]
    env.permissions = Permissions(work, "yes", deny_paths=[given("secrét*")])
    (work / stored("secrét.txt")).write_text("key\n")
    for path in (stored("secrét.txt"), given("secrét.txt")):
        assert "deny" in read_file_text(env, path)
    assert glob_impl(env, "*") == "No files match '*' under .\n1 entry hidden by deny_paths"


FAMILY = "\U0001f468\u200d\U0001f469\u200d\U0001f467 family.txt"  # one picture: man, woman, girl joined


def test_an_emoji_sequence_is_named_as_it_prints_and_a_shell_command_finds_it(env: ToolEnv, work: Path) -> None:
    import asyncio

    from compact_agent.agent.tools.shell import bash_impl

    (work / FAMILY).write_text("zwj name\n")
    (shown,) = tool_text(glob_impl(env, "*family*")).splitlines()
    assert shown == FAMILY  # no `\\u200d` the shell would take as it is written
    assert tool_text(grep_impl(env, "zwj")) == f"{FAMILY}:1:zwj name"
    assert "zwj name" in asyncio.run(bash_impl(env, f"cat '{shown}'"))
    assert read_file_text(env, shown) == "     1\tzwj name"


def test_what_could_deceive_is_still_escaped_beside_an_emoji(env: ToolEnv, work: Path) -> None:
    (work / "\U0001f468\u202eexe.txt").write_text("x\n")  # a right-to-left override after an emoji
    (work / "\U0001f468\u200db.py").write_text("x\n")  # a joiner before a letter
    (work / "\u200d\U0001f468.md").write_text("x\n")  # and one leading the name
    assert sorted(tool_text(glob_impl(env, "*")).splitlines()) == sorted([
        "\U0001f468\\u200db.py", "\U0001f468\\u202eexe.txt", "\\u200d\U0001f468.md"])


@posix_bytes
def test_a_name_not_utf8_as_ls_showed_it_is_read(env: ToolEnv, work: Path) -> None:
    import asyncio

    from compact_agent.agent.tools.shell import bash_impl

    (work / os.fsdecode(b"latin_caf\xe9.txt")).write_text("latin1 name\n")
    listed = asyncio.run(bash_impl(env, "ls"))
    assert "latin_café.txt" in listed  # the byte read as its Windows-1252 character
    assert read_file_text(env, "latin_café.txt") == "     1\tlatin1 name"
    (work / nfd("latin_café.txt")).write_text("decomposed\n")  # a file spelled alike comes first
    assert read_file_text(env, "latin_café.txt") == "     1\tdecomposed"
