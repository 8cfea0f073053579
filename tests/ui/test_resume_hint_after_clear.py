"""The goodbye offers `-c` only for the session `-c` opens. After `/clear` and `/resume` back to the
first session, the session `/clear` started is the newest: '(or -c for the newest)' under the first
session's `--resume` sent the user to the other one."""

from __future__ import annotations

from pathlib import Path

from compact_agent.session.answered import continued_id
from tests.fakes.openai_server import Reply

from .repl_driver import drive


def hint(out: str) -> list[str]:
    lines = [line.rstrip() for line in out.splitlines()]
    return lines[next(i for i, line in enumerate(lines) if line.startswith("resume this session with:")):]


def sessions(tmp_path: Path) -> Path:
    [root] = (tmp_path / "home" / "projects").glob("*")
    return root


async def test_back_in_an_older_session_the_goodbye_does_not_offer_c(tmp_path: Path) -> None:
    run = await drive(tmp_path, lambda req: Reply.text("ok"), ["first\r", "/clear\r", "second\r", "/resume 1\r"])
    first = run.out.split("resumed session ", 1)[1].split()[0]
    newest = continued_id(sessions(tmp_path))
    assert newest is not None and newest != first, run.out  # -c opens the session /clear started
    assert hint(run.out) == [f"resume this session with: compact-agent --resume {first}"], run.out


async def test_once_it_is_written_to_again_it_is_the_newest(tmp_path: Path) -> None:
    run = await drive(tmp_path, lambda req: Reply.text("ok"),
                      ["first\r", "/clear\r", "second\r", "/resume 1\r", "third\r"])
    first = run.out.split("resumed session ", 1)[1].split()[0]
    assert continued_id(sessions(tmp_path)) == first
    assert hint(run.out) == [f"resume this session with: compact-agent --resume {first}  (or -c for the newest)"]
