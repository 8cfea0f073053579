"""A custom command is listed as the user typed it, `/review q.py`, wherever past prompts are: the
resumed session's last exchanges, `/history`, the sessions list (`/rewind`'s list: its own test),
also after `-p "/review q.py"`, unless something piped went with it (the line would hide it).
They showed the command file's text, the prompt the model got ('Review the code in q.py. Look for
bugs. …'): two runs of one command read alike, and neither as what was typed. The model still gets
the file's text."""

from __future__ import annotations

import asyncio
import contextlib
import io
from pathlib import Path
from typing import Any

from compact_agent.agent.run.options import SessionOptions, session_root
from compact_agent.config import Settings
from compact_agent.ui.print_mode import run_print
from compact_agent.ui.sent_record import shown_as
from compact_agent.ui.sessions_list import session_rows
from tests.fakes.openai_server import FakeOpenAIServer, Reply

from .repl_driver import drive, user_messages

TEXT = "Review the code in $ARGUMENTS.\n" + "Look for bugs.\n" * 30


def answer(req: Any) -> Reply:
    return Reply.text("ANSWER")


async def test_past_prompts_show_the_command_typed(tmp_path: Path) -> None:
    folder = tmp_path / "project" / ".compact-agent" / "commands"
    folder.mkdir(parents=True)
    (folder / "review.md").write_text(TEXT)
    with FakeOpenAIServer(answer) as server:
        run = await drive(tmp_path, answer, ["/review q.py\r", "/review r.py\r", "/history\r"], server=server)
        assert [p.splitlines()[0] for p in run.prompts] == ["Review the code in q.py.", "Review the code in r.py."]
        assert "you          /review q.py\n" in run.out and "you          /review r.py\n" in run.out, run.out
        assert "Look for bugs" not in run.out.split("messages (the numbers")[1], run.out
        again = await drive(tmp_path, answer, ["/history\r"], server=server, continue_last=True)
    resumed, history = again.out.split("messages (the numbers")
    assert "› /review q.py\n" in resumed and "› /review r.py\n" in resumed, resumed
    assert "Look for bugs" not in again.out, again.out
    assert "you          /review q.py\n" in history and "you          /review r.py\n" in history, history
    rows = session_rows(session_root((tmp_path / "project").resolve(), tmp_path / "home"))
    assert [r.first_prompt for r in rows] == ["/review q.py"]


def test_a_print_mode_command_is_listed_as_typed(tmp_path: Path) -> None:
    folder = tmp_path / "project" / ".compact-agent" / "commands"
    folder.mkdir(parents=True)
    (folder / "review.md").write_text(TEXT)
    with FakeOpenAIServer(answer) as server:
        def run(prompt: str, piped: str = "") -> None:
            opts = SessionOptions(cwd=tmp_path / "project", model="fake-model", base_url=server.base_url, api_key="k",
                                  home=tmp_path / "home", settings=Settings(memory_enabled=False))
            with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
                assert asyncio.run(run_print(opts, prompt + piped, typed=prompt)) == 0

        run("/review q.py")
        run("/review r.py", piped="\nthe diff piped in")  # the line would hide what was piped: as sent
        run("/review s.py\nand its tests")  # nor a line typed after it
    root = session_root((tmp_path / "project").resolve(), tmp_path / "home")
    rows = session_rows(root)
    assert [r.first_prompt.split(" Look")[0] for r in rows] == ["Review the code in s.py.", "Review the code in r.py.",
                                                               "/review q.py"], rows
    sent = user_messages(server)
    assert shown_as(root, rows[2].id)(sent[0]) == "/review q.py" and shown_as(root, rows[1].id)(sent[1]) == sent[1]
    assert sent[2].endswith("\n\nand its tests") and shown_as(root, rows[0].id)(sent[2]) == sent[2]



def test_continue_past_a_failed_command_names_it_as_typed(tmp_path: Path) -> None:
    """`-c` past a failed start said `(Review the code in r.py. Look for…)` of a session the
    sessions list names `/review r.py`: it names each session as the list does."""
    from compact_agent.cli_resume import continued_note
    from compact_agent.session.answered import continued
    from compact_agent.session.files import list_sessions

    folder = tmp_path / "project" / ".compact-agent" / "commands"
    folder.mkdir(parents=True)
    (folder / "review.md").write_text(TEXT)
    with FakeOpenAIServer(answer) as server:
        def run(prompt: str, model: str = "fake-model") -> int:
            opts = SessionOptions(cwd=tmp_path / "project", model=model, base_url=server.base_url, api_key="k",
                                  home=tmp_path / "home", settings=Settings(memory_enabled=False))
            with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
                return asyncio.run(run_print(opts, prompt, typed=prompt))

        assert run("/review q.py") == 0  # answered
        assert run("/review r.py", model="fake-modle") == 1  # a model the server does not have
    root = session_root((tmp_path / "project").resolve(), tmp_path / "home")
    failed, answered = [r.id for r in session_rows(root)]
    chosen = continued(list_sessions(root))
    assert chosen.path is not None and chosen.path.stem == answered
    assert continued_note(root, chosen) == (
        f"continuing session {answered} (/review q.py), the newest one the model answered in; passed over the newer "
        f"session {failed} (/review r.py), which it never answered: compact-agent -r {failed} goes on there")
