"""read_file's offset counts lines from the start: a negative one (a model asking for the end, as
`tail` would) was read as 1 and gave the file's first lines as if they were its last. It is
refused in one line that gives the file's line count and the offset of the lines asked for; a
negative limit (read as the default 2,000 lines) is refused too. The description says so."""

from __future__ import annotations

from pathlib import Path

from pydantic_ai.messages import ToolReturnPart

from compact_agent.agent.tools.base import is_failure
from compact_agent.agent.tools.toolset import build_toolset

from .test_tools import call, make_env


async def _refused(env, **args) -> str:  # type: ignore[no-untyped-def]
    out = await build_toolset(env).tools["read_file"].function(**args)
    assert is_failure(ToolReturnPart("read_file", "", metadata=out.metadata)), out
    text = str(out.return_value)
    assert "\n" not in text
    return text


async def test_a_negative_offset_is_refused_with_the_offset_of_the_last_lines(work: Path) -> None:
    (work / "n.txt").write_text("".join(f"line{i}\n" for i in range(1, 11)))
    env = make_env(work)
    assert await _refused(env, path="n.txt", offset=-5) == (
        "offset -5: lines count from 1, not from the end; n.txt has 10 lines, so the last 5 lines start at offset=6.")
    assert (await _refused(env, path="n.txt", offset=-50)).endswith("so the last 10 lines start at offset=1.")
    assert env.read_state.get(work / "n.txt") is None  # nothing was read
    out = await call(env, "read_file", path="n.txt", offset=6)  # as told: the last five
    assert out.splitlines()[1:] == [f"{n:>6}\tline{n}" for n in range(6, 11)]
    assert (await call(env, "read_file", path="n.txt", offset=0)).startswith("     1\tline1")  # 0: the start, as before
    big = make_env(work, read_max_bytes=20)  # a file over the read limit is read as a stream: the same
    assert (await _refused(big, path="n.txt", offset=-1)).endswith("so the last 1 line starts at offset=10.")


async def test_a_negative_limit_is_refused(work: Path) -> None:
    (work / "n.txt").write_text("a\nb\n")
    env = make_env(work)
    assert await _refused(env, path="n.txt", limit=-3) == "limit -3: it is how many lines to read from offset, not below 0."
    assert await call(env, "read_file", path="n.txt", limit=0) == "     1\ta\n     2\tb"  # 0: the default, as before


def test_the_description_says_offsets_count_from_the_start(work: Path) -> None:
    schema = build_toolset(make_env(work)).tools["read_file"].function_schema.json_schema
    assert "never negative" in schema["properties"]["offset"]["description"]
