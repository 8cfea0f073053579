"""The program's close of a turn that got no answer (agent/run/unfinished.py) is no message: two
typed prompts that both failed were listed `oops (unanswered) 3 messages`, the close between them
counted as one. The unanswered state is the listing's mark, not a message."""

from __future__ import annotations

from pathlib import Path

from pydantic_ai.messages import ModelRequest, ModelResponse, TextPart, UserPromptPart

from compact_agent.agent.run.unfinished import unanswered_close
from compact_agent.session import listing
from compact_agent.session.store import SessionStore
from tests.fakes.openai_server import Reply
from tests.ui.repl_driver import drive


def refuses(req) -> Reply:
    return Reply.error(400, {"error": {"message": "no", "type": "invalid_request_error"}})


async def test_two_prompts_that_got_no_answer_are_two_messages(tmp_path: Path) -> None:
    run = await drive(tmp_path, refuses, ["oops\r", "again\r"])
    [path] = [p for p in (tmp_path / "home").rglob("*.jsonl") if p.parent.parent.name == "projects"]
    listed = listing.scan(path)
    assert (listed.prompt, listed.shown, listed.replied) == ("oops", 2, False), (listed, run.out)
    switched = await drive(tmp_path, refuses, [f"/resume {path.stem}\r"])
    assert f"resumed session {path.stem} (2 messages)" in switched.out, switched.out


def test_a_close_kept_by_a_compaction_is_not_counted_either(tmp_path: Path) -> None:
    """A rewrite's count of what it wrote leaves the closes out as the scan does: a session
    compacted to [summary, prompt, close, prompt] goes on counting from what it had."""
    store = SessionStore(tmp_path, "20261204-1200-ab12")
    asked = ModelRequest(parts=[UserPromptPart("first")])
    store.append([asked, ModelResponse(parts=[TextPart("done")])])
    late = ModelRequest(parts=[UserPromptPart("late")])
    close = unanswered_close([late])
    assert close is not None
    store.append([late, close])
    assert listing.scan(store.path).shown == 3
    store.rewrite({"trigger": "manual", "strategy": "full", "tokens_before": 9, "tokens_after": 3},
                  [ModelRequest(parts=[UserPromptPart("summary")]), late, close])
    store.append([ModelRequest(parts=[UserPromptPart("next")])])
    assert listing.scan(store.path).shown == 4


async def test_history_numbers_the_close_of_a_turn_as_compact_counts_it(tmp_path: Path) -> None:
    """`/history` left the close unnumbered and its numbers went 0, `no answer`, 2: they are the
    positions `/compact --from N` and `--up-to N` take, and the close is at 1."""
    run = await drive(tmp_path, refuses, ["oops\r", "again\r", "/history\r", "/compact --from 3\r"])
    rows = run.out[run.out.index("messages (the numbers"):].splitlines()[1:4]
    assert [" ".join(r.split()) for r in rows] == [
        "0 you oops", "1 no answer the turn was interrupted, hit its request limit, or failed", "2 you again"], run.out
    assert "--from takes 0 to 2 here" in run.out, run.out  # every number shown, and none other
