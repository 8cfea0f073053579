"""A turn stopped at the limit of model requests says where the limit came from. It said
'stopped after 1000 model requests (--max-turns 1000)' of the setting's default, and of a limit a
config file or a variable set, where no --max-turns was given: the user looked for a flag never
typed. Now the flag, the session that remembered it, the setting (its default, the file or the
variable) are each named. Through the real CLI against the fake OpenAI-compatible server."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from pydantic_ai.exceptions import UsageLimitExceeded

from compact_agent.error_notes import note_request_limit
from compact_agent.error_text import describe_error
from compact_agent.settings_file import load
from tests.fakes.openai_server import FakeOpenAIServer, Reply


def never_done(req) -> Reply:
    return Reply.tools([("glob", {"pattern": "*"})])


def stopped(cli, *args: str, env: dict[str, str] | None = None) -> str:
    with FakeOpenAIServer(never_done) as server:
        res = cli("-p", "go", "--model", "fake-model", "--base-url", server.base_url, "--api-key", "k", *args,
                  env=env)
    assert res.code == 1, res.stderr
    return res.stderr.splitlines()[-1]


def test_a_limit_from_the_config_file_names_the_file_not_a_flag(cli) -> None:
    cli.home.mkdir(parents=True)
    config = cli.home / "config.toml"
    config.write_text("max_requests_per_turn = 2\n")
    said = stopped(cli)
    assert f"stopped after 2 model requests (max_requests_per_turn = 2 from {config})" in said, said
    assert "--max-turns" not in said


def test_a_limit_from_a_variable_names_the_variable(cli) -> None:
    said = stopped(cli, env={"COMPACT_AGENT_MAX_REQUESTS_PER_TURN": "1"})
    assert ("stopped after 1 model request (max_requests_per_turn = 1 from env "
            "COMPACT_AGENT_MAX_REQUESTS_PER_TURN)") in said, said


def test_the_flag_and_the_session_that_remembers_it(cli) -> None:
    assert "stopped after 2 model requests (--max-turns 2)" in stopped(cli, "--max-turns", "2")
    said = stopped(cli, "-c")
    assert "stopped after 2 model requests (--max-turns 2, remembered by the session)" in said, said


def test_the_default_limit_is_said_as_the_setting_with_how_to_change_it(tmp_path: Path,
                                                                         monkeypatch: pytest.MonkeyPatch) -> None:
    for k in list(os.environ):
        if k.startswith("COMPACT_AGENT_"):
            monkeypatch.delenv(k)
    monkeypatch.setenv("COMPACT_AGENT_CONFIG", str(tmp_path / "none.toml"))
    e = UsageLimitExceeded("The next request would exceed the request_limit of 1000")  # pydantic-ai's words
    note_request_limit(e, load(tmp_path))
    said = describe_error(e, "")
    assert said == ("stopped after 1000 model requests (max_requests_per_turn, by default 1,000; --max-turns N or "
                    "max_requests_per_turn in the config file sets another)"), said
