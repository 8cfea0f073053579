"""The user's newest message, carried by the last resort after the first message when the round that
held it leaves the request's view (`decisions/fit.py`, step 2), keeps at least its first words.

The words carried are held to half the room the rounds left out freed, so as never to take it back.
A short ask typed after the model's short answer freed little: half of that was less than the ask, which
was cut to its two ends in that room, none of it, and the model read "- …[the middle of this message is
cut here…]…" where the user's request was. Seen with a project whose instruction file nearly fills a
server's window: the run's second request lost the user's question it was answering."""

from __future__ import annotations

from pydantic_ai.messages import (
    ModelRequest,
    ModelResponse,
    TextPart,
    ToolCallPart,
    ToolReturnPart,
    UserPromptPart,
)

from compact_agent.context import ContextManager
from compact_agent.context.compaction import summary
from compact_agent.context.decisions.fit import CARRIED, shrink_to_fit

ASK = "ASK-1: read them both again and say whether anything changed."


def test_a_short_ask_in_a_small_round_left_out_is_carried_whole() -> None:
    cm = ContextManager(window=8_000)
    view = [ModelRequest(parts=[UserPromptPart("ASK-0: read src/mod.py and say what you found.")]),
            ModelResponse(parts=[TextPart("FOUND: it is read.")]),
            ModelRequest(parts=[UserPromptPart(ASK)]),
            ModelResponse(parts=[TextPart("Reading."), ToolCallPart("read_file", {"path": "src/mod.py"}, tool_call_id="c1")]),
            ModelRequest(parts=[ToolReturnPart("read_file", "x" * 400, tool_call_id="c1")])]
    cm.overhead = 7_700  # room for the opening request and the newest round, not the round before
    shrunk, after = shrink_to_fit(cm, list(view), cm.measure(view))
    assert after <= 8_000 - 160
    assert ASK not in [str(p.content) for m in shrunk[1:] for p in m.parts]  # its round left the view
    carried = [str(p.content) for p in shrunk[0].parts if isinstance(p, UserPromptPart)
               and str(p.content).startswith(CARRIED)]
    assert carried and ASK in carried[0], carried
    assert summary.MIDDLE_MARK not in carried[0]
