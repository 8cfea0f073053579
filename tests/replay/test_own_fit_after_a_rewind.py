"""The fit of our own session's sizes takes off what its layers kept out of each request (its event
log), and a `/rewind` undoes part of that: the turn it went back over is gone from the conversation
the replay holds, and with it what the layers decided for its results. Those decisions were counted
as if they stood: a result moved to a file in the undone turn had its preview's saving taken off
every request after the rewind, which never held that result, and a view fitted to the window for
the undone turn's request left the first request after the rewind unfitted. Hand-built: the session
file, its archive and the event log its side folder holds, as the agent writes them."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from pydantic_ai.messages import (
    ModelMessage,
    ModelRequest,
    ModelResponse,
    TextPart,
    ToolCallPart,
    ToolReturnPart,
    UserPromptPart,
)
from pydantic_ai.usage import RequestUsage

from compact_agent.replay.importers import load_transcript
from compact_agent.replay.sizing import kept_out, recorded_points
from compact_agent.session.event_log import EventLog
from compact_agent.session.store import SessionStore

T0 = datetime(2026, 12, 7, 10, tzinfo=UTC)


def _at(minute: float) -> datetime:
    return T0 + timedelta(minutes=minute)


def _turn(n: int, minute: float) -> list[ModelMessage]:
    """Turn `n`: a prompt, a read of `f{n}.py` (call id `c{n}`), its result, an answer."""
    return [ModelRequest(parts=[UserPromptPart(f"turn {n} " + "words " * 200)], timestamp=_at(minute)),
            ModelResponse(parts=[ToolCallPart("read_file", {"path": f"f{n}.py"}, tool_call_id=f"c{n}")],
                          usage=RequestUsage(input_tokens=1_000 * n), timestamp=_at(minute + 0.1), conversation_id="s1"),
            ModelRequest(parts=[ToolReturnPart("read_file", "line of code\n" * 300, tool_call_id=f"c{n}")],
                         timestamp=_at(minute + 0.15)),
            ModelResponse(parts=[TextPart(f"read f{n}.py")], usage=RequestUsage(input_tokens=1_000 * n + 500),
                          timestamp=_at(minute + 0.2), conversation_id="s1")]


def _event(minute: float, layer: str, action: str, freed: int, ids: list[str], **more: Any) -> dict[str, Any]:
    return {"time": _at(minute).isoformat(), "layer": layer, "action": action, "freed": freed, "ids": ids,
            "conversation_id": "s1", **more}


def _rewound_session(tmp_path: Path) -> tuple[SessionStore, EventLog]:
    """Turns 1 and 2, then `/rewind 2` (back to before turn 2) at 1.5 minutes, then turn 3; in turn 2
    the layers moved its read to a file, fitted its request to the window, snipped, and cleared
    results of both turns."""
    store = SessionStore(tmp_path, "s1")
    store.append(_turn(1, 0) + _turn(2, 1))
    log = EventLog(tmp_path / "s1", str)
    for e in (_event(0.18, "budget", "spill", 300, ["c1"]),  # turn 1's own read, kept: stands throughout
              _event(1.15, "budget", "spill", 500, ["c2"]),  # the undone turn's read
              _event(1.16, "budget", "shrink", 900, ["c2"]),  # the undone turn's request, fitted alone
              _event(1.17, "snip", "snip", 50, ["c1"]),  # a mark on turn 1's read by turn 2's copy: lapses
              _event(1.18, "microcompact", "clear", 400, ["c1", "c2"])):  # half of it on what the rewind kept
        log.append(e)
    archived = store.archive(_at(1.5))
    store.rewrite({"trigger": "rewind", "strategy": "rewind", "tokens_before": 0, "tokens_after": 0,
                   "archive": str(archived), "time": _at(1.5).isoformat()}, _turn(1, 0))
    store.append(_turn(3, 2))
    return store, log


def test_what_the_rewind_undid_is_not_taken_off_the_requests_after_it(tmp_path: Path) -> None:
    store, _ = _rewound_session(tmp_path)
    t = load_transcript(store.path)
    assert [p.tool_call_id for m in t.messages for p in m.parts if isinstance(p, ToolReturnPart)] == ["c1", "c3"]
    assert t.view_events is not None
    responses = [i for i, m in enumerate(t.messages) if isinstance(m, ModelResponse)]
    # Turn 1's answer after its own spill; turn 3's two requests: that spill and the half of the
    # clearing that fell on turn 1's result, nothing of turn 2's spill, shrink or snip.
    assert kept_out(t.view_events, t.messages) == {responses[1]: 300, responses[2]: 500, responses[3]: 500}
    assert [y for _, y in recorded_points(t, t.messages)] == [1_000, 1_500, 3_000, 3_500]  # every request fitted


def test_a_compaction_the_rewind_went_back_over_ends_what_was_kept_out_and_is_none_the_replay_lacks(
        tmp_path: Path) -> None:
    """A compaction in the undone stretch had the layers forget their decisions on the results it
    summarized; the rewind back over it brings those results back, undecided. It is no compaction the
    replay lacks, so the requests before it are still fitted (they were left out as if its archive
    were missing)."""
    store, log = _rewound_session(tmp_path)
    log.append({"time": _at(1.3).isoformat(), "layer": "compact", "action": "full", "conversation_id": "s1",
                "detail": {"archive": "s1-archive.jsonl"}})
    t = load_transcript(store.path)
    assert t.view_events is not None and [kind for _, _, kind in t.view_events] == ["kept", "kept", "forget"]
    responses = [i for i, m in enumerate(t.messages) if isinstance(m, ModelResponse)]
    assert kept_out(t.view_events, t.messages) == {responses[1]: 300}
    assert len(recorded_points(t, t.messages)) == 4
