"""Gemini CLI's ``{"$set": {"messages": [...]}}`` lines, as its chat recording service writes them
(core/services/chatRecordingService.ts `updateMessagesFromHistory`): at the start of every session (the
environment turn), after a turn cancelled or failed (the history taken back), and after its masking of
old tool output or its compression. Only the last two rewrite what the model saw."""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

from pydantic_ai.messages import UserPromptPart

from compact_agent.replay import load_transcript
from compact_agent.replay.retention import typed_texts
from compact_agent.replay.simulate import recorded_points

from ._helpers import assert_valid_conversation, responses, results
from .test_gemini_cli_chats import META, call

ENV = {"id": "env", "timestamp": "2026-08-20T10:00:00.100Z", "type": "user",
       "content": [{"text": "<session_context>\nThis is the Gemini CLI.\n</session_context>"}]}
BIG = "x = 1\n" * 2_000
#: A resume the next day: the context turn it puts in front (the fixed id, that day's date), the one a
#: release of May 2026 had saved under an id of its own, and the turn after the resume.
NEXT_DAY = {**ENV, "content": [{"text": "<session_context>\nThis is the Gemini CLI.\nToday's date is Friday, "
                                        "August 21, 2026.\n</session_context>"}]}
OWN = {**ENV, "id": "5c1f0e9a-2b7d-4e3a-9f61-0d8c2a7b4e15"}
AFTER_RESUME: list[dict[str, Any]] = [
    {"id": "u2", "timestamp": "2026-08-21T09:00:00.000Z", "type": "user", "content": [{"text": "thanks"}]},
    {"id": "g3", "timestamp": "2026-08-21T09:00:02.000Z", "type": "gemini", "content": "Anything else?",
     "tokens": {"input": 17_100, "output": 4, "cached": 0}}]


def turn() -> list[dict[str, Any]]:
    """A prompt, a response of two calls (their results also as a user turn), and the answer."""
    calls = [call("c1", "read_file", {"absolute_path": "/w/a.py"}, BIG, "2026-08-20T10:00:09.000Z"),
             call("c2", "read_file", {"absolute_path": "/w/b.py"}, "b = 2", "2026-08-20T10:00:09.001Z")]
    return [
        {"id": "u1", "timestamp": "2026-08-20T10:00:05.000Z", "type": "user", "content": [{"text": "read a and b"}]},
        {"id": "g1", "timestamp": "2026-08-20T10:00:08.000Z", "type": "gemini", "content": "Reading.",
         "tokens": {"input": 12_000, "output": 10, "cached": 0}, "toolCalls": calls},
        {"id": "r1", "timestamp": "2026-08-20T10:00:09.000Z", "type": "user",
         "content": [c["result"][0] for c in calls]},
        {"id": "i1", "timestamp": "2026-08-20T10:00:09.500Z", "type": "info", "content": "Switched model"},
        {"id": "g2", "timestamp": "2026-08-20T10:00:12.000Z", "type": "gemini", "content": "Both read.",
         "tokens": {"input": 17_000, "output": 4, "cached": 0}},
    ]


def as_set(messages: list[dict[str, Any]]) -> dict[str, Any]:
    """The history as `updateMessagesFromHistory` writes it back: a response's text as its parts, its
    calls among them, each call's result as the whole user turn its response went in, no notices."""
    out = []
    responses_of = {m["id"]: m for m in messages if m["type"] == "user" and isinstance(m["content"], list)
                    and all("functionResponse" in p for p in m["content"])}
    for m in copy.deepcopy(messages):
        if m["type"] == "info":
            continue
        if m["type"] == "gemini":
            calls = m.get("toolCalls") or []
            m["content"] = [{"text": m["content"]}, *({"functionCall": {"id": c["id"], "name": c["name"],
                                                                          "args": c["args"]}} for c in calls)]
            turn_parts = next((r["content"] for r in responses_of.values()
                               if any(p["functionResponse"]["id"] == c["id"] for c in calls for p in r["content"])), None)
            m["toolCalls"] = [{**c, "result": turn_parts} for c in calls] if calls else m.get("toolCalls")
        out.append(m)
    return {"$set": {"messages": out, "lastUpdated": "2026-08-20T10:01:00.000Z"}}


