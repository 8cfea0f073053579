"""A request too large for the window gives up a compaction message's record before the floors it
carries: the user's messages, the files changed and the newest ask (decisions/fit.py, step 5).

Where the fixed prompt leaves a few thousand tokens (a large agent prompt in a 32K window), the last
resort cut the compaction message to its first 300 characters: the head and the start of the record.
Every message the user typed went from the request, and the ledger of changed files with them.
"""

from __future__ import annotations

from pydantic_ai.messages import (
    ModelRequest,
    ModelResponse,
    SystemPromptPart,
    TextPart,
    ToolCallPart,
    ToolReturnPart,
    UserPromptPart,
)

from compact_agent.context import ContextManager
from compact_agent.context.compaction import summary
from compact_agent.context.decisions import first_message
from compact_agent.context.decisions.fit import shrink_to_fit

RECORD = "\n".join(f"step {i}: read module_{i}.py and found nothing to change there" for i in range(160))
USERS = ["fix the flaky tests in the parser", "also never touch the vendored folder",
         "here is the log:\n" + "ERROR parser.py:12 unexpected token\n" * 60]
FILES = {"src/parser.py": ["edited"], "tests/test_parser.py": ["written"]}


def _view(tail_chars: int) -> list:
    first = summary.summary_message(RECORD, None, list(reversed(USERS)), "record", FILES)
    return [first, ModelResponse(parts=[ToolCallPart("read_file", {"path": "src/parser.py"}, tool_call_id="c1")]),
            ModelRequest(parts=[ToolReturnPart("read_file", "x" * tail_chars, tool_call_id="c1")])]


def _first_text(view: list) -> str:
    return "\n".join(str(p.content) for p in view[0].parts if isinstance(p, UserPromptPart))


def _shrunk(overhead: int, tail_chars: int = 400) -> tuple[list, int, int]:
    cm = ContextManager(window=8_000)
    cm.overhead = overhead
    view = _view(tail_chars)
    before = cm.measure(view)
    shrunk, after = shrink_to_fit(cm, list(view), before)
    return shrunk, before, after


def test_the_record_gives_way_first_and_the_users_words_and_the_ledger_stay_whole() -> None:
    shrunk, before, after = _shrunk(overhead=5_000)
    limit = 8_000 - 8_000 // 50
    assert before > limit >= after
    text = _first_text(shrunk)
    assert "step 0: read module_0.py" not in text and summary.RECORD_LEFT_OUT in text
    for u in USERS:
        assert summary.user_item(u) in text  # byte for byte, as the compaction listed it
    assert "- src/parser.py (edited)" in text and "- tests/test_parser.py (written)" in text


def test_past_that_each_users_message_keeps_its_head_and_the_files_their_paths() -> None:
    shrunk, before, after = _shrunk(overhead=7_250)
    limit = 8_000 - 8_000 // 50
    assert before > limit >= after
    text = _first_text(shrunk)
    assert "step 0: read module_0.py" not in text
    assert all(u[:250] in text for u in USERS)  # the newest first, each its first words
    assert text.index(USERS[2][:40]) < text.index(USERS[0])
    assert len(text) < len(summary.user_item(USERS[2]))  # the long paste cut
    assert "src/parser.py" in text and "tests/test_parser.py" in text
    assert shrunk[0].metadata == _view(400)[0].metadata  # the saved history keeps every word


def test_a_compaction_message_alone_in_the_request_gives_way_too() -> None:
    """A record that covered every step leaves the compaction message alone in the request, the
    newest ask joined to it: a system prompt that nearly fills the window left it over the window,
    sent as it was (a replayed Codex rollout at 32K sent 16 such requests), where the same message
    with a step after it gave way to its floors."""
    first = summary.summary_message(RECORD, None, list(reversed(USERS)), "record", FILES)
    lone = [ModelRequest(parts=[*first.parts, UserPromptPart("now run the parser tests")], metadata=first.metadata)]
    cm = ContextManager(window=8_000)
    cm.overhead = 5_000
    before = cm.measure(lone)
    shrunk, after = shrink_to_fit(cm, list(lone), before)
    assert before > 8_000 - 8_000 // 50 >= after
    text = _first_text(shrunk)
    assert "step 0: read module_0.py" not in text and summary.RECORD_LEFT_OUT in text
    assert all(summary.user_item(u) in text for u in USERS) and "now run the parser tests" in text
    assert "- src/parser.py (edited)" in text


def test_what_is_joined_to_a_lone_compaction_message_folds_as_the_steps_after_it() -> None:
    """Past its floors, a compaction message alone in the request still carried what was joined to
    it whole: the newest request, with a system prompt the harness sends each turn (a replayed Codex
    rollout's developer messages, 2,000 tokens and more a turn). Where one step after the message
    folds into a line, that joined request did not, and the request went over the window (2 of a
    Codex rollout's at 32K). Now it folds as a step: its system prompt leaves, the user's words keep
    a line, and the compaction message's floors stay."""
    first = summary.summary_message(RECORD, None, list(reversed(USERS)), "record", FILES)
    turn = [SystemPromptPart("the permissions of this turn: " + "sandbox rule " * 700),
            UserPromptPart("now run the parser tests")]
    lone = [ModelRequest(parts=[*first.parts, *turn], metadata=first.metadata)]
    cm = ContextManager(window=8_000)
    cm.overhead = 6_000
    before = cm.measure(lone)
    shrunk, after = shrink_to_fit(cm, list(lone), before)
    assert before > 8_000 - 8_000 // 50 >= after
    assert len(shrunk) == 1 and not any(isinstance(p, SystemPromptPart) for p in shrunk[0].parts)
    text = _first_text(shrunk)
    assert summary.RECORD_LEFT_OUT[1:-1] in text and "- src/parser.py (edited)" in text
    assert all(u[:250] in text for u in USERS)  # the compaction message's floors
    assert "the user wrote: now run the parser tests" in text  # the newest ask, a line of the fold
    assert lone[0].parts[-2] is turn[0]  # the saved history keeps it all


