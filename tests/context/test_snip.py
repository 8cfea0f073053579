"""L2 snip: empty results, repeated reminders, superseded reads, structure; what the user typed stays."""

from __future__ import annotations

import json
from dataclasses import replace

import pytest
from pydantic_ai.messages import (
    ModelRequest,
    ModelResponse,
    SystemPromptPart,
    TextPart,
    ToolReturnPart,
    UserPromptPart,
    repair_messages,
)

from compact_agent.context.layers.snip import NO_OUTPUT, SUPERSEDED, Snip
from compact_agent.context.plumbing import tokens
from compact_agent.context.plumbing.rounds import unpaired
from tests.context.strategies import REMINDER, Conv, budget_for, dump


def run(layer: Snip, messages: list):
    result = layer.apply(messages, budget_for(messages, Conv().t))
    assert dump(repair_messages(result.messages)) == dump(result.messages)
    assert unpaired(result.messages) == (set(), set())
    assert tokens.estimate(result.messages) <= tokens.estimate(messages)
    return result


def prompts(messages: list) -> list[str]:
    return [p.content for m in messages for p in m.parts if isinstance(p, UserPromptPart) and isinstance(p.content, str)]


@pytest.mark.parametrize("text", ["ok", "OK!", "okay.", "好的", "继续", "thanks", "go on", "yes", "ok, thanks",
                                  "  continue  "])
def test_a_short_message_the_user_typed_stays_once_answered(text: str) -> None:
    """"ok" or "go on" is what the user said: the model reads it with every later request, and the
    answers before and after it stay two messages."""
    conv = Conv().user("refactor parser").say("Shall I start?").user(text).say("Starting.").user("now the tests")
    result = run(Snip(), conv.messages)
    assert dump(result.messages) == dump(conv.messages) and result.events == []


def test_a_short_message_after_a_turn_that_got_no_answer_stays() -> None:
    """The session closes a turn that got no answer with its own marked reply; "go on" after it is
    what asked the model for the answer, and the model's answer is not joined to that marker."""
    conv = Conv().user("remember A").say("[compact-agent: this turn ended before an answer]")
    conv.messages[-1] = replace(conv.messages[-1], metadata={"compact_agent": {"synthetic": "unanswered"}})
    conv.user("go on").say("ok").user("ok")
    result = run(Snip(), conv.messages)
    assert prompts(result.messages) == ["remember A", "go on", "ok"]
    assert dump(result.messages) == dump(conv.messages)


def test_an_older_reminder_alone_in_a_request_goes_and_the_responses_around_it_merge() -> None:
    conv = (Conv().user(REMINDER, "refactor parser").say("Shall I start?").user(REMINDER).say("Starting.")
            .user(REMINDER, "now the tests"))
    before = dump(conv.messages)
    result = run(Snip(), conv.messages)
    assert dump(conv.messages) == before
    assert prompts(result.messages) == ["refactor parser", REMINDER, "now the tests"]
    merged = result.messages[1]
    assert isinstance(merged, ModelResponse)
    assert [p.content for p in merged.parts] == ["Shall I start?", "Starting."]
    removed = merged.metadata["compact_agent"]["snip"]["removed"]
    assert [r["kind"] for r in removed] == ["duplicate_text"]
    assert result.tokens_freed > 0 and result.events[0].detail["kinds"] == {"duplicate_text": 2}


def test_an_older_reminder_before_a_thinking_response_stays() -> None:
    # Merging text in front of a thinking block would break providers that want thinking first.
    conv = Conv().user("a").say("Shall I?").user(REMINDER).say("Going.", thinking=True).user(REMINDER, "b")
    assert prompts(run(Snip(), conv.messages).messages) == ["a", REMINDER, REMINDER, "b"]


def test_frozen_ack_decisions_of_an_earlier_version_are_not_applied() -> None:
    conv = Conv().user("go").say("Shall I?").user("ok").say("Going.").user("next")
    layer = Snip()
    ok = next(p for p in conv.messages[2].parts if isinstance(p, UserPromptPart))
    layer.load_state({"snipped": {f"ack:{ok.timestamp.isoformat()}:x:0": "ack", "call_9": "empty_result"}})
    assert layer.state_to_json() == {"snipped": {"call_9": "empty_result"}}
    assert prompts(run(layer, conv.messages).messages) == ["go", "ok", "next"]


