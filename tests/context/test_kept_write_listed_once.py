"""A write a compaction kept with its result is listed in the ledger once, where it happened.

A compaction keeps the results the model is still using after its summary, each with its call
(marked `kept`); its message carries the ledger of every file changed, that write included. The
next compaction counted the kept call again, after what the carried ledger said came later: a file
written, then edited, was listed as "written, edited, written".
"""

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

KEPT = {"compact_agent": {"synthetic": "kept"}}


def _history() -> list[ModelMessage]:
    carried = {"compact_agent": {"files_changed": {"a.py": ["written", "edited"]}}}
    return [ModelRequest(parts=[UserPromptPart("[summary]")], metadata=carried),
            ModelResponse(parts=[ToolCallPart("write_file", {"path": "a.py"}, tool_call_id="call_1")], metadata=KEPT),
            ModelRequest(parts=[ToolReturnPart("write_file", "Wrote a.py", tool_call_id="call_1")], metadata=KEPT),
            ModelResponse(parts=[ToolCallPart("edit_file", {"path": "b.py"}, tool_call_id="call_2")]),
            ModelRequest(parts=[ToolReturnPart("edit_file", "ok", tool_call_id="call_2")])]


def test_the_ledger_lists_a_kept_write_as_the_carried_ledger_does() -> None:
    assert ledger.changed_files(_history()) == {"a.py": ["written", "edited"], "b.py": ["edited"]}
    assert ledger.render(ledger.changed_files(_history(), attempts=True)) == ["- a.py (written, edited)",
                                                                              "- b.py (edited)"]


def test_without_the_carried_ledger_a_kept_write_still_counts() -> None:
    """The model is still using what the write returned: the restorer brings that file back (keep.py)."""
    assert ledger.changed_files(_history(), carried=False) == {"a.py": ["written"], "b.py": ["edited"]}
