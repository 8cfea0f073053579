"""`@path` in the REPL says what the model got of the file: all its lines, or which of how many
when read_file's line or character cap stops short (the same numbers as read_file's own notice),
lines cut at 2,000 characters, and an encoding that is not UTF-8."""

from __future__ import annotations

import codecs
import json
import re

from tests.fakes.openai_server import Reply

from .repl_driver import drive


async def test_an_attached_file_is_said_with_the_lines_the_model_got(tmp_path):
    cwd = tmp_path / "project"
    cwd.mkdir()
    (cwd / "big.txt").write_text("".join(f"entry {i}\n" for i in range(1, 5302)))  # 5,301 lines
    (cwd / "wide.txt").write_text(("w" * 1_000 + "\n") * 100)  # 100 lines, over the 50,000-character cap
    (cwd / "long.txt").write_text("short\n" + "x" * 3_000 + "\nend\n")
    (cwd / "u16.txt").write_bytes(codecs.BOM_UTF16_LE + "grüße\r\nzwei\r\n".encode("utf-16-le"))
    run = await drive(tmp_path, lambda req: Reply.text("ok"), ["see @big.txt @wide.txt @long.txt @u16.txt\r"],
                      context_window=400_000)  # room for all of them: no preview in place of one
    sent = str(run.server.requests[-1].messages)

    assert "⎿ attached big.txt (lines 1–2,000 of 5,301)" in run.out
    assert "[big.txt: lines 1-2000 of 5301; read more with offset=2001]" in sent
    assert "entry 2000" in sent and "entry 2001" not in sent

    said = re.search(r"⎿ attached wide\.txt \(lines 1–(\d+) of 100\)", run.out)
    assert said is not None, run.out
    end = int(said.group(1))
    assert end < 100 and f"[wide.txt: lines 1-{end} of 100; read more with offset={end + 1}]" in sent
    assert sent.count("w" * 1_000) == end

    assert "⎿ attached long.txt (3 lines, 1 cut at 2,000 characters)" in run.out
    assert "⎿ attached u16.txt (2 lines, UTF-16 LE with a byte-order mark)" in run.out
    assert "grüße" in sent and "zwei" in sent


def _sent_files(request) -> dict[str, str]:
    """What the model got for each attached file in `request`: {path: the tool message's text}."""
    paths = {c["id"]: json.loads(c["function"]["arguments"])["path"]
             for m in request.messages if m.get("role") == "assistant" for c in m.get("tool_calls") or []}
    return {paths[m["tool_call_id"]]: m["content"] for m in request.messages if m.get("role") == "tool"}


async def test_a_file_a_small_window_sends_as_a_preview_is_said_to_be_one(tmp_path):
    """In a 16K window the tool-result budget sends a large attachment as its head and tail: the
    line says so, with the lines the model got whole, on the first turn (the fixed part of a
    request not measured yet) and on a later one; a file that fits is said whole."""
    cwd = tmp_path / "project"
    cwd.mkdir()
    (cwd / "mid.txt").write_text("".join(f"entry number {i} of the file\n" for i in range(1, 801)))
    (cwd / "small.txt").write_text("one\ntwo\nthree\n")
    (cwd / "other.txt").write_text("".join(f"row {i}\n" for i in range(1, 3001)))
    run = await drive(tmp_path, lambda req: Reply.text("ok"), ["see @mid.txt @small.txt\r", "and @other.txt\r"],
                      context_window=16_000)
    first = _sent_files(run.server.requests[0])
    second = _sent_files(run.server.requests[-1])

    said = re.search(r"⎿ attached mid\.txt \(a preview, the window is small: lines 1–(\d+) and (\d+)–800 of 800\)",
                     run.out)
    assert said is not None, run.out
    head_end, tail_start = int(said.group(1)), int(said.group(2))
    got = first["mid.txt"]
    assert "too large for the context" in got
    assert f"{head_end:>6}\tentry number {head_end} of the file\n" in got
    assert f"{head_end + 1:>6}\tentry number {head_end + 1} of the file\n" not in got
    assert f"\n{tail_start:>6}\tentry number {tail_start} of the file\n" in got
    assert f"\n{tail_start - 1:>6}\tentry number {tail_start - 1} of the file\n" not in got

    assert "⎿ attached small.txt (3 lines)" in run.out and "three" in first["small.txt"]

    assert re.search(r"⎿ attached other\.txt \(a preview, the window is small: lines 1–\d+ and [\d,]+–2,000 "
                     r"of 3,000\)", run.out), run.out
    assert "too large for the context" in second["other.txt"]


async def test_files_that_fit_one_by_one_but_not_together_are_said_as_the_request_sends_them(tmp_path):
    """One request's fresh results together have a limit too: of three files that each fit a 16K
    window's share, the largest goes as a preview, and only its line says so."""
    cwd = tmp_path / "project"
    cwd.mkdir()
    for name, n in (("a.txt", 200), ("b.txt", 185), ("c.txt", 170)):
        (cwd / name).write_text("".join(f"{name} {'x' * 30}\n" for _ in range(n)))
    run = await drive(tmp_path, lambda req: Reply.text("ok"), ["see @a.txt @b.txt @c.txt\r"], context_window=16_000)
    got = _sent_files(run.server.requests[-1])

    assert "too large for the context" in got["a.txt"]
    assert re.search(r"⎿ attached a\.txt \(a preview, the window is small: lines 1–\d+ and \d+–200 of 200\)", run.out)
    assert "too large" not in got["b.txt"] + got["c.txt"]
    assert "⎿ attached b.txt (185 lines)" in run.out and "⎿ attached c.txt (170 lines)" in run.out
