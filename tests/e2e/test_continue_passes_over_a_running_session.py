"""`-c` while another run of the same project is still starting (or waiting for its first answer):
it goes on in the newest session the model answered in, and of the newer one it passed over says
that another run has it open, not that `-r ID goes on there` (which that run's lock refuses). It
said `passed over the newer session ID (PROMPT), which it never answered: compact-agent -r ID goes
on there` of a session in use, as of a failed start left behind."""

from __future__ import annotations

from tests.fakes.openai_server import FakeOpenAIServer, Reply, user_messages
from tests.ui.test_typed_prompt_kill import saved

from .test_print_prompt_saved_early import fake, held_run


def test_a_newer_session_open_in_another_run_is_said_to_be_open(cli):
    with FakeOpenAIServer(lambda req: Reply.text("noted")) as server:
        assert cli("-p", "remember PELICAN", *fake(server)).code == 0
        [older] = cli.sessions()
        proc = held_run(cli, "-p", "a long task", *fake(server))
        try:
            running = saved(cli.home, "a long task")
            out = cli("-c", "-p", "and HERON", *fake(server))
        finally:
            proc.kill()
            proc.communicate()
    assert out.code == 0, out.stderr
    [note] = [ln for ln in out.stderr.splitlines() if "passed over" in ln]
    assert note == (f"compact-agent: note: continuing session {older.stem} (remember PELICAN), the newest one the "
                    f"model answered in; passed over the newer session {running.stem} (a long task), open in another "
                    f"run (pid {proc.pid})"), note
    assert [m["content"] for m in user_messages(server.requests[-1])] == ["remember PELICAN", "and HERON"]


def test_a_newer_session_left_unanswered_is_still_offered(cli):
    """A failed start no run holds: `-r ID` goes on there, as before."""
    with FakeOpenAIServer(lambda req: Reply.text("noted")) as server:
        assert cli("-p", "remember PELICAN", *fake(server)).code == 0
        down = cli("-p", "a failed start", "--model", "fake-model", "--base-url", "http://127.0.0.1:9/v1",
                   "--api-key", "k")
        assert down.code != 0
        failed = saved(cli.home, "a failed start")
        out = cli("-c", "-p", "and HERON", *fake(server))
    assert out.code == 0, out.stderr
    assert (f"passed over the newer session {failed.stem} (a failed start), which it never answered: "
            f"compact-agent -r {failed.stem} goes on there") in out.stderr, out.stderr
