"""A compaction message that leaves typed messages out (too many to fit even cut to their first
words) says how many, and that the archive holds them: it listed the rest as "the user's messages"
without a word. The first one, usually the task, is kept (user_messages.py): those left out are the
ones right after it, and the line stands where they were. The count is kept in its metadata and
carried on by the compactions after it."""

from __future__ import annotations

import re
from pathlib import Path

from pydantic_ai.messages import (
    ModelMessage,
    ModelRequest,
    ModelResponse,
    TextPart,
    UserPromptPart,
)

from compact_agent.context import Compactor, Limits
from compact_agent.context.compaction.restore import Restorer
from compact_agent.context.compaction.summary import (
    MARK,
    pick_user_messages,
    summary_message,
    user_texts,
    users_since,
)

from .file_reads import no_model, reads

LINE = "message{} after the first (below) left out here (their full text is in the archive)"


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
    assert "\n- LONG1 " in said.split(LINE.format("s"))[1]  # the task, kept, under the line
    assert message.metadata is not None and message.metadata[MARK]["users_left_out"] == len(typed) - shown

    # The next compaction reads the typed messages from this one: those it left out stay counted.
    after = [message, ModelRequest(parts=[UserPromptPart("LONG9 " + "filler " * 230)])]
    again = pick_user_messages(user_texts(after), 500)
    more = text(summary_message("the work", None, again))
    assert f"{len(typed) + 1 - len(again)} messages after the first (below) left out here" in more, more
    assert "\n- LONG1 " in more


def test_nothing_is_said_when_all_fit() -> None:
    picked = pick_user_messages(["fix the parser", "and the tests"], 500)
    said = text(summary_message("the work", None, picked))
    assert "left out" not in said
    assert "users_left_out" not in (summary_message("the work", None, picked).metadata or {})[MARK]


def _turn(prompt: str, start: int, n: int) -> list[ModelMessage]:
    return [ModelRequest(parts=[UserPromptPart(prompt)]), *reads(start, n), ModelResponse(parts=[TextPart("done")])]


async def test_the_count_outlives_an_incremental_compaction(tmp_path: Path) -> None:
    """The update an incremental compaction appends replaces the kept message's metadata: it carried
    no count, so the compaction after it listed what it kept as all the user had typed."""
    restorer = Restorer(recent_files=lambda: [], reread=lambda p, n: [], resolve=lambda s: tmp_path / s)
    c = Compactor(Limits.for_window(8_000, 2_000), restorer)
    history = [m for t in range(10) for m in _turn(f"TASK{t} " + "word " * 250, 10 * t, 1)]
    first = await c.compact(history, summarize=no_model, archive=lambda: None, prefer_record=lambda n: True)
    n = user_texts(first.messages[:1]).left_out
    assert n and "\n- TASK0 " in text(first.messages[0]) and "\n- TASK1 " not in text(first.messages[0])  # type: ignore[arg-type]

    again = await c.compact([*first.messages, *_turn("NEXT " + "word " * 20, 200, 12)], summarize=no_model,
                            archive=lambda: None, prefer_record=lambda n: True,
                            prefer_incremental=lambda kept, records: True)
    assert again.event.detail.get("incremental") and len(again.messages[0].parts) > 1  # the update joined
    assert user_texts(again.messages[:1]).left_out == n

    third = await c.compact([*again.messages, *_turn("LAST " + "word " * 20, 400, 12)], summarize=no_model,
                            archive=lambda: None, prefer_record=lambda n: True,
                            prefer_incremental=lambda kept, records: False)
    said = text(third.messages[0])  # type: ignore[arg-type]
    assert "\n- LAST" in said and "\n- TASK0 " in said and "\n- TASK1 " not in said
    assert re.search(r"\d+ messages? after the first \(below\) left out here", said), said


async def _from_summary(messages: list[ModelMessage], prompt: str) -> str:
    return "<summary>Read more modules.</summary>"


async def test_a_compact_from_adds_its_count_to_the_one_in_the_head_it_kept(tmp_path: Path) -> None:
    """`/compact --from N` counts only what it left out of the messages from N on; the compaction
    message in the head it kept counts the older ones. The larger of the two was read as all."""
    restorer = Restorer(recent_files=lambda: [], reread=lambda p, n: [], resolve=lambda s: tmp_path / s)
    c = Compactor(Limits.for_window(8_000, 2_000), restorer)
    history = [m for t in range(10) for m in _turn(f"TASK{t} " + "word " * 250, 10 * t, 1)]
    first = await c.compact(history, summarize=no_model, archive=lambda: None, prefer_record=lambda n: True)
    older = user_texts(first.messages).left_out
    head = [*first.messages, *_turn("u6", 100, 1)]
    later = [m for t in range(10) for m in _turn(f"MORE{t} " + "word " * 250, 200 + 10 * t, 1)]
    part = await c.compact_partial([*head, *later], len(head), "from", summarize=_from_summary, archive=lambda: None)
    message = part.messages[len(head)]
    assert message.metadata is not None and part.messages[:len(head)] == head
    own = message.metadata[MARK]["users_left_out"]
    assert older and own
    assert user_texts(part.messages).left_out == older + own
    # An incremental compaction after it keeps the first message and updates it: the same sum.
    assert users_since(part.messages[0], user_texts(part.messages[1:])).left_out == older + own


def test_one_message_left_out_is_said_in_the_singular() -> None:
    """'1 older message left out (their full text is in the archive)': `its` for one."""
    from compact_agent.context.compaction.user_messages import left_out_line

    assert left_out_line(1) == "1 older message left out (its full text is in the archive)"
    assert left_out_line(3) == "3 older messages left out (their full text is in the archive)"
