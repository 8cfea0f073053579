"""`/compact --up-to N` and `--from N` size their summary request as every compaction does.

A whole compaction's summary request is cut to fit the window, a `summary_model`'s own where it is
smaller than the run's, asks for what that window leaves, and is not sent where it cannot fit
(f4009fa). A partial one was sized by the run's window and sent unchecked: a summary model with an
8,000-token window was sent a request of six rounds of 1,000 tokens and more, and refused it; one whose
window could not hold even the instructions and tools was sent a request it refused as well, where
the user should be told in one line that nothing could be sent.
"""

from __future__ import annotations

import asyncio
import contextlib
import io
import json
from pathlib import Path
from typing import Any

import pytest
from pydantic_ai.models.openai import OpenAIChatModel
from pydantic_ai.profiles import ModelProfile
from pydantic_ai.providers.openai import OpenAIProvider

from compact_agent.agent.run import side_models
from compact_agent.agent.run.options import SessionOptions
from compact_agent.config import Settings
from compact_agent.ui.print_mode import run_print
from tests.fakes.openai_server import ChatRequest, FakeOpenAIServer, Reply


def answer(req: ChatRequest) -> Reply:
    said = req.last_user_text().split()[-1]
    return Reply.text(" ".join(f"{said}{i}" for i in range(600)))  # about 1,000 tokens


def summary(req: ChatRequest) -> Reply:
    return Reply.text("<summary>We talked about the topics.</summary>")


def run(opts: SessionOptions, prompt: str) -> tuple[int, dict[str, Any], str]:
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = asyncio.run(run_print(opts, prompt, "json"))
    return code, json.loads(out.getvalue().splitlines()[-1]), err.getvalue()


def compacted(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, window: int, command: str
              ) -> tuple[FakeOpenAIServer, tuple[int, dict[str, Any], str]]:
    """Eight turns with the run's model (32,000 tokens), then `command` with a summary model of `window`."""
    (tmp_path / "project").mkdir()
    with FakeOpenAIServer(answer) as main, FakeOpenAIServer(summary, model="small-model", window=window) as side:
        small = OpenAIChatModel("small-model", provider=OpenAIProvider(base_url=side.base_url, api_key="k"),
                                profile=ModelProfile(context_window=window))
        monkeypatch.setattr(side_models, "build_model", lambda name, **kw: small)

        def opts(n: int) -> SessionOptions:
            return SessionOptions(cwd=tmp_path / "project", model="fake-model", base_url=main.base_url, api_key="k",
                                  context_window=32_000, home=tmp_path / "home", continue_last=n > 0,
                                  settings=Settings(memory_enabled=False, summary_model="small-model"))

        topics = ("apples", "pears", "plums", "figs", "dates", "limes", "kiwis", "grapes")
        for n, topic in enumerate(topics):
            assert run(opts(n), f"tell me about {topic}")[0] == 0
        done = run(opts(len(topics)), command)
    return side, done


@pytest.mark.parametrize("command", ["/compact --up-to 12", "/compact --from 4"])
def test_a_partial_summary_request_fits_the_summary_models_window(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                                  command: str) -> None:
    side, (code, result, err) = compacted(tmp_path, monkeypatch, 8_000, command)
    assert code == 0, (result, err)
    assert result["compactions"] and result["compactions"][0]["strategy"].startswith("partial_")
    # Each was over its 8,000-token window, the prompt and the max_tokens asked for (the fake refuses those).
    assert side.requests and side.rejected == []


def test_a_partial_summary_request_that_cannot_fit_is_not_sent_and_said_in_one_line(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The system prompt and the tools alone fill the summary model's 2,000-token window."""
    side, (code, result, err) = compacted(tmp_path, monkeypatch, 2_000, "/compact --up-to 12")
    assert code == 1 and side.requests == []
    assert result["is_error"] and result["compactions"] == []
    line = "compact-agent: " + result["error"]
    assert err.splitlines() == [line]
    assert line.startswith("compact-agent: not compacted: the summary request would take ")
    assert "of the summary model's 2,000-token window" in line and line.endswith(": not sent; nothing was changed")
