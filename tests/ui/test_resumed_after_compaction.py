"""What `-c` shows of a session last compacted: the round a compaction keeps verbatim is carried in
its message, after the summary, and the answer follows it. The last exchanges left that prompt out
with the summary, so a session resumed right after a compaction showed nothing of where the work
stopped. A prompt kept before `/compact --from N`, whose answer went into the summary, is not shown
as one that got no answer."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from compact_agent.ui.history_view import last_exchanges
from tests.e2e.scripted import is_notes_request, is_summary_request
from tests.fakes.openai_server import FakeOpenAIServer, Reply

from .test_commands_terminal import session


def answer(req) -> Reply:
    if is_summary_request(req):
        return Reply.text("<summary>1. Primary Request and Intent: short summary.</summary>")
    if is_notes_request(req):
        return Reply.text("")
    return Reply.text(f"answer to {req.last_user_text()} " + "ok " * 1500)


async def test_the_round_a_compaction_kept_is_the_last_exchange(tmp_path) -> None:
    with FakeOpenAIServer(answer) as server:
        s = session(tmp_path, server)
        try:
            await s.run_turn("turn a")
            await s.run_turn("turn b")
            await s.compact()
            assert len(s.messages) == 2, s.messages  # the summary's message, carrying `turn b`, and its answer
            shown = last_exchanges(s.messages)
        finally:
            s.close()
    assert shown[0] == "› turn b" and shown[1].startswith("  answer to turn b ok ok"), shown
    assert len(shown) == 2, shown


async def test_a_prompt_whose_answer_went_into_the_summary_is_not_unanswered(tmp_path) -> None:
    with FakeOpenAIServer(answer) as server:
        s = session(tmp_path, server)
        try:
            for words in ("first one", "second one", "third one"):
                await s.run_turn(words)
            await s.compact(pivot=3, direction="from")  # `/compact --from 3`: `second one` kept, its answer summarised
            shown = last_exchanges(s.messages)
        finally:
            s.close()
    assert shown[0] == "› first one" and shown[1].startswith("  answer to first one"), shown
    # The answer `--from N` keeps after the summary is the last turn's, under its prompt (which the
    # summary quotes), not under `second one`, the prompt kept before the summary.
    assert shown[2:3] == ["› third one"] and shown[3].startswith("  answer to third one"), shown
    assert len(shown) == 4 and "no answer" not in " ".join(shown), shown


async def resumed_after_a_turn_compacted_as_it_ran(tmp_path: Path, keys: list[str]) -> Any:
    """The REPL resumed with `-c`, typing `keys`, after a long turn in a 16K window that was compacted
    while it ran (its prompt then only among the user's messages the summary quotes)."""
    from compact_agent.config import Settings
    from tests.e2e.scripted import FileTaskAgent, make_project, task_text
    from tests.ui.repl_driver import drive

    (tmp_path / "project").mkdir()
    make_project(tmp_path / "project", 40, 6000)
    agent = FileTaskAgent(40)
    with FakeOpenAIServer(agent, window=16_000) as server:
        s = session(tmp_path, server, context_window=16_000, permission_mode="yes",
                    settings=Settings(memory_enabled=False, collapse_enabled=False))
        try:
            done = await s.run_turn(task_text(40))
            assert s.cm.compactions and done.output == "FINAL SUM: 9460", done.output
        finally:
            s.close()
        return await drive(tmp_path, agent, keys, server=server, continue_last=True, context_window=16_000)


async def test_a_turn_compacted_as_it_ran_is_the_last_exchange_shown_on_resume(tmp_path) -> None:
    """A long turn in a small window is compacted while it runs: its prompt is then only among the
    user's messages the summary quotes, and the model's work goes on after it. `-c` showed nothing of
    that session, neither the prompt nor the answer the turn ended with."""
    from tests.e2e.scripted import task_text

    run = await resumed_after_a_turn_compacted_as_it_ran(tmp_path, [])
    lines = [line.strip() for line in run.out.splitlines() if line.strip()]
    assert lines[1:3] == [f"› {task_text(40)}", "⏺ FINAL SUM: 9460"], run.out