def test_empty_successful_call_and_result_are_snipped_together() -> None:
    conv = (Conv().user("setup").call("bash", {"command": "mkdir -p build"}, "")
            .call("bash", {"command": "ls build"}, "out.o\n").say("done").user("next"))
    result = run(Snip(), conv.messages)
    ids = [p.tool_call_id for m in result.messages for p in m.parts if isinstance(p, ToolReturnPart)]
    assert ids == ["call_2"]
    marker = result.messages[1].metadata["compact_agent"]["snip"]["removed"]
    assert marker == [{"kind": "empty_call", "ids": ["call_1"], "tools": ["bash"]}]


def test_empty_write_keeps_its_call_because_it_records_a_change() -> None:
    conv = Conv().user("w").call("write_file", {"path": "a", "content": "x"}, "").say("done").user("next")
    assert dump(run(Snip(), conv.messages).messages) == dump(conv.messages)


def test_empty_result_next_to_other_content_keeps_the_pair() -> None:
    conv = (Conv().user("go").calls(("bash", {"command": "true"}, ""), ("bash", {"command": "ls"}, "a\n"))
            .say("done").user("next"))
    result = run(Snip(), conv.messages)
    assert unpaired(result.messages) == (set(), set())
    assert dump(result.messages) == dump(conv.messages)  # "(no output)" would be larger than ""


def test_whitespace_output_becomes_no_output_when_smaller() -> None:
    conv = (Conv().user("go").calls(("bash", {"command": "a"}, " \n" * 40), ("bash", {"command": "b"}, "x"))
            .say("done").user("next"))
    out = run(Snip(), conv.messages).messages
    assert out[2].parts[0].content == NO_OUTPUT


def test_repeated_reminder_keeps_the_newest_copy() -> None:
    conv = (Conv().user(REMINDER, "task one").say("one done").user(REMINDER, "task two").say("two done")
            .user(REMINDER, "task three"))
    out = run(Snip(), conv.messages).messages
    assert prompts(out) == ["task one", "task two", REMINDER, "task three"]
    assert out[0].metadata["compact_agent"]["snip"]["removed"][0]["kind"] == "duplicate_text"


def test_head_system_prompt_stays_and_its_later_copy_goes() -> None:
    conv = Conv(system="SYS").user("a").say("b")
    conv.messages.append(ModelRequest(parts=[SystemPromptPart("SYS"), UserPromptPart("c")], timestamp=conv.tick()))
    conv.say("d").user("e")
    out = run(Snip(), conv.messages).messages
    systems = [(i, p.content) for i, m in enumerate(out) for p in m.parts if isinstance(p, SystemPromptPart)]
    assert systems == [(0, "SYS")]


def test_superseded_read_of_an_unchanged_file() -> None:
    body = "\n".join(f"line {i}" for i in range(200))
    conv = (Conv().user("look").call("read_file", {"path": "a.py"}, body)
            .call("read_file", {"path": "a.py", "offset": 10}, body[10:])
            .call("read_file", {"path": "b.py"}, body)
            .call("read_file", {"path": "a.py"}, body)
            .say("done").user("next"))
    out = run(Snip(), conv.messages).messages
    contents = {p.tool_call_id: p.content for m in out for p in m.parts if isinstance(p, ToolReturnPart)}
    assert contents["call_1"] == SUPERSEDED
    assert contents["call_2"] == body[10:] and contents["call_3"] == body and contents["call_4"] == body


def test_a_superseded_read_goes_out_whole_once_the_later_read_is_gone() -> None:
    """The frozen mark lapses with the later read (a compaction summarised it, a rewind undid its turn)."""
    body = "\n".join(f"line {i}" for i in range(200))
    conv = (Conv().user("look").call("read_file", {"path": "a.py"}, body).say("read")
            .user("again").call("read_file", {"path": "a.py"}, body).say("done").user("next"))
    layer = Snip()
    assert run(layer, conv.messages).messages[2].parts[0].content == SUPERSEDED
    cut = [*conv.messages[:4], conv.messages[-1]]  # the turn of the later read gone
    assert dump(run(layer, cut).messages) == dump(cut)
    assert layer.snipped == {}
    assert run(layer, conv.messages).messages[2].parts[0].content == SUPERSEDED  # back: marked again


