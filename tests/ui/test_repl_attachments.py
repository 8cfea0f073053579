"""`@path` in the REPL says what the model got of the file: all its lines, or which of how many
when read_file's line or character cap stops short (the same numbers as read_file's own notice),
lines cut at 2,000 characters, and an encoding that is not UTF-8."""

from __future__ import annotations

import codecs
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
