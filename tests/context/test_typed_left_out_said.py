"""A compaction message that leaves the oldest typed messages out (too many to fit even cut to their
first words) says how many, and that the archive holds them: it listed the rest as "the user's
messages" without a word, so the model could not know the first one, usually the task, existed.
The count is kept in its metadata and carried on by the compactions after it."""

from __future__ import annotations

from pydantic_ai.messages import ModelRequest, UserPromptPart

from compact_agent.context.compaction.summary import MARK, pick_user_messages, summary_message, user_texts

LINE = "older message{} left out (their full text is in the archive)"


def text(m: ModelRequest) -> str:
    part = m.parts[0]
    assert isinstance(part, UserPromptPart) and isinstance(part.content, str)
    return part.content


def test_the_messages_left_out_are_counted_and_said() -> None:
    typed = [f"LONG{i} " + "filler " * 230 for i in range(1, 9)]  # 8 prompts of ~1,600 characters
    picked = pick_user_messages(typed, 500)  # 2,000 characters: the newest whole, a few heads, not all
    shown = len(picked)
    assert 1 < shown < len(typed)
    message = summary_message("the work", None, picked)
    said = text(message)
    assert f"{len(typed) - shown} " + LINE.format("s" if len(typed) - shown > 1 else "") in said, said
    assert "LONG1 " not in said
    assert message.metadata is not None and message.metadata[MARK]["users_left_out"] == len(typed) - shown

    # The next compaction reads the typed messages from this one: those it left out stay counted.
    after = [message, ModelRequest(parts=[UserPromptPart("LONG9 " + "filler " * 230)])]
    again = pick_user_messages(user_texts(after), 500)
    more = text(summary_message("the work", None, again))
    assert f"{len(typed) + 1 - len(again)} older messages left out" in more, more


def test_nothing_is_said_when_all_fit() -> None:
    picked = pick_user_messages(["fix the parser", "and the tests"], 500)
    said = text(summary_message("the work", None, picked))
    assert "left out" not in said
    assert "users_left_out" not in (summary_message("the work", None, picked).metadata or {})[MARK]