def test_the_steps_fold_before_the_users_words_in_the_first_message_are_left_out() -> None:
    """Past the floors, the last resort replaced the compaction message's texts by one line whenever a
    later message held a newer ask: every message the user typed before went from the request (a Codex
    rollout at 32K kept 10% of them after two compactions), though folding the newest steps into a line
    each would have made room. Now the steps fold first, and the first message's texts go only if
    the fold alone leaves the request over."""
    first = summary.summary_message(RECORD, None, list(reversed(USERS)), "record", FILES)
    view = [first, ModelResponse(parts=[TextPart("reading the parser now " * 20),
                                        ToolCallPart("read_file", {"path": "src/parser.py"}, tool_call_id="c1")]),
            ModelRequest(parts=[ToolReturnPart("read_file", "x = 1\n" * 600, tool_call_id="c1"),
                                UserPromptPart("and update the docs too")])]
    limit = 8_000 - 8_000 // 50
    for overhead, users_kept in ((7_400, True), (7_700, False)):
        cm = ContextManager(window=8_000)
        cm.overhead = overhead
        before = cm.measure(view)
        shrunk, after = shrink_to_fit(cm, list(view), before)
        assert before > limit >= after and len(shrunk) == 1  # the steps folded into the first message
        text = _first_text(shrunk)
        assert "the user wrote: and update the docs too" in text  # the newest ask, a line of the fold
        assert all(u[:250] in text for u in USERS) is users_kept
        assert (first_message.LEFT_OUT in text) is not users_kept


MANY = [f"request {i}: please look at module_{i}.py and tidy the error handling there " * 3 for i in range(12)]


def _thinned(overhead: int) -> tuple[str, int, int]:
    first = summary.summary_message(RECORD, None, list(reversed(MANY)), "record", FILES)
    view = [first, ModelResponse(parts=[ToolCallPart("read_file", {"path": "src/parser.py"}, tool_call_id="c1")]),
            ModelRequest(parts=[ToolReturnPart("read_file", "x = 1\n" * 300, tool_call_id="c1")])]
    cm = ContextManager(window=8_000)
    cm.overhead = overhead
    before = cm.measure(view)
    shrunk, after = shrink_to_fit(cm, list(view), before)
    return _first_text(shrunk), before, after


def test_past_the_floors_the_oldest_typed_messages_give_way_before_a_request_passes_the_window() -> None:
    """A system prompt that leaves a few hundred tokens: the compaction message at its floors, the
    steps folded, the request still passed the window, and a provider refuses it (a Codex rollout
    replayed in a 31K window sent 32 such requests, where seed000 sent none). Now the user's
    messages give way, oldest first, down to the newest; then the list of the files changed, its
    number kept. Only to stay inside the window: over the estimate's 2% margin alone, they stay."""
    limit = 8_000 - 8_000 // 50
    text, before, after = _thinned(7_200)
    assert before > 8_000 and after <= limit
    kept = [i for i, u in enumerate(MANY) if u[:200] in text]
    assert kept and kept == list(range(12 - len(kept), 12)) and len(kept) < 12  # the newest, in a row
    assert f"({12 - len(kept)} earlier messages of the user are left out of this request" in text
    assert "- src/parser.py (edited)" in text
    text, before, after = _thinned(7_600)  # the newest alone, and the files by their number: inside the window
    assert before > 8_000 >= after and MANY[11][:200] in text and MANY[10][:200] not in text
    assert "(2 files were changed; the list is left out of this request" in text
    assert "src/parser.py" not in text
    text, before, after = _thinned(7_000)  # over the margin, inside the window: every message stays
    assert limit < after <= 8_000 and all(u[:200] in text for u in MANY)
    text, before, after = _thinned(7_900)  # over the window even at the thinnest: nothing given up for it
    assert after > 8_000 and all(u[:200] in text for u in MANY)


async def test_replayed_in_a_window_its_fixed_prompt_nearly_fills_no_request_passes_it() -> None:
    """The pipeline whole, replayed: 30,000 of a 31,000-token window fixed, forty turns each with a
    typed message of ~360 characters. With the compaction message's floors the last that gave way, 6
    requests passed the window; now none does, and each request holds the user's last message."""
    from compact_agent.config import Settings
    from compact_agent.replay.ours import Ours
    from compact_agent.replay.simulate import replay
    from compact_agent.replay.sizing import TokenModel
    from tests.replay.synthetic import session, sim

    s = sim(31_000, TokenModel(overhead=30_000))
    ours = Ours(s, Settings())
    asks = [(f"ask {i}: " + "please change the parser so that it accepts this case too " * 6, [400] * 3)
            for i in range(40)]
    try:
        run = await replay(session(asks), ours, s)
    finally:
        ours.close()
    assert sum(r.kind == "main" for r in run.requests) == 160 and run.retention
    assert run.over_window == 0
    assert all(r.last_request for r in run.retention)
