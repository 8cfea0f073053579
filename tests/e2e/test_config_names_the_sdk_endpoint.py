"""With no base_url set, a provider's client sends every request to the address in its own variable
(ANTHROPIC_BASE_URL, OPENAI_BASE_URL): `config` and `/config` said `base_url  not set (the model's
provider)  default` all the same, and `/status` named no endpoint. They now say the address used and
the variable it came from."""

from __future__ import annotations

from tests.e2e.conftest import Cli
from tests.fakes.anthropic_server import AnthropicReply, FakeAnthropicServer


def row(text: str, key: str) -> str:
    [line] = [line for line in text.splitlines() if line.split(" ", 1)[0] == key]
    return " ".join(line.split())


def test_config_slash_config_and_status_name_the_address_from_the_sdks_variable(cli: Cli) -> None:
    with FakeAnthropicServer(lambda req: AnthropicReply("fine")) as server:
        env = {"ANTHROPIC_BASE_URL": server.base_url, "ANTHROPIC_API_KEY": "sk-ant-test"}
        flags = ("-m", "claude-haiku-4-5")
        command = cli(*flags, "config", env=env)
        as_json = cli(*flags, "config", "--json", env=env)
        slash = cli("-p", "/config", *flags, env=env)
        status = cli("-p", "/status", *flags, env=env)
    assert command.code == slash.code == status.code == as_json.code == 0, command.stderr + slash.stderr
    used = f"→ {server.base_url} from ANTHROPIC_BASE_URL"
    assert row(command.stdout, "base_url") == f"base_url not set (the model's provider) default {used}", command.stdout
    assert row(slash.stdout, "base_url") == row(command.stdout, "base_url"), slash.stdout
    assert as_json.json()["in_use"]["base_url"] == {"value": server.base_url, "why": "ANTHROPIC_BASE_URL"}
    assert as_json.json()["settings"]["base_url"]["value"] is None  # the setting as it is
    assert row(status.stdout, "endpoint") == f"endpoint {server.base_url} (from ANTHROPIC_BASE_URL)", status.stdout


def test_without_the_variable_nothing_is_added(cli: Cli) -> None:
    command = cli("-m", "claude-haiku-4-5", "config", env={"ANTHROPIC_BASE_URL": ""})
    assert row(command.stdout, "base_url") == "base_url not set (the model's provider) default", command.stdout


def test_status_says_where_a_given_endpoint_came_from(cli: Cli) -> None:
    url = "http://127.0.0.1:9/v1"  # nothing listens: /status sends no request
    flagged = cli("-p", "/status", "-m", "fake-model", "--base-url", url, "--api-key", "k")
    from_env = cli("-p", "/status", "-m", "fake-model", "--api-key", "k", env={"COMPACT_AGENT_BASE_URL": url})
    assert row(flagged.stdout, "endpoint") == f"endpoint {url} (--base-url)", flagged.stdout + flagged.stderr
    assert row(from_env.stdout, "endpoint") == f"endpoint {url} (the address COMPACT_AGENT_BASE_URL gives)", \
        from_env.stdout + from_env.stderr