def write(tmp_path: Path, lines: list[dict[str, Any]]) -> Path:
    path = tmp_path / "session-2026-08-20T10-00-2f0c1a9e.jsonl"
    path.write_text("".join(json.dumps(line) + "\n" for line in lines))
    return path


def test_a_set_that_restates_the_history_or_adds_to_it_is_no_rewrite(tmp_path: Path) -> None:
    """Every session since May 2026 starts with one (the environment turn); a resumed or cancelled one
    writes the history back whole, responses as parts: the recorded usage still fits the sizes."""
    messages = turn()
    more: list[dict[str, Any]] = [{"id": "u2", "timestamp": "2026-08-20T10:01:00.000Z", "type": "user", "content": [{"text": "thanks"}]},
            {"id": "g3", "timestamp": "2026-08-20T10:01:02.000Z", "type": "gemini", "content": "Anything else?",
             "tokens": {"input": 17_100, "output": 4, "cached": 0}}]
    restated = as_set([ENV, *messages])
    restated["$set"]["messages"] += more
    transcript = load_transcript(write(tmp_path, [{**META, "kind": "main"}, as_set([ENV]), {"$set": {"lastUpdated": "x"}},
                                                  *messages, restated]))
    assert_valid_conversation(transcript.messages)
    assert transcript.warnings == [] and transcript.recorded_compactions == []
    assert [r.content for r in results(transcript.messages)] == [BIG, "b = 2"]
    assert [r.usage.input_tokens for r in responses(transcript.messages)] == [12_000, 17_000, 17_100]
    assert len(recorded_points(transcript, transcript.messages)) == 3


def test_a_turn_taken_back_is_left_out_and_the_usage_before_it_still_fits(tmp_path: Path) -> None:
    """A cancelled turn: Gemini CLI rolls its history back to before the prompt and writes it back, so
    the next request holds none of that turn (core/geminiChat.ts, `agentHistory.rollback`)."""
    messages = turn()
    cancelled: list[dict[str, Any]] = [{"id": "u2", "timestamp": "2026-08-20T10:02:00.000Z", "type": "user", "content": [{"text": "now c"}]},
                 {"id": "g9", "timestamp": "2026-08-20T10:02:03.000Z", "type": "gemini", "content": "Reading c.",
                  "tokens": {"input": 17_050, "output": 4, "cached": 0}},
                 {"id": "i2", "timestamp": "2026-08-20T10:02:04.000Z", "type": "info", "content": "Request cancelled."}]
    after: list[dict[str, Any]] = [{"id": "u3", "timestamp": "2026-08-20T10:03:00.000Z", "type": "user", "content": [{"text": "never mind"}]},
             {"id": "g4", "timestamp": "2026-08-20T10:03:02.000Z", "type": "gemini", "content": "OK.",
              "tokens": {"input": 17_020, "output": 2, "cached": 0}}]
    transcript = load_transcript(write(tmp_path, [META, as_set([ENV]), *messages, *cancelled, as_set([ENV, *messages]),
                                                  *after]))
    assert_valid_conversation(transcript.messages)
    assert typed_texts(transcript.messages, transcript.harness_texts) == ["read a and b", "never mind"]
    assert [r.usage.input_tokens for r in responses(transcript.messages)] == [12_000, 17_000, 17_020]
    assert transcript.recorded_compactions == []
    assert len(recorded_points(transcript, transcript.messages)) == 3
    assert transcript.warnings == ["left out 2 messages of turns Gemini CLI took back when they were cancelled or "
                                   "failed: the model never saw them again, and their requests are not replayed"]


