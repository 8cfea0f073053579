"""Files read again in a turn, one request at a time, are said in one line: each earlier read left
out was a line of its own (`context: old rounds snipped (1 result), freed 2,781 tokens`, four times
in a turn that read four files again)."""

from __future__ import annotations

from typing import Any

from tests.e2e.scripted import is_notes_request, is_summary_request
from tests.fakes.openai_server import Reply

from .repl_driver import drive

FILES = 4


def reader(req: Any) -> Reply:
    """Reads f0.py … f3.py one request at a time, then answers."""
    if is_summary_request(req):
        return Reply.text("<summary>We read the files.</summary>")
    if is_notes_request(req):
        return Reply.text("")
    done = 0
    for m in reversed(req.messages):
        if m.get("role") == "user":
            break
        done += m.get("role") == "tool"
    if done < FILES:
        return Reply.tools([("read_file", {"path": f"f{done}.py"})])
    return Reply.text("ANSWER read them all")


async def test_files_read_again_in_a_turn_are_said_in_one_line(tmp_path, monkeypatch) -> None:
    monkeypatch.setenv("COMPACT_AGENT_CONFIG", str(tmp_path / "none.toml"))
    (tmp_path / "project").mkdir()
    for i in range(FILES):
        (tmp_path / "project" / f"f{i}.py").write_text("\n".join(f"v{i}_{k} = {k}  # a line of code" for k in range(300)))
    run = await drive(tmp_path, reader, ["read the files\r", "read them again\r"], context_window=32_000)
    out = run.out
    assert "earlier identical reads dropped" not in out, out  # the kind is said once, as re-reads
    lines = [line.strip() for line in out.splitlines() if line.startswith("context:")]
    assert len(lines) == 1, out
    assert lines[0].startswith("context: re-read 4 files (f0.py, f1.py, f2.py, f3.py), their earlier reads left out, "
                               "freed "), out
    freed = int(lines[0].rsplit("freed ", 1)[1].split()[0].replace(",", ""))
    assert freed > 4 * 2_000, out  # the four earlier reads, added up
    second = out.index("read_file(f0.py)", out.index("ANSWER"))
    assert second < out.index(lines[0]), out  # in the turn that read them again


def test_one_file_read_again_is_said_in_the_singular() -> None:
    """`re-read 1 file (f4.py), their earlier reads left out` for one earlier read of one file."""
    from compact_agent.ui.layer_tally import REREAD, Tally, said

    once = Tally("snip", ids=["c1"], freed=794, files=["f4.py"])
    assert said(once, REREAD, 8_000) == "context: re-read 1 file (f4.py), its earlier read left out, freed 794 tokens"
    twice = Tally("snip", ids=["c1", "c2"], freed=1_588, files=["f4.py"])
    assert said(twice, REREAD, 8_000) == "context: re-read 1 file (f4.py), its earlier reads left out, freed 1,588 tokens"
    two = Tally("snip", ids=["c1", "c2"], freed=1_588, files=["f4.py", "f5.py"])
    assert said(two, REREAD, 8_000) == ("context: re-read 2 files (f4.py, f5.py), their earlier reads left out, "
                                        "freed 1,588 tokens")
