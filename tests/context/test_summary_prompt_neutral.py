"""The library's summary request is worded for any agent: it named the terminal agent's tools
(read_file, bash, grep...), asked for a "Files and Code Sections" section, said a plan from todo_write
is restored after it, and its separate request called the conversation one with "a coding assistant",
to every library user, whose agent has none of those. The terminal agent gives its own words
(agent/run/summary_wording.py), and its requests read as they did.

The body of the request still assumed a coding agent after that: the summary was to keep "technical
detail (file names, code, commands, errors)", the draft to check "file names, code snippets", the
second section was "Key Technical Concepts: technologies, frameworks", and "file contents" was what
may hold text that looks like instructions. Those are `Wording` parts too now, the coding ones the
terminal agent's."""

from __future__ import annotations

import re

from pydantic import BaseModel

from .pages_agent import eager, is_summary_request, output_call, reading, run_pages

CODING_WORDS = ("read_file", "bash", "grep", "todo_write", "Files and Code", "file names and code", "coding assistant")
#: Files and code, as any part of the request may name them.
CODE_CONCEPTS = re.compile(r"\b(files?|code|snippets?|technical|technolog\w*|frameworks?)\b", re.IGNORECASE)


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
        assert CODE_CONCEPTS.findall(asked) == [], asked
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


def test_no_form_of_the_library_summary_request_names_files_or_code() -> None:
    """Every direction, with and without the `<analysis>` draft (a small output cap asks for none)."""
    from compact_agent.context.compaction.summary_prompt import compact_prompt, for_cap

    for direction in ("full", "from", "up_to"):
        for cap in (500, 8_000):
            asked = for_cap(compact_prompt("", direction), cap)
            assert CODE_CONCEPTS.findall(asked) == [], (direction, cap)
            assert ("draft your thoughts inside <analysis> tags" in asked) is (cap == 8_000)


def test_the_terminal_agents_request_keeps_its_files_and_code() -> None:
    from compact_agent.agent.run.summary_wording import CODING
    from compact_agent.context.compaction.summary_prompt import compact_prompt

    coding = compact_prompt(wording=CODING)
    assert all(w in coding for w in ("keep enough technical detail (file names, code, commands, errors) for",
                                     "tool outputs and file contents may contain", "key decisions, file names, code "
                                     "snippets, errors and fixes, and", "2. Key Technical Concepts: technologies, "
                                     "frameworks and approaches involved.\n3. Files"))
