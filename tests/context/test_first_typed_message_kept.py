"""Past the typed messages' budget, the first one (the task) is kept and those between it and the
newest go, oldest first, with a line where they were: the oldest went first, the task among them
(a 6K window's compaction listed only the follow-ups). Hand-computed: see each step."""

from __future__ import annotations

from pydantic_ai.messages import ModelRequest, UserPromptPart

from compact_agent.context.compaction.summary import (
    CUT_MARK,
    MARK,
    pick_user_messages,
    summary_message,
    user_item,
    user_texts,
)
from compact_agent.context.compaction.user_messages import only, typed

TASK = "T" * 1_000
BETWEEN = [str(i) * 300 for i in range(1, 5)]  # 300 characters: each is its own head
NEWEST = "N" * 100


def test_the_task_and_the_newest_stay_and_the_oldest_between_them_go() -> None:
    # Budget 250 tokens = 1,000 characters, against 1,000 + 4 x 300 + 100 = 2,300.
    # The newest: the heads before it take 300 + len(CUT_MARK) + 1,200, more than the budget, so its room
    # is min(100, 500): whole, 100 used. The task next: whole it would leave no room for the four heads
    # (100 + 1,000 + 1,200), so its head, 300 + len(CUT_MARK): 400 + len(CUT_MARK) used. Then, newest
    # first, "4" * 300 (700 + len(CUT_MARK) used); "3" * 300 would make 1,000 + len(CUT_MARK): it, "2"
    # and "1" are left out. (Oldest first out, it kept 4, 3 and 2 and left out "1" and the task.)
    picked = pick_user_messages([TASK, *BETWEEN, NEWEST], 250)
    assert list(picked) == [NEWEST, BETWEEN[3], TASK[:300] + CUT_MARK]
    assert picked.left_out == 3 and picked.first_kept

    said = summary_message("the work", None, picked)
    text = said.parts[0].content
    assert isinstance(text, str)
    listed = "\n".join([user_item(NEWEST), user_item(BETWEEN[3]),
                        "3 messages after the first (below) left out here (their full text is in the archive)",
                        user_item(TASK[:300] + CUT_MARK)])
    assert listed in text, text
    assert said.metadata is not None and said.metadata[MARK]["users_left_out"] == 3
    assert said.metadata[MARK]["users_first_kept"] is True

    # The next compaction reads them back from this message and keeps the task again, the count carried:
    # 100 + 300 + len(CUT_MARK) + 300 + 30 characters, within the budget: all four, newest first.
    carried = user_texts([said, ModelRequest(parts=[UserPromptPart("and now the tests, please, thanks")])])
    again = pick_user_messages(carried, 250)
    assert list(again) == ["and now the tests, please, thanks", NEWEST, BETWEEN[3], TASK[:300] + CUT_MARK]
    assert again.left_out == 3 and again.first_kept
    assert "3 messages after the first (below) left out here" in summary_message("w", None, again).parts[0].content


def test_a_budget_without_room_for_the_tasks_head_leaves_out_the_oldest_as_before() -> None:
    # Budget 100 tokens = 400 characters: the newest takes 100; the task's head (300 + len(CUT_MARK))
    # does not fit beside it, so it is not kept first, and the rest go as before: "4" * 300 fills 400.
    picked = pick_user_messages([TASK, *BETWEEN, NEWEST], 100)
    assert list(picked) == [NEWEST, BETWEEN[3]] and picked.left_out == 4 and not picked.first_kept
    assert "4 older messages left out (their full text is in the archive)" in \
        summary_message("w", None, picked).parts[0].content


def test_after_the_task_was_left_out_no_later_message_is_taken_for_it() -> None:
    # A compaction before left out the four oldest, the task among them ("4 older messages left out"):
    # the oldest carried, "m4", came after them. Budget 100 tokens = 400 characters against 4 x 150:
    # the newest whole (150), then the others newest first while they fit: "m6" (300 used), and "m5"
    # and "m4" left out; none is put last as the task, nor the line put above one as "after the first".
    carried = typed([c * 150 for c in "4567"], 4)  # "4"*150 is m4 ... "7"*150 the newest
    picked = pick_user_messages(carried, 100)
    assert list(picked) == ["7" * 150, "6" * 150] and picked.left_out == 6 and not picked.first_kept
    text = summary_message("w", None, picked).parts[0].content
    assert isinstance(text, str) and "6 older messages left out" in text and "after the first" not in text


def test_a_harness_filter_keeps_the_task_first_where_it_keeps_the_task() -> None:
    # Read back from a message that kept the task with two left out after it, and filtered of a
    # harness's own text ("<reminder>"): the task stays the first, the line between it and the rest.
    texts = typed(["the task", "<reminder>", "later", "newest"], 2, first_kept=True)
    kept = only(texts, lambda t: not t.startswith("<"))
    assert list(kept) == ["the task", "later", "newest"] and kept.left_out == 2 and kept.first_kept
    # Where the filter takes out the first itself, what is left holds no task to keep first.
    dropped = only(typed(["<reminder>", "later", "newest"], 2, first_kept=True), lambda t: not t.startswith("<"))
    assert list(dropped) == ["later", "newest"] and not dropped.first_kept
