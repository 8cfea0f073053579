"""A model the endpoint does not serve (HTTP 404) is checked where it was chosen: the line said
`check the model name (-m NAME)` of a model no `-m` gave, one from a config file, the environment,
the session or the default."""

from __future__ import annotations

from pathlib import Path

from compact_agent.settings_file import Loaded
from tests.e2e.conftest import Cli
from tests.fakes.openai_server import FakeOpenAIServer, Reply

SAID = "does not exist or you do not have access to it; check the model name ({}) and that --base-url"


def test_the_line_names_the_flag_the_file_or_the_variable_that_chose_the_model(cli: Cli) -> None:
    with FakeOpenAIServer(lambda req: Reply.text("ok")) as server:
        def fails(*args: str, **env: str) -> str:
            r = cli("-p", "hi", "--base-url", server.base_url, "--api-key", "k", *args, env=env)
            assert r.code == 1 and len(r.stderr.splitlines()) == 1, r.stderr
            return r.stderr

        flag = fails("-m", "other")
        variable = fails(COMPACT_AGENT_MODEL="other")
        cli.home.mkdir(parents=True, exist_ok=True)
        (cli.home / "config.toml").write_text('model = "other"\n')
        in_file = fails()
    assert SAID.format("-m other") in flag, flag
    assert SAID.format("COMPACT_AGENT_MODEL=other") in variable, variable
    assert SAID.format(f'model = "other" in {cli.home / "config.toml"}') in in_file, in_file


def test_a_model_switched_to_the_session_remembers_or_the_default_is_said_so(tmp_path: Path) -> None:
    from compact_agent.config import Settings
    from compact_agent.error_notes import model_chosen_by

    def loaded(source: str, model: str = "deepseek-chat") -> Loaded:
        return Loaded(Settings(model=model), {"model": source}, tmp_path / "u.toml", tmp_path / "p.toml")

    assert model_chosen_by("deepseek-chat", loaded("flag", "qwen")) == "/model deepseek-chat"
    assert model_chosen_by("deepseek-chat", loaded("session")) == "deepseek-chat, remembered by the session; -m sets another"
    assert model_chosen_by("deepseek-chat", loaded("default")) == "deepseek-chat, the default model; -m sets another"
    assert model_chosen_by("deepseek-chat", loaded("flag")) == "-m deepseek-chat"
