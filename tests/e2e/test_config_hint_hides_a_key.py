"""A config file that does not parse because a key is written in it without quotes: the hint to quote
it does not write the key back.

The hint (`write text in quotes: context_window = "32k"`) quoted the bare word whole, and a config file
is read before any key is registered, so `api_key = sk-…` (keys come from the environment; a person
trying the file) put the key on the terminal, or in the log of a CI job, with nothing to redact it.
"""

from __future__ import annotations

import pytest

from tests.e2e.conftest import Cli

KEY = "sk-proj-4fQx9Lm2Vb7Rt1Yz8Kp3Wn6"


@pytest.mark.parametrize("line", [f"api_key = {KEY}", f"auth_token = {KEY[8:]}", f"model = {KEY}"])
@pytest.mark.parametrize("command", [("-p", "hello", "--base-url", "http://127.0.0.1:9/v1"), ("config",)])
def test_the_hint_to_quote_a_bare_word_does_not_write_a_key_back(cli: Cli, line: str, command: tuple[str, ...]) -> None:
    cli.home.mkdir()
    (cli.home / "config.toml").write_text(f"{line}\n")
    run = cli(*command)
    assert run.code != 0
    said = run.stdout + run.stderr
    assert KEY[8:] not in said and KEY[8:20] not in said, said
    name = line.split(" = ")[0]
    assert "config.toml: not valid TOML (" in said
    assert said.strip().endswith(f'write text in quotes: {name} = "…" (its value, in double quotes)'), said


def test_the_hint_still_writes_an_ordinary_word_back(cli: Cli) -> None:
    cli.home.mkdir()
    (cli.home / "config.toml").write_text("model = deepseek-chat\n")
    run = cli("config")
    assert run.stderr.strip().endswith('write text in quotes: model = "deepseek-chat"'), run.stderr
