"""docs/library.md's complete example, switched to `agent.run_stream`, as the page says to.

Its model is pydantic-ai's `FunctionModel(fake_llm)`: a reader who tried the example with
`agent.run_stream(...)` got pydantic-ai's "FunctionModel must receive a `stream_function` to support
streamed requests", and the page said nothing of it. It says now, beside the example, to give a
`stream_function=` too (text, or `DeltaToolCall`s for a tool call) and that the library's own requests
still go to `fake_llm`. Here the example so changed runs and reads the whole log, and without the
`stream_function` fails with the very words the page quotes.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

DOC = Path(__file__).resolve().parents[1] / "docs" / "library.md"

STREAM = '''
async def fake_stream(messages: list[ModelMessage], info: AgentInfo) -> AsyncIterator[str | DeltaToolCalls]:
    """The same answers, streamed: text as it is, a tool call as one delta."""
    for part in fake_llm(messages, info).parts:
        if isinstance(part, TextPart):
            yield part.content
        elif isinstance(part, ToolCallPart):
            yield {0: DeltaToolCall(name=part.tool_name, json_args=part.args_as_json_str(),
                                    tool_call_id=part.tool_call_id)}


async def main() -> None:'''


def example() -> str:
    (program,) = re.findall(r"^```python\n(.*?)^```$", DOC.read_text(encoding="utf-8"), re.S | re.M)
    return str(program)


def streamed(program: str, *, stream_function: bool) -> str:
    """The example with `agent.run_stream`, and with the page's `stream_function=` if asked."""
    edits = [
        ("from pydantic_ai.models.function import AgentInfo, FunctionModel",
         "from collections.abc import AsyncIterator\n"
         "from pydantic_ai.models.function import AgentInfo, DeltaToolCall, DeltaToolCalls, FunctionModel"),
        ('    result = await agent.run("Read the whole log.", usage_limits=UsageLimits(request_limit=100))\n'
         "    print(result.output)\n",
         '    async with agent.run_stream("Read the whole log.", usage_limits=UsageLimits(request_limit=100)) as run:\n'
         "        print(await run.get_output())\n"
         "    result = run\n"),
    ]
    if stream_function:
        edits += [("\nasync def main() -> None:", STREAM),
                  ("FunctionModel(fake_llm)", "FunctionModel(fake_llm, stream_function=fake_stream)")]
    for old, new in edits:
        assert program.count(old) == 1, old
        program = program.replace(old, new)
    return program


def run(program: str, tmp_path: Path) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("COMPACT_AGENT_")}
    env["HOME"] = str(tmp_path)
    return subprocess.run([sys.executable, "-c", program], cwd=tmp_path, env=env, capture_output=True, text=True,
                          timeout=300)


def test_the_page_says_beside_its_example_what_streaming_needs() -> None:
    text = DOC.read_text(encoding="utf-8")
    beside = text[text.index("## A complete example, offline"):text.index("## Install")]
    prose = " ".join(re.sub(r"^```.*?^```$", "", beside, flags=re.S | re.M).split())
    assert "`agent.run_stream(...)`, give the model a `stream_function=` too" in prose
    assert ('"FunctionModel must receive a `stream_function` to support streamed requests"' in prose)
    assert "The library's own requests are not streamed and still go to `fake_llm`." in prose


def test_the_example_streamed_with_a_stream_function_reads_the_whole_log(tmp_path: Path) -> None:
    proc = run(streamed(example(), stream_function=True), tmp_path)
    assert proc.returncode == 0, proc.stderr
    lines = proc.stdout.splitlines()
    assert lines[0] == "All 30 pages read: no errors."
    assert sum(line.startswith("compaction (record): ") for line in lines) >= 5


def test_without_one_pydantic_ai_fails_with_the_words_the_page_quotes(tmp_path: Path) -> None:
    proc = run(streamed(example(), stream_function=False), tmp_path)
    assert proc.returncode != 0
    assert "FunctionModel must receive a `stream_function` to support streamed requests" in proc.stderr
