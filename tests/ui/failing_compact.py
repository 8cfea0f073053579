"""A session whose /compact fails: a project with notes.txt, and the fake OpenAI server whose agent
reads it and answers at length while every summary request fails with HTTP 500 (its body the fake
server's own, or the provider's `said` message). `NO_RETRIES`: the settings that say the failure at
once (no retries, no session notes)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from compact_agent.config import Settings
from tests.e2e.scripted import is_summary_request
from tests.fakes.openai_server import FakeOpenAIServer, Fault, Reply

NO_RETRIES = Settings(memory_enabled=False, max_retries=0, transient_retries=0)


def failing_summaries(tmp_path: Path, said: str | None = None) -> FakeOpenAIServer:
    (tmp_path / "project").mkdir()
    (tmp_path / "project" / "notes.txt").write_text("alpha\n" * 200)
    body = None if said is None else {"error": {"message": said, "type": "server_error"}}

    def responder(req: Any) -> Reply:
        if not any(m.get("role") == "tool" for m in req.messages):
            return Reply.tools([("read_file", {"path": "notes.txt"})])
        return Reply.text("read it " * 200)

    def faults(req: Any, attempt: int) -> Fault | None:
        return Fault.http(500, body) if is_summary_request(req) else None

    return FakeOpenAIServer(responder, faults=faults)
