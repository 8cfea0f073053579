"""`/resume` and `-r`'s list open a session whose file remembers a value that cannot be used
(`context_window: -3`) as `-r ID -p` does: one line naming the session as where it came from (it
said "(from flag)", no flag given), and the session goes on with the default instead."""

from __future__ import annotations

from .repl_driver import drive
from .test_resume_keeps_options import answer, command_line, said, server, sessions

__all__ = ["server"]  # the fixture

BAD = {"context_window": -3, "ran_with": "fake-model"}


def line_for(first: str) -> str:
    return (f"bad value for context_window (remembered by session {first}): must be a positive number of tokens "
            "(such as 32000, 32k or 128K), not -3; the session goes on with the default")


async def test_resume_says_which_session_remembers_a_bad_window_and_goes_on(tmp_path, server) -> None:
    first, _ = await sessions(tmp_path, server, BAD)
    run = await drive(tmp_path, answer, ["/resume 1\r", "still here?\r", "/model\r"], server=server,
                      continue_last=True, options_for=command_line(tmp_path, server).for_session)
    assert said(run.out, "bad value for context_window").startswith(line_for(first)), run.out
    assert "from flag" not in run.out and f"resumed session {first}" in run.out
    assert "now: fake-model (OpenAI-compatible) · window 32,768" in run.out and run.prompts[-1] == "still here?", run.out


async def test_a_session_picked_from_the_list_says_so_too(tmp_path, server) -> None:
    first, _ = await sessions(tmp_path, server, BAD)
    run = await drive(tmp_path, answer, ["2\r", "/model\r"], server=server, pick_session=True,
                      options_for=command_line(tmp_path, server).for_session)
    assert said(run.out, "bad value for context_window").startswith(line_for(first)), run.out
    assert f"window 32,768 (assumed) · session {first}" in run.out, run.out
