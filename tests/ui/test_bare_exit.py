"""`exit` or `quit` alone at the prompt leaves as /exit does: a newcomer types it as at a shell, and
it went to the model as a message, costing a request. Anything longer is a message as before."""

from __future__ import annotations

from tests.fakes.openai_server import Reply

from .repl_driver import drive


def ok(req) -> Reply:
    return Reply.text("ok")


def saved(tmp_path) -> str:
    return "".join(p.read_text() for p in (tmp_path / "home" / "projects").glob("*/*.jsonl"))


async def test_exit_alone_leaves_as_slash_exit_does(tmp_path):
    run = await drive(tmp_path, ok, ["hello\r", "exit\r", "not sent\r"])
    assert run.prompts == ["hello"], run.prompts  # neither `exit` nor the line after it was sent
    assert len(run.server.requests) == 1
    assert "resume this session with: compact-agent --resume " in run.out  # the goodbye /exit says
    assert '"exit"' not in saved(tmp_path)  # not kept as a message typed and unanswered either


async def test_any_case_and_spaces_around_it(tmp_path):
    for i, word in enumerate(["  QUIT  ", "Exit", "quit"]):
        (home := tmp_path / str(i)).mkdir()
        run = await drive(home, ok, [f"{word}\r", "not sent\r"])
        assert run.prompts == [] and run.server.requests == [], word


async def test_a_longer_line_is_a_message(tmp_path):
    run = await drive(tmp_path, ok, ["exit the loop early\r", "quit()\r"])
    assert run.prompts == ["exit the loop early", "quit()"]


async def test_help_says_exit_or_quit_leaves(tmp_path):
    run = await drive(tmp_path, ok, ["/help\r", "exit\r"])
    assert "exit or quit alone" in " ".join(run.out.split()), run.out