def test_a_set_that_masks_a_result_is_a_rewrite_from_that_message_on(tmp_path: Path) -> None:
    """Its masking writes the masked result back into the call's record: the model saw it whole before,
    masked after; the usage recorded before the request that held it still fits."""
    messages = turn()
    masked = "<tool_output_masked>\nx = 1\n\nOutput too large.\n</tool_output_masked>"
    later: list[dict[str, Any]] = [{"id": "u2", "timestamp": "2026-08-20T10:02:00.000Z", "type": "user", "content": [{"text": "next"}]},
             {"id": "g3", "timestamp": "2026-08-20T10:02:02.000Z", "type": "gemini", "content": "Done.",
              "tokens": {"input": 6_000, "output": 2, "cached": 0}}]
    rewrite = as_set([ENV, *messages, *later])
    for m in rewrite["$set"]["messages"]:
        if m["id"] == "r1":
            m["content"][0] = {"functionResponse": {"id": "c1", "name": "read_file", "response": {"output": masked}}}
        for c in m.get("toolCalls") or []:
            c["result"] = next(r["content"] for r in rewrite["$set"]["messages"] if r["id"] == "r1")
    transcript = load_transcript(write(tmp_path, [META, as_set([ENV]), *messages, *later, rewrite]))
    assert_valid_conversation(transcript.messages)
    assert [r.content for r in results(transcript.messages)] == [masked, "b = 2"]
    [compaction] = transcript.recorded_compactions
    g2 = transcript.messages.index(responses(transcript.messages)[1])
    assert compaction["message_index"] == g2
    assert [p[1] for p in recorded_points(transcript, transcript.messages)] == [12_000]
    assert transcript.warnings == ["Gemini CLI rewrote this session's history (its compression or its masking of old "
                                   "tool output): replayed as rewritten, and the sizes it recorded from the first "
                                   "rewritten message on are not used to fit ours"]


def test_a_rewrite_after_the_first_responses_keeps_their_usage_for_the_fit(tmp_path: Path) -> None:
    messages = turn()
    later: list[dict[str, Any]] = [{"id": "u2", "timestamp": "2026-08-20T10:02:00.000Z", "type": "user", "content": [{"text": "next"}]},
             {"id": "g3", "timestamp": "2026-08-20T10:02:02.000Z", "type": "gemini", "content": "Done.",
              "tokens": {"input": 17_100, "output": 2, "cached": 0}}]
    rewrite = as_set([ENV, *messages, *later])
    rewrite["$set"]["messages"][-2]["content"] = [{"text": "next, and be brief"}]
    transcript = load_transcript(write(tmp_path, [META, as_set([ENV]), *messages, *later, rewrite]))
    assert [c["message_index"] for c in transcript.recorded_compactions] == [len(transcript.messages) - 2]
    assert [p[1] for p in recorded_points(transcript, transcript.messages)] == [12_000, 17_000]


def test_a_tools_binary_output_sent_as_an_info_message_is_replayed_as_an_image(tmp_path: Path) -> None:
    """Gemini CLI's binary injection (core/geminiChat.ts): a tool's image leaves its result and is sent as
    the next user turn, recorded as an `info` message of inlineData parts after a synthetic thought."""
    read = call("r1", "read_file", {"absolute_path": "/w/d.png"}, "Binary content provided (1 item(s)).",
                "2026-08-20T11:00:03.000Z")
    lines: list[dict[str, Any]] = [
        META, {"id": "u1", "timestamp": "2026-08-20T11:00:01.000Z", "type": "user", "content": [{"text": "describe d.png"}]},
        {"id": "g1", "timestamp": "2026-08-20T11:00:02.000Z", "type": "gemini", "content": "", "toolCalls": [read],
         "tokens": {"input": 9_000, "output": 30, "cached": 0}},
        {"id": "f1", "timestamp": "2026-08-20T11:00:03.100Z", "type": "user", "content": read["result"]},
        {"id": "a1", "timestamp": "2026-08-20T11:00:03.200Z", "type": "gemini",
         "content": [{"text": "Binary content received. Proceeding with analysis.", "thought": True}]},
        {"id": "b1", "timestamp": "2026-08-20T11:00:03.300Z", "type": "info",
         "content": [{"inlineData": {"mimeType": "image/png", "data": "iVBORw0KGgo="}}]},
        {"id": "i1", "timestamp": "2026-08-20T11:00:03.400Z", "type": "info", "content": "Switched model"},
        {"id": "g2", "timestamp": "2026-08-20T11:00:05.000Z", "type": "gemini", "content": "Three boxes.",
         "tokens": {"input": 9_400, "output": 20, "cached": 9_000}}]
    transcript = load_transcript(write(tmp_path, lines))
    assert_valid_conversation(transcript.messages)
    sent = [str(getattr(p, "content", "")) for m in transcript.messages for p in m.parts]
    assert sent.count("[image]") == 1 and "Switched model" not in sent
    assert typed_texts(transcript.messages, transcript.harness_texts) == ["describe d.png"]
    assert transcript.warnings == []


