"""`/rewind N` puts the prompt back in the input as it was shown when sent: a large paste in it as
its placeholder, one unit, that goes whole with Enter. The input used to get the checkpoint's
preview: the first 120 characters of the prompt on one line and `…`, which Enter then sent."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from tests.fakes.openai_server import FakeOpenAIServer, Reply

from .repl_driver import drive, pasted

LOG = "".join(f"log line {i:02d} of the build\n" for i in range(20))
ASKED = "look: " + LOG + " what failed?"


def answer(req: Any) -> Reply:
    return Reply.text(f"ANSWER {len(req.last_user_text())}")


def in_the_input(shown: list[str]) -> Any:
    """What the input holds at each prompt (the REPL's key reader gives it the text it starts with)."""
    def look() -> None:
        from compact_agent.ui.command_registry import current_repl

        repl = current_repl()
        keys = getattr(repl, "keys", None)
        shown.append(keys.typed if keys is not None else "")
    return look


async def test_a_rewound_paste_comes_back_as_its_placeholder(tmp_path: Path) -> None:
    shown: list[str] = []
    run = await drive(tmp_path, answer, ["look: " + pasted(LOG) + " what failed?\r", "/rewind 0\r", "\r"],
                      answers="y\n", at_prompt=in_the_input(shown))
    assert shown[2] == "look: [pasted 20 lines] what failed?", shown  # the prompt after /rewind
    # Enter sends it whole, into the rewound conversation, as the first message did
    assert [r.last_user_text() for r in run.server.requests] == [ASKED, ASKED]
    assert "log line 05" not in run.out and "…" not in run.out.split("rewound;")[1], run.out


async def test_a_long_typed_prompt_comes_back_whole(tmp_path: Path) -> None:
    long = "please " + "rename the helper and update its callers, " * 6 + "then run the tests"
    run = await drive(tmp_path, answer, [long + "\r", "/rewind 0\r", "\r"], answers="y\n")
    # not its first 120 characters and '…'
    assert [r.last_user_text() for r in run.server.requests] == [long, long]


async def test_a_resumed_sessions_paste_comes_back_whole_behind_a_placeholder(tmp_path: Path) -> None:
    shown: list[str] = []
    with FakeOpenAIServer(answer) as server:
        await drive(tmp_path, answer, ["look: " + pasted(LOG) + " what failed?\r"], server=server)
        run = await drive(tmp_path, answer, ["/rewind 0\r", "\r"], server=server, answers="y\n",
                          at_prompt=in_the_input(shown), continue_last=True)
    assert shown[1] == "[pasted 21 lines]", shown  # typed in another run: which part was pasted is not known
    assert [r.last_user_text() for r in run.server.requests][-1] == ASKED


async def test_a_custom_command_comes_back_as_it_was_typed(tmp_path: Path) -> None:
    folder = tmp_path / "project" / ".compact-agent" / "commands"
    folder.mkdir(parents=True)
    (folder / "review.md").write_text("Review the code in $ARGUMENTS.\n" + "Look for bugs.\n" * 30)
    shown: list[str] = []
    await drive(tmp_path, answer, ["/review src\r", "/rewind 0\r", "\r"], answers="y\n",
                at_prompt=in_the_input(shown))
    assert shown[2] == "/review src", shown  # not the command's 31 lines
