"""`/sessions`, the name of the subcommand that lists them, typed as a slash command: the REPL
pointed at /permissions (the closest name), print mode at nothing. The REPL names /resume, which
lists them there; print mode names `compact-agent sessions` and how it resumes one."""

from __future__ import annotations

from compact_agent.ui.print_commands import refusal
from tests.fakes.openai_server import FakeOpenAIServer

from .test_command_edges import show
from .test_commands_terminal import answer, session


async def test_sessions_in_the_repl_names_resume(tmp_path):
    with FakeOpenAIServer(answer) as server:
        s = session(tmp_path, server)
        try:
            assert await show(s, "/sessions") == "unknown command /sessions (did you mean /resume?); /help lists them"
            assert "did you mean /resume?" in await show(s, "/session")
            assert "did you mean /status?" in await show(s, "/statsu")  # a typo is still a typo
            assert not server.requests
        finally:
            s.close()


def test_sessions_in_print_mode_names_the_subcommand(tmp_path):
    assert refusal("/sessions", tmp_path) == (
        "unknown command /sessions: compact-agent sessions lists the sessions, and resume with -r ID (or -c "
        "for the latest) and -p (nothing was sent)")
    assert refusal("/exti", tmp_path) == "unknown command /exti; did you mean /exit? (nothing was sent)"
