"""The library's summary request is worded for any agent: it named the terminal agent's tools
(read_file, bash, grep...), asked for a "Files and Code Sections" section, said a plan from todo_write
is restored after it, and its separate request called the conversation one with "a coding assistant",
to every library user, whose agent has none of those. The terminal agent gives its own words
(agent/run/summary_wording.py), and its requests read as they did."""

from __future__ import annotations

from pydantic import BaseModel

from .pages_agent import eager, is_summary_request, output_call, reading, run_pages

CODING_WORDS = ("read_file", "bash", "grep", "todo_write", "Files and Code", "file names and code", "coding assistant")


class Pages(BaseModel):
    read: int


async def test_a_library_agents_summary_requests_name_no_coding_tool() -> None:
    # the shared summary request, answered with a call of the output tool, then the separate one
    run = await run_pages(reading(eager("<summary>Pages read so far.</summary>"), final=output_call),
                          output_type=Pages)

    summaries = [str(r.messages[-1].get("content")) for r in run.server.requests if is_summary_request(r)]
    assert any("<transcript>" in s for s in summaries) and any("<transcript>" not in s for s in summaries)
    for asked in summaries:
        assert not [w for w in CODING_WORDS if w in asked], asked
        assert "do not call any tool" in asked.lower()
    assert "between a user and an assistant" in next(s for s in summaries if "<transcript>" in s)


def test_the_terminal_agents_summary_request_keeps_its_coding_words() -> None:
    from compact_agent.agent.run.summary_wording import CODING
    from compact_agent.context.compaction.summary_prompt import compact_prompt

    coding, neutral = compact_prompt(wording=CODING), compact_prompt()
    assert all(w in coding for w in ("read_file, write_file, edit_file, bash, grep, glob",
                                     "3. Files and Code Sections", "from todo_write) is restored separately",
                                     "with file names and code."))
    assert "todo" not in neutral and "restored" not in neutral
    assert coding.count("\n\n") == neutral.count("\n\n") + 1  # the plan's line alone, set apart
