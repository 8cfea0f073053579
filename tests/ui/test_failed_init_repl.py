"""`/init` as the first thing in the REPL, refused for its key: the session held the program's request
alone and stayed (`resume this session with: …`). It goes as the REPL ends, and the line typed stays
in the up-arrow history; a prompt typed after it keeps the session."""

from __future__ import annotations

from tests.fakes.openai_server import Reply

from .repl_driver import drive


def bad_key(req) -> Reply:
    return Reply.error(401, {"error": {"message": "Incorrect API key provided", "type": "invalid_request_error",
                                       "code": "invalid_api_key"}})


async def test_a_failed_init_leaves_no_session_but_its_line_in_the_history(tmp_path):
    run = await drive(tmp_path, bad_key, ["/init\r"], answers="y\n")
    projects = tmp_path / "home" / "projects"
    assert "rejected the API key" in run.out
    assert list(projects.glob("*/*.jsonl")) == [] and "resume this session" not in run.out, run.out
    [history] = projects.glob("*/prompt_history")
    assert "/init" in history.read_text()


async def test_a_prompt_typed_after_it_keeps_the_session(tmp_path):
    run = await drive(tmp_path, bad_key, ["/init\r", "explain PELICAN\r"], answers="y\n")
    [path] = (tmp_path / "home" / "projects").glob("*/*.jsonl")
    assert "explain PELICAN" in path.read_text() and "resume this session" in run.out
