"""Tab completes the first argument of `/resume` (the ids of the project's other sessions, newest
first, each with its first prompt beside it) and of `/model` (the known models): it offered nothing
there, and a session id of 22 characters had to be copied from `/resume`'s list."""

from __future__ import annotations

import os
from pathlib import Path

from prompt_toolkit.completion import CompleteEvent
from prompt_toolkit.document import Document
from pydantic_ai.messages import ModelRequest, UserPromptPart

from compact_agent.session.store import SessionStore
from compact_agent.ui.prompt_input import ReplCompleter, command_arguments
from tests.fakes.openai_server import Reply

from .repl_driver import drive

OLDER, NEWER, IN_USE = "20261201-090000-aaaaaa", "20261202-090000-bbbbbb", "20261203-090000-cccccc"


def offered(comp: ReplCompleter, line: str) -> list[tuple[str, str]]:
    """Each value Tab offers after `line`, with its note, as the line would read with it."""
    found = comp.get_completions(Document(line), CompleteEvent(completion_requested=True))
    return [(line[: len(line) + c.start_position] + c.text, c.display_meta_text) for c in found]


def sessions(root: Path) -> None:
    for n, (sid, prompt) in enumerate([(OLDER, "fix the parser"), (NEWER, "write the docs"), (IN_USE, "now")]):
        store = SessionStore(root, sid)
        store.append([ModelRequest(parts=[UserPromptPart(prompt)])])
        os.utime(store.path, (1_000_000 + n, 1_000_000 + n))
    (root / "20261204-090000-dddddd.jsonl").write_bytes(b"\x00\x01 not a session\n")


def test_resume_completes_the_other_sessions_ids(tmp_path: Path) -> None:
    sessions(tmp_path)
    comp = ReplCompleter(["resume", "model"], tmp_path, command_arguments(tmp_path, lambda: IN_USE))
    assert offered(comp, "/resume ") == [(f"/resume {NEWER}", "write the docs"),
                                         (f"/resume {OLDER}", "fix the parser")]
    assert offered(comp, "/resume 20261201") == [(f"/resume {OLDER}", "fix the parser")]
    assert offered(comp, "/resume 2026120x") == []
    assert offered(comp, "/resume 2026120") == offered(comp, "/resume ")  # in use and not a session: left out


def test_model_completes_the_known_models(tmp_path: Path) -> None:
    comp = ReplCompleter(["resume", "model"], tmp_path, command_arguments(tmp_path))
    assert [line for line, _ in offered(comp, "/model deepseek-")] == ["/model deepseek-chat", "/model deepseek-reasoner"]
    assert offered(comp, "/model deepseek-r") == [("/model deepseek-reasoner", "deepseek · window 128,000")]
    assert offered(comp, "/model --window") == []  # an option typed whole: nothing to add (its Tab: test_option_completion.py)
    assert [line for line, _ in offered(comp, "/mo")] == ["/model"]  # the command's name as before


async def test_the_repl_resumes_a_session_by_a_completed_id(tmp_path: Path) -> None:
    def ok(req) -> Reply:
        return Reply.text("noted")

    await drive(tmp_path, ok, ["the first session\r"])
    [first] = [p.stem for p in (tmp_path / "home" / "projects").glob("*/*.jsonl")]
    run = await drive(tmp_path, ok, [[f"/resume {first[:9]}", "\t", "\r"]])
    assert f"resumed session {first} (2 messages)" in run.out, run.out
    [history] = (tmp_path / "home" / "projects").glob("*/prompt_history")
    assert f"/resume {first}" in history.read_text()  # the line as Tab left it, the id whole
