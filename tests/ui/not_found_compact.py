"""A /compact whose summary request answers HTTP 404, after two turns, in print mode and in the REPL:
what the tests of how its line names the model's choice share. The fake OpenAI server answers every
turn at length and every summary request with the 404 of a model it does not serve, its message
naming the model asked."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest

from compact_agent.agent.run.options import SessionOptions
from compact_agent.config import Settings
from compact_agent.settings_file import Loaded
from compact_agent.ui.print_mode import run_print
from tests.e2e.scripted import is_summary_request
from tests.fakes.openai_server import FakeOpenAIServer, Fault, Reply

from .repl_driver import Run, drive

SETTINGS = Settings(model="fake-model", memory_enabled=False, max_retries=0, transient_retries=0)


def gone(model: str) -> dict[str, Any]:
    return {"error": {"message": f"The model `{model}` does not exist", "type": "invalid_request_error",
                      "code": "model_not_found"}}


def not_found_server() -> FakeOpenAIServer:
    def responder(req: Any) -> Reply:
        return Reply.text("the answer, said at some length. " * 300)

    return FakeOpenAIServer(responder, lists_models=False,
                            faults=lambda req, attempt: Fault.http(404, gone(req.body["model"])) if is_summary_request(req) else None)


def compact_in_print_mode(tmp_path: Path, capsys: pytest.CaptureFixture[str], config: Loaded,
                          settings: Settings = SETTINGS) -> tuple[str, set[str]]:
    """`-p "tell me things"`, `-c -p "and more"` (both answered), then `-c -p /compact`, which fails
    (exit 1): its stderr, and the models the summary requests asked for."""
    (tmp_path / "project").mkdir()
    with not_found_server() as server:
        opts = SessionOptions(cwd=tmp_path / "project", model="fake-model", base_url=server.base_url, api_key="k",
                              home=tmp_path / "home", settings=settings, config=config)
        assert asyncio.run(run_print(opts, "tell me things")) == 0
        assert asyncio.run(run_print(SessionOptions(**{**opts.__dict__, "continue_last": True}), "and more")) == 0
        capsys.readouterr()
        assert asyncio.run(run_print(SessionOptions(**{**opts.__dict__, "continue_last": True}), "/compact")) == 1
    return capsys.readouterr().err, {r.body["model"] for r in server.requests if is_summary_request(r)}


async def compact_in_the_repl(tmp_path: Path, config: Loaded, settings: Settings = SETTINGS) -> Run:
    """Two turns typed in the REPL, then /compact."""
    with not_found_server() as server:
        return await drive(tmp_path, server.responder, ["tell me things\r", "and more\r", "/compact\r"], server=server,
                           config=config, settings=settings)
