"""In the REPL, the lines after a model the server does not serve name what the user can do there,
and the endpoint as it was given. A session whose endpoint came from OPENAI_BASE_URL was told to
'check that --base-url is the server's API address', and 'NAME, remembered by the session; -m sets
another' in the REPL, where `/model NAME` sets another; and `/model NAME` checked the name against
the server's list only with --base-url, so a name the server at OPENAI_BASE_URL does not serve was
switched to and the next message failed. Real HTTP: the fake OpenAI server at OPENAI_BASE_URL, the
real REPL on a pipe."""

from __future__ import annotations

import io
import re
import time
from pathlib import Path

import pytest
from prompt_toolkit.input import create_pipe_input
from prompt_toolkit.output import DummyOutput
from rich.console import Console

from compact_agent.agent.run.options import SessionOptions
from compact_agent.config import Settings
from compact_agent.settings_file import Loaded
from compact_agent.ui.command_registry import current_repl
from compact_agent.ui.repl import run_repl
from tests.fakes.openai_server import FakeOpenAIServer, Reply

from .repl_driver import EOF_KEY, Typist


async def repl(tmp_path: Path, server: FakeOpenAIServer, model: str, source: str, keys: list[str],
               monkeypatch: pytest.MonkeyPatch) -> str:
    """The REPL of a session of `model` (chosen by `source`: "flag", "session") whose endpoint is
    given by OPENAI_BASE_URL alone, `keys` typed at its prompts; what it showed, on one line."""
    monkeypatch.setenv("OPENAI_BASE_URL", server.base_url)
    cwd, home = tmp_path / "project", tmp_path / "home"
    cwd.mkdir(exist_ok=True)
    loaded = Loaded(Settings(model=model), {"model": source}, home / "config.toml", cwd / ".compact-agent.toml")
    opts = SessionOptions(cwd=cwd, model=model, api_key="k", home=home, config=loaded)
    console = Console(record=True, width=200, file=io.StringIO(), force_terminal=False)
    todo = list(keys)
    with create_pipe_input() as inp:
        typist = Typist(inp, 0.2)
        await run_repl(opts, console=console, inp=inp, output=DummyOutput(),
                       before_prompt=lambda: typist.type(todo.pop(0) if todo else EOF_KEY), clock=time.monotonic,
                       ask_stream=io.StringIO(""))
    assert current_repl() is None  # the REPL is gone from the list the lines read
    return " ".join(console.export_text().split())


async def test_model_switch_is_checked_against_the_list_of_the_server_at_openai_base_url(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    with FakeOpenAIServer(lambda req: Reply.text("ok"), model="gpt-4o", serves=["qwen-small"]) as server:
        said = await repl(tmp_path, server, "gpt-4o", "flag", ["hi\r", "/model gpt-4o-mni\r", "again\r"], monkeypatch)
        asked, url = [r.body.get("model") for r in server.requests], server.base_url
    assert f"not switched: gpt-4o-mni is not a model {url} serves; did you mean gpt-4o?" in said, said
    # no 404 said (a token of its own: the server's port and the session's id may hold the digits)
    assert "gpt-4o-mni" not in asked and not re.search(r"\b404\b", said), said


async def test_a_404_in_the_repl_names_model_and_the_variable_the_endpoint_came_from(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    with FakeOpenAIServer(lambda req: Reply.text("ok"), model="other", lists_models=False) as server:
        said = await repl(tmp_path, server, "gone-model", "session", ["hi\r"], monkeypatch)
    assert ("check the model name (gone-model, remembered by the session; /model NAME sets another) and that "
            "OPENAI_BASE_URL is the server's API address") in said, said
    assert "-m sets" not in said and "--base-url" not in said, said