def test_a_resume_that_makes_the_session_context_again_is_no_rewrite(tmp_path: Path) -> None:
    """On resume Gemini CLI drops the saved <session_context> turn and puts a new one in front, same id,
    that day's date and folder tree; a file begun before May 2026 gets one it never had. Before, the
    changed message 0 was taken for a compression: every recorded size was thrown out of the fit."""
    messages = turn()
    for begun in ([as_set([ENV]), *messages], messages):  # with the context turn, and before releases wrote one
        transcript = load_transcript(write(tmp_path, [{**META, "kind": "main"}, *begun, as_set([NEXT_DAY, *messages]),
                                                      *AFTER_RESUME]))
        assert_valid_conversation(transcript.messages)
        assert transcript.recorded_compactions == [] and transcript.warnings == []
        assert [p[1] for p in recorded_points(transcript, transcript.messages)] == [12_000, 17_000, 17_100]
        assert typed_texts(transcript.messages, transcript.harness_texts) == ["read a and b", "thanks"]
    # a real rewrite of the context turn's neighbours is still one
    compressed = as_set([NEXT_DAY, {"id": "s1", "timestamp": "2026-08-21T09:00:00.000Z", "type": "user",
                                    "content": [{"text": "Summary of the conversation so far."}]}])
    transcript = load_transcript(write(tmp_path, [META, as_set([ENV]), *messages, compressed, *AFTER_RESUME]))
    assert len(transcript.recorded_compactions) == 1


def test_a_resume_that_drops_a_context_turn_saved_under_an_id_of_its_own_is_no_rewrite(tmp_path: Path) -> None:
    """A release of May 2026 saved the <session_context> turn under an id of its own; a later resume drops
    it and puts a new one in front under the fixed id. Before, the first message seen had changed: taken for a
    compression at the start, every recorded size was thrown out of the fit, and the replay had no context turn."""
    messages = turn()
    transcript = load_transcript(write(tmp_path, [META, as_set([OWN]), *messages, as_set([NEXT_DAY, *messages]),
                                                  *AFTER_RESUME]))
    assert_valid_conversation(transcript.messages)
    assert transcript.recorded_compactions == [] and transcript.warnings == []
    assert [p[1] for p in recorded_points(transcript, transcript.messages)] == [12_000, 17_000, 17_100]
    contexts = [p.content for m in transcript.messages for p in m.parts
                if isinstance(p, UserPromptPart) and isinstance(p.content, str) and p.content.startswith("<session_")]
    assert contexts == [ENV["content"][0]["text"]]  # once, as the requests before the resume sent it


def test_a_resume_that_sends_the_context_turn_twice_is_replayed_with_both(tmp_path: Path) -> None:
    """From 2026-05-21 a resume put a context turn in front under the fixed id unless the history began
    with one, and until 2026-05-24 it still kept the saved one (under an id of its own, or in a file begun
    without one, none): the model read both from then on. The new one was left out, the replay sending one
    context turn (or none) where the recorded requests sent two (or one). It is replayed after the
    messages kept, where the resume sent it first, and a later $set restating it in front is no rewrite."""
    messages = turn()

    def contexts(lines: list[dict[str, Any]]) -> list[tuple[int, str]]:
        transcript = load_transcript(write(tmp_path, lines))
        assert_valid_conversation(transcript.messages)
        assert transcript.recorded_compactions == [] and transcript.warnings == []
        assert [p[1] for p in recorded_points(transcript, transcript.messages)] == [12_000, 17_000, 17_100]
        assert typed_texts(transcript.messages, transcript.harness_texts) == ["read a and b", "thanks"]
        said = [str(getattr(p, "content", "")) for m in transcript.messages for p in m.parts]
        at = [i for i, text in enumerate(said) if text.startswith("<session_")]
        assert said.index("Both read.") < at[-1] < said.index("thanks")  # after the messages kept
        return [(i, said[i]) for i in at]

    old, new = ENV["content"][0]["text"], NEXT_DAY["content"][0]["text"]
    for begun, sent in (([as_set([OWN]), *messages], [OWN, *messages]), (messages, messages)):
        resumed = as_set([NEXT_DAY, *sent])
        seen = contexts([META, *begun, resumed, *AFTER_RESUME])
        assert [text for _, text in seen] == ([old, new] if sent[0] is OWN else [new])
        # the history written back whole later, the new turn in front
        again = as_set([NEXT_DAY, *sent, *AFTER_RESUME])
        assert contexts([META, *begun, resumed, *AFTER_RESUME, again]) == seen
