"""`/rewind` lists a prompt, and asks before rewinding to it, as it was shown when sent: a question
typed under a pasted log as 'look: [pasted 20 lines] what failed?', a custom command as typed. The
list showed the checkpoint's preview, the log's first words ('look: log line 00 of the build log
line 01 …'): the question, what tells one such turn from another, was out of sight, and the line did
not match the transcript above it."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from tests.fakes.openai_server import FakeOpenAIServer, Reply

from .repl_driver import drive, pasted

LOG = "".join(f"log line {i:02d} of the build\n" for i in range(20))
SHOWN = "look: [pasted 20 lines] what failed?"


def answer(req: Any) -> Reply:
    return Reply.text("ANSWER")


async def test_the_list_and_the_question_show_the_prompt_as_sent(tmp_path: Path) -> None:
    folder = tmp_path / "project" / ".compact-agent" / "commands"
    folder.mkdir(parents=True)
    (folder / "review.md").write_text("Review the code in $ARGUMENTS.\n" + "Look for bugs.\n" * 30)
    with FakeOpenAIServer(answer) as server:
        run = await drive(tmp_path, answer, ["look: " + pasted(LOG) + " what failed?\r", "/review src\r", "/rewind\r",
                                             "/rewind 0\r"], server=server, answers="n\n")
        assert f"    0  › {SHOWN}\n" in run.out and "    1  › /review src\n" in run.out, run.out
        assert f"rewind to before “{SHOWN}”?" in run.out and "log line 01" not in run.out, run.out
        # a later run (-c) lists them from the record the run that sent them kept
        again = await drive(tmp_path, answer, ["/rewind\r"], server=server, continue_last=True)
    assert f"    0  › {SHOWN}\n" in again.out and "    1  › /review src\n" in again.out, again.out
