"""`/history` names a failed call's tool once: its error text often begins with the name already (a
call's argument problems, "read_file: `path` is missing"; a grep in a folder gone, "grep: …"), and
the row said `read_file: error: read_file: …`. A failure is said as the tool line says it, `error:`
and its words (a failed grep was `grep: 1 match`); a text that does not begin with `TOOL: ` keeps
every word."""

from __future__ import annotations

import warnings

from pydantic_ai.messages import ModelRequest, RetryPromptPart, ToolReturnPart

from compact_agent.agent.tools.arg_errors import NOT_RUN
from compact_agent.ui.history_view import message_rows

FAILED = {"compact_agent": {"tool": {"error": True}}}  # how the toolset marks a failed call's result


def results(*parts: ToolReturnPart | RetryPromptPart) -> list[str]:
    [(who, what)] = message_rows(ModelRequest(parts=list(parts)))
    assert who in ("tool result", "tool results")
    return what.split("; ")


def test_a_calls_argument_problems_name_the_tool_once():
    retried = ToolReturnPart("read_file", "read_file: `path` is missing\nread_file: no argument `bogus` (it "
                             f"takes path, offset, limit)\n{NOT_RUN} Call read_file again with its arguments fixed.",
                             tool_call_id="c1", outcome="retried")
    assert results(retried) == ["read_file: error: `path` is missing", "no argument `bogus` (it takes path, offset, limit)"]


def test_a_failure_of_any_tool_that_begins_with_its_name_says_it_once():
    gone = ToolReturnPart("grep", "grep: No such file or directory", tool_call_id="c2", metadata=FAILED)
    mcp = ToolReturnPart("search_docs", "search_docs: the index is not built\nbuild it first", tool_call_id="c3",
                         metadata=FAILED)
    assert results(gone, mcp) == ["grep: error: No such file or directory",
                                  "search_docs: error: the index is not built build it first"]


def test_a_failure_that_does_not_begin_with_the_name_keeps_every_word():
    missing = ToolReturnPart("read_file", "File not found: x.py", tool_call_id="c4", metadata=FAILED)
    other = ToolReturnPart("read", "read_file: is another tool's name", tool_call_id="c5", metadata=FAILED)
    inside = ToolReturnPart("edit_file", "old_string not found (edit_file: reads it first)", tool_call_id="c6",
                            metadata=FAILED)
    assert results(missing, other, inside) == ["read_file: error: File not found: x.py",
                                               "read: error: read_file: is another tool's name",
                                               "edit_file: error: old_string not found (edit_file: reads it first)"]


def test_an_older_sessions_retry_part_names_the_tool_once():
    with warnings.catch_warnings():  # the part an earlier pydantic-ai wrote: sessions saved then still load
        warnings.simplefilter("ignore")
        old = RetryPromptPart("read_file: `path` is missing", tool_name="read_file", tool_call_id="c7")
    assert results(old) == ["read_file: error: `path` is missing Fix the errors and try again."]