def test_after_a_compaction_only_the_decisions_about_parts_still_there_are_kept() -> None:
    """`forget_absent` (layers/frozen.py `after_compaction`): the state is saved with every request."""
    body = "\n".join(f"line {i}" for i in range(200))
    conv = (Conv().user(REMINDER, "look").call("bash", {"command": "true"}, "").say("ran")
            .user(REMINDER, "read").call("read_file", {"path": "a.py"}, body)
            .call("read_file", {"path": "a.py"}, body).say("done").user(REMINDER, "next"))
    layer = Snip()
    run(layer, conv.messages)
    kinds = sorted(layer.snipped.values())
    assert kinds == ["duplicate_text", "duplicate_text", "empty_call", "superseded_read"], layer.snipped
    layer.forget_absent(conv.messages)
    assert sorted(layer.snipped.values()) == kinds
    layer.forget_absent(conv.messages[4:])  # the first turn summarised
    assert sorted(layer.snipped.values()) == ["duplicate_text", "superseded_read"], layer.snipped


def test_read_of_a_changed_file_is_not_superseded() -> None:
    conv = (Conv().user("look").call("read_file", {"path": "a.py"}, "v1 " * 100)
            .call("read_file", {"path": "a.py"}, "v2 " * 100).say("done").user("next"))
    assert dump(run(Snip(), conv.messages).messages) == dump(conv.messages)


def test_nothing_after_the_last_response_is_touched() -> None:
    body = "x\n" * 200
    conv = Conv().user("look").call("read_file", {"path": "a"}, body).call("read_file", {"path": "a"}, body)
    # The newer read is the newest message: the older one can go, the newest must stay.
    out = run(Snip(), conv.messages).messages
    assert out[-1].parts[0].content == body
    tail_only = Conv().user("a").say("Shall I?").user("ok")
    conv2 = Conv().user("a").call("bash", {"command": "true"}, "")
    for c in (tail_only, conv2):
        assert dump(run(Snip(), c.messages).messages) == dump(c.messages)


def test_idempotent_frozen_and_stable_as_history_grows() -> None:
    conv = Conv().user("go").say("Shall I?").user("ok").say("Going.").user(REMINDER, "more")
    layer = Snip()
    first = run(layer, conv.messages)
    again = run(layer, conv.messages)
    assert dump(again.messages) == dump(first.messages) and again.events == []
    restarted = Snip()
    restarted.load_state(json.loads(json.dumps(layer.state_to_json())))
    assert dump(run(restarted, conv.messages).messages) == dump(first.messages)
    n = len(first.messages)
    conv.say("more done").user("thanks").say("bye").user("new task")
    grown = run(layer, conv.messages)
    assert dump(grown.messages[: n - 1]) == dump(first.messages[: n - 1])


def test_message_holding_only_system_text_after_snipping_is_kept_whole() -> None:
    conv = Conv(system="SYS").user("a").say("Shall I?")
    t = conv.tick()
    conv.messages.append(ModelRequest(parts=[SystemPromptPart("note"), UserPromptPart(REMINDER)], timestamp=t))
    conv.say("yes").user(REMINDER, "b")
    out = run(Snip(), conv.messages).messages
    assert prompts(out) == ["a", REMINDER, REMINDER, "b"]


def test_merged_response_keeps_the_later_responses_identity() -> None:
    conv = Conv().user("go").say("Shall I?").user(REMINDER).say("Going.").user(REMINDER, "next")
    merged = run(Snip(), conv.messages).messages[1]
    later = conv.messages[3]
    assert isinstance(merged, ModelResponse) and isinstance(later, ModelResponse)
    assert merged.provider_response_id == later.provider_response_id and merged.timestamp == later.timestamp
    assert isinstance(merged.parts[0], TextPart)
