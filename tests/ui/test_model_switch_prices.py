"""Prices given (`--prices`) are the session's model's; after the REPL's `/model` they follow the
session only to another model the registry does not know (which has no prices of its own), as a
window given does. A model the registry knows is priced at its own, and the session then no
longer remembers the prices given: `-c` after the switch runs the known model at its own."""

from __future__ import annotations

import re

import pytest

from compact_agent.session import remembered
from compact_agent.settings_file import load
from tests.fakes.openai_server import FakeOpenAIServer, Reply

from .repl_driver import drive

GIVEN = [1.0, 0.1, 2.0, 1.0]


def answer(req) -> Reply:
    return Reply.text("noted")


@pytest.fixture
def server(tmp_path, monkeypatch):
    monkeypatch.setenv("COMPACT_AGENT_HOME", str(tmp_path / "home"))
    monkeypatch.setenv("COMPACT_AGENT_CONFIG", str(tmp_path / "none.toml"))  # not the user's own
    with FakeOpenAIServer(answer, serves=["other-local", "deepseek-chat"]) as srv:
        yield srv


def prices_rows(out: str) -> list[str]:
    """Each `/config`'s prices row: value | source."""
    return [re.sub(r"\s{2,}", " | ", row) for row in re.findall(r"^prices\s+(.+?)\s*$", out, re.MULTILINE)]


async def test_prices_given_follow_a_switch_only_to_another_model_the_registry_does_not_know(tmp_path, server):
    work = (tmp_path / "project").resolve()
    work.mkdir()
    loaded = load(work, {"model": "fake-model", "base_url": server.base_url, "prices": GIVEN})
    started = {"model": "fake-model", "base_url": server.base_url, "prices": GIVEN, "ran_with": "fake-model"}
    with remembered.remembering(remembered.ToRemember(started)):
        run = await drive(tmp_path, answer, ["hello\r", "/model other-local\r", "/config\r",
                                             "/model deepseek-chat\r", "/config\r"],
                          server=server, settings=loaded.settings, config=loaded)
        [path] = (tmp_path / "home" / "projects").glob("*/*.jsonl")
        kept = remembered.options_of(path)
    assert "model other-local → deepseek-chat" in run.out, run.out
    assert prices_rows(run.out) == ["$1 input, $0.1 cached, $2 output per M tokens | flag",
                                    "$0.28 input, $0.028 cached, $0.42 output per M tokens | "
                                    "the model's own (deepseek-chat)"], run.out
    assert kept == {"model": "deepseek-chat", "base_url": server.base_url, "ran_with": "deepseek-chat"}


async def test_after_a_switch_to_another_unknown_model_the_session_keeps_the_prices(tmp_path, server):
    work = (tmp_path / "project").resolve()
    work.mkdir()
    loaded = load(work, {"model": "fake-model", "base_url": server.base_url, "prices": GIVEN})
    started = {"model": "fake-model", "prices": GIVEN, "ran_with": "fake-model"}
    with remembered.remembering(remembered.ToRemember(started)):
        await drive(tmp_path, answer, ["hello\r", "/model other-local\r"], server=server,
                    settings=loaded.settings, config=loaded)
        [path] = (tmp_path / "home" / "projects").glob("*/*.jsonl")
    assert remembered.options_of(path) == {"model": "other-local", "prices": GIVEN, "ran_with": "other-local"}
