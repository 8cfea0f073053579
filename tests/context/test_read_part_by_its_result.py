"""The compaction message's "Files read recently" leaves out a file the kept tail reads again whole,
and a read is whole by what its result holds, not by its arguments: read_file with no offset reads
the first 2,000 lines only, so a tail read of a 5,000-line file after a summarised read of lines
3000-3099 left those lines listed nowhere; and a tail read `offset=1` of a short file, the whole
of it, kept the file listed as one to read again."""

from __future__ import annotations

from pydantic_ai.messages import (
    ModelMessage,
    ModelRequest,
    ModelResponse,
    ToolCallPart,
    ToolReturnPart,
    UserPromptPart,
)

from compact_agent.context.compaction import ledger

SHORT = "".join(f"{k:>6}\tx = {k}\n" for k in range(1, 41))  # a whole file: no line of its own


def _read(path: str, call_id: str, result: str, **window: int) -> list[ModelMessage]:
    return [ModelResponse(parts=[ToolCallPart("read_file", {"path": path, **window}, tool_call_id=call_id)]),
            ModelRequest(parts=[ToolReturnPart("read_file", result, tool_call_id=call_id)])]


def _lines(path: str, start: int, end: int, total: int = 5000) -> str:
    """read_file's result holding lines start-end of a file (agent/tools/files.py's first line)."""
    more = f"; read more with offset={end + 1}" if end < total else ""
    return f"[{path}: lines {start}-{end} of {total}{more}]\n" + "".join(f"{k:>6}\tx\n" for k in range(start, end + 1))


def test_a_read_with_no_offset_of_a_long_file_is_its_first_lines_only() -> None:
    look = ModelRequest(parts=[UserPromptPart("look")])
    summarized = [look, *_read("big.py", "g1", _lines("big.py", 3000, 3099), offset=3000, limit=100)]
    tail = _read("big.py", "g2", _lines("big.py", 1, 2000))
    assert ledger.read_files(summarized, after=tail) == ["big.py"]  # lines 3000-3099 are read again
    head = [look, *_read("big.py", "g0", _lines("big.py", 1, 2000))]  # the same lines: the tail has them
    assert ledger.read_files(head, after=tail) == []
    same = _read("big.py", "g3", _lines("big.py", 3000, 3099), offset=3000, limit=100)
    assert ledger.read_files(summarized, after=same) == []


def test_a_read_from_line_1_of_a_short_file_is_the_whole_file() -> None:
    summarized = [ModelRequest(parts=[UserPromptPart("look")]), *_read("a.py", "a1", SHORT)]
    assert ledger.read_files(summarized, after=_read("a.py", "a2", SHORT, offset=1)) == []
    assert ledger.read_files(summarized, after=_read("a.py", "a3", SHORT, limit=2000)) == []
    assert ledger.read_files(summarized, after=_read("a.py", "a4", _lines("a.py", 10, 40, 40), offset=10)) == ["a.py"]
