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


async def test_a_resumed_sessions_paste_comes_back_as_it_was_shown(tmp_path: Path) -> None:
    """After `-c` the prompt came back as `[pasted 21 lines]`: the question typed under the log
    hidden in the placeholder with it. The run that sent it notes which parts were pasted."""
    shown: list[str] = []
    with FakeOpenAIServer(answer) as server:
        await drive(tmp_path, answer, ["look: " + pasted(LOG) + " what failed?\r"], server=server)
        run = await drive(tmp_path, answer, ["/rewind 0\r", "\r"], server=server, answers="y\n",
                          at_prompt=in_the_input(shown), continue_last=True)
    assert shown[1] == "look: [pasted 20 lines] what failed?", shown  # as this run would give it back
    assert [r.last_user_text() for r in run.server.requests][-1] == ASKED
    [record] = (tmp_path / "home" / "projects").glob("*/sent_prompts/*.jsonl")
    assert "log line 05" not in record.read_text()  # the paste is the conversation's, not copied


async def test_a_resumed_command_comes_back_as_typed_and_an_unnoted_paste_whole(tmp_path: Path) -> None:
    folder = tmp_path / "project" / ".compact-agent" / "commands"
    folder.mkdir(parents=True)
    (folder / "review.md").write_text("Review the code in $ARGUMENTS.\n" + "Look for bugs.\n" * 30)
    shown: list[str] = []
    with FakeOpenAIServer(answer) as server:
        await drive(tmp_path, answer, ["/review src\r"], server=server)
        await drive(tmp_path, answer, ["/rewind 0\r", "\x03"], server=server, answers="y\n",
                    at_prompt=in_the_input(shown), continue_last=True)
        assert shown[1] == "/review src", shown  # was the command's 31 lines behind a placeholder
        await drive(tmp_path, answer, ["look: " + pasted(LOG) + " what failed?\r"], server=server)
        for record in (tmp_path / "home" / "projects").glob("*/sent_prompts/*.jsonl"):
            record.unlink()  # sent by a version that kept no record
        run = await drive(tmp_path, answer, ["/rewind 0\r", "\r"], server=server, answers="y\n",
                          at_prompt=in_the_input(shown := []), continue_last=True)
    assert shown[1] == "[pasted 21 lines]", shown  # which part was pasted is not known: whole, one unit
    assert [r.last_user_text() for r in run.server.requests][-1] == ASKED


async def test_a_custom_command_comes_back_as_it_was_typed(tmp_path: Path) -> None:
    folder = tmp_path / "project" / ".compact-agent" / "commands"
    folder.mkdir(parents=True)
    (folder / "review.md").write_text("Review the code in $ARGUMENTS.\n" + "Look for bugs.\n" * 30)
    shown: list[str] = []
    await drive(tmp_path, answer, ["/review src\r", "/rewind 0\r", "\r"], answers="y\n",
                at_prompt=in_the_input(shown))
    assert shown[2] == "/review src", shown  # not the command's 31 lines


def test_a_noted_prompt_takes_its_pastes_from_the_conversation(tmp_path: Path) -> None:
    from compact_agent.ui import sent_record

    noted = sent_record.note("see [pasted 20 lines]", {"[pasted 20 lines]": LOG})  # sent stripped: its last line break gone
    assert noted.pastes(("see " + LOG).strip()) == {"[pasted 20 lines]": LOG}
    assert noted.pastes("see something else") is None  # not this prompt: it comes back as before
    sent_record.save(tmp_path, "s1", 3, "see log line 00", noted)
    path = tmp_path / "sent_prompts" / "s1.jsonl"
    path.write_text(path.read_text() + '{"checkpoint": 3, "preview": "see log line 00", "line"\n')  # cut by a kill
    assert sent_record.load(tmp_path, "s1", 3, "see log line 00") == noted
    assert sent_record.load(tmp_path, "s1", 3, "another prompt") is None
    assert sent_record.load(tmp_path, "../s1", 3, "see log line 00") is None
