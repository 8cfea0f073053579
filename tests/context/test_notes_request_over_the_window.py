"""A session-notes request that cannot fit the window is not sent.

The notes request repeats the request just sent (instructions, tools, the view) and appends its
own instruction, the previous notes included. In a small window with long instructions that can
leave no room at all, and it was sent anyway asking for one token, refused by the provider as too
long. It is now checked before sending, as a summary request is (882f251): not sent, reported as a
failed extraction is (a `memory` / `failed` event whose error ends "not sent"), and the run goes on.
"""

from __future__ import annotations

from compact_agent.context import CompactionSettings, NotesEvent

from .pages_agent import is_notes_request, noting, page_text, reading, run_pages

WINDOW = 1_200
RULES = "Rules: " + "be careful. " * 200  # about 600 tokens, sent with every request
SETTINGS = CompactionSettings(memory_enabled=True, memory_update_tokens=1, memory_update_tool_calls=1,
                              memory_start_fraction=0.0, collapse_enabled=False, priced_compaction=False)


async def test_a_notes_request_over_the_window_is_not_sent_and_the_run_goes_on() -> None:
    answer = noting("<notes># Task\nread pages</notes>", "<summary>Pages read so far.</summary>")
    run = await run_pages(reading(answer, last=4), settings=SETTINGS, window=WINDOW,
                          text=lambda n: page_text(n, 60, "w"), request_limit=40, instructions=RULES)
    assert run.result.output == "done"
    notes_asked = [r for r in run.server.requests if is_notes_request(r)]
    assert run.server.rejected == [] and notes_asked == []  # each was a notes request, over the window
    failed = [e for e in run.events if isinstance(e, NotesEvent) and e.action == "failed"]
    assert failed and all(str(e.detail.get("error")).startswith("the notes request would take ") for e in failed)
    assert all(str(e.detail.get("error")).endswith(": not sent") for e in failed)
