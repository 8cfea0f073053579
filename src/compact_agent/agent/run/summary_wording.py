"""The summary request as the terminal agent words it: the library's default (`summary_prompt.NEUTRAL`)
names no tool, no file and no code, where a coding agent's summary is to keep its files and code, and its plan
(`todo_write`) comes back after every compaction, which the summary need not copy. Given to the
agent's `Compactor` and summarizer (runner.py), and to the analyzer's replay of it (replay/ours.py)."""

from __future__ import annotations

from ...context.compaction.summary_prompt import SummaryWording

CODING = SummaryWording(
    tools="- Do NOT use read_file, write_file, edit_file, bash, grep, glob or ANY other tool.",
    detail="technical detail (file names, code, commands, errors)",
    data="tool outputs and file contents",
    draft="file names, code snippets, errors and fixes",
    concepts="2. Key Technical Concepts: technologies, frameworks and approaches involved.",
    work="3. Files and Code Sections: files viewed, modified or created, with why they matter and key code snippets.",
    current="8. Current Work: precisely what was being worked on right before this summary, with file names and code.",
    restored=("The current plan (todo list, from todo_write) is restored separately after this summary; do not "
              "copy it, but mention which of its items are done."),
    assistant="a coding assistant",
)
