"""The session notes of an agent with a structured output type (pydantic-ai's output tool).

The notes request shares the conversation's prefix, tools and all, as the summary request does, and
for such an agent the output tool is offered on it (`unable_to_act`: "none" would have pydantic-ai
force the call). A model eager to give its structured answer calls that tool: the call was refused and
the notes asked for again with the tool offered again, the model called it again, and the update
failed ('the notes request kept calling tools'), two requests each time, the notes never written.
Now the call sends at once the notes request with no tools, the conversation since the notes as text
(as a notes model of its own gets it), to the run's model: two requests an update, the notes written.
"""

from __future__ import annotations

from pydantic import BaseModel

from compact_agent.context import CompactionSettings, NotesEvent

from .pages_agent import eager, is_notes_request, noting, output_call, page_text, reading, run_pages

SETTINGS = CompactionSettings(memory_enabled=True, memory_update_tokens=1, memory_update_tool_calls=3,
                              memory_start_fraction=0.0, compaction_records=False)
NOTES = ("<notes># Task and intent\nRead the pages.\n# Decisions\nOne page a call.\n# Current state\nReading.\n"
         "# Next steps\nRead on.</notes>")


class Pages(BaseModel):
    read: int


async def test_a_notes_reply_calling_the_output_tool_goes_to_the_request_without_tools_at_once() -> None:
    # eager to give its structured answer: the output tool called on a notes request that offers it
    answer = noting(eager(NOTES, is_notes_request), "<summary>Pages read so far.</summary>")
    run = await run_pages(reading(answer, final=output_call, last=12), settings=SETTINGS,
                          text=lambda n: page_text(n, 120, "w"), request_limit=80, output_type=Pages)
    result, cm, server, events = run.result, run.cm, run.server, run.events
    notes_asked = [r for r in server.requests if is_notes_request(r)]

    assert result.output == Pages(read=12)
    notes = [e for e in events if isinstance(e, NotesEvent) and e.action in ("update", "failed")]
    assert len(notes) >= 2 and [e.action for e in notes] == ["update"] * len(notes), [e.detail for e in notes]
    assert all(e.detail["usage"]["requests"] == 2 and e.detail["path"] == "separate" for e in notes)
    assert len(notes_asked) == 2 * len(notes)
    assert [bool(r.tools) for r in notes_asked] == [True, False] * len(notes)  # shared, then without tools
    for shared, alone in zip(notes_asked[::2], notes_asked[1::2], strict=True):
        assert shared.tool_choice == "auto" and alone.tool_choice is None
        assert "<transcript>" in alone.last_user_text() and "TOOL RESULT (read): " in alone.all_text()  # as data
    assert "Read the pages." in str(cm.memory.notes if cm.memory else "")
    assert server.rejected == []
