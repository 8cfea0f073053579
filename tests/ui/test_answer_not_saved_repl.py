"""The REPL when the disk fills as a turn's answer is saved: the answer, streamed as it came, stays in
the conversation; one line says it was received but not saved; the next message saves it.

Before, the turn went on from the session file, which ends at the user's message: the next request
told the model that turn 'ended before an answer', and /history said `no answer`. A REPL turn appends
three times (the typed message, the request, the answer): `append.partial:3:enospc` fails the third.
"""

from __future__ import annotations

from pathlib import Path

from compact_agent import crashpoints
from compact_agent.session.store import load_session_file
from tests.fakes.openai_server import ChatRequest, Reply, message_text

from .repl_driver import drive


def answer(req: ChatRequest) -> Reply:
    return Reply.text(f"ANSWER to {req.last_user_text()}")


async def test_an_answer_the_repl_could_not_save_is_kept_and_saved_with_the_next_message(tmp_path: Path) -> None:
    crashpoints.configure("append.partial:3:enospc")
    try:
        run = await drive(tmp_path, answer, ["hello\r", "again\r"])
    finally:
        crashpoints.configure("")
    out = " ".join(run.out.split())
    assert "ANSWER to hello" in out and "ANSWER to again" in out, out
    assert ("the model's answer was received but not saved: it is shown above, and your next message saves it with "
            "the conversation if the disk has room by then") in out, out
    assert "Traceback" not in out and "Error" not in out
    second = [(m["role"], message_text(m)) for m in run.server.requests[-1].messages if m["role"] != "system"]
    assert second == [("user", "hello"), ("assistant", "ANSWER to hello"), ("user", "again")], second
    [path] = (tmp_path / "home" / "projects").glob("*/*.jsonl")
    loaded = load_session_file(path)
    said = [getattr(p, "content", None) for m in loaded.messages for p in m.parts]
    assert said == ["hello", "ANSWER to hello", "again", "ANSWER to again"], said
    assert not loaded.warnings

    resumed = await drive(tmp_path, answer, ["more\r"], continue_last=True)
    assert "warning" not in resumed.out and "no answer" not in resumed.out, resumed.out
