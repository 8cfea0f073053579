"""An MCP server or a hook with several bad keys has them all said in its one line: a server with
`command = 5`, `args = "-v"` and `timeout = 0` said the command alone, then the args once it was
fixed, then the timeout; a hook with no command and `timeout = -1` said the command only. And a hook
that is no command nor table said Python's name of what it was ('got int'); it says 'got a number'."""

from __future__ import annotations

from pathlib import Path

import pytest

from compact_agent.agent.integrations.hooks import HookConfigError, parse_hooks
from compact_agent.agent.integrations.mcp_servers import McpConfigError, parse_servers
from tests.settings_cases import refused


def test_every_bad_key_of_one_server(user_config: Path, tmp_path: Path) -> None:
    with pytest.raises(McpConfigError) as info:
        parse_servers({"docs": {"command": 5, "args": "-v", "timeout": 0}})
    assert str(info.value) == ("mcp_servers.docs.command: expected a string, not 5; mcp_servers.docs.args: expected "
                               "a list of strings, not '-v'; mcp_servers.docs.timeout: expected seconds, more than 0 "
                               "and at most 3,600, not 0")
    user_config.write_text('[mcp_servers.docs]\ncommand = 5\nargs = "-v"\ntimeout = 0\n')
    assert refused(tmp_path) == (
        f"bad values for 3 settings (from {user_config}): mcp_servers.docs.command: expected a string, not 5; "
        "mcp_servers.docs.args: expected a list of strings, not '-v'; mcp_servers.docs.timeout: expected seconds, "
        "more than 0 and at most 3,600, not 0")


def test_an_unset_variable_names_the_server_and_its_key(user_config: Path, tmp_path: Path,
                                                       monkeypatch: pytest.MonkeyPatch) -> None:
    """`env = { API_TOKEN = "${MY_TOKEN}" }` with MY_TOKEN unset was refused as `mcp_servers.x:
    environment variable MY_TOKEN is not set`, naming no key (which of env, headers or url?), and
    only the first such variable was said."""
    for name in ("MY_TOKEN", "HOST_X", "B", "C"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("SET_ONE", "ok")
    unset = "which is not set (set it, or write ${MY_TOKEN:-default})"
    with pytest.raises(McpConfigError) as info:
        parse_servers({"x": {"command": "srv", "env": {"API_TOKEN": "${MY_TOKEN}", "HOME_ROOT": "${SET_ONE}",
                                                       "LEVEL": "${C:-info}", "PAIR": "${B}${SET_ONE}${B}${HOST_X}"}}})
    assert str(info.value) == (f"mcp_servers.x.env.API_TOKEN: uses ${{MY_TOKEN}}, {unset}; mcp_servers.x.env.PAIR: "
                               "uses ${B} and ${HOST_X}, which are not set (set them, or write ${B:-default})")
    with pytest.raises(McpConfigError) as info:
        parse_servers({"x": {"url": "http://${HOST_X}/mcp", "headers": {"Authorization": "Bearer ${MY_TOKEN}"}}})
    assert str(info.value) == ("mcp_servers.x.url: uses ${HOST_X}, which is not set (set it, or write "
                               f"${{HOST_X:-default}}); mcp_servers.x.headers.Authorization: uses ${{MY_TOKEN}}, {unset}")
    user_config.write_text('[mcp_servers.x]\ncommand = "srv"\nenv = { API_TOKEN = "${MY_TOKEN}" }\n')
    assert refused(tmp_path) == f"{user_config}: mcp_servers.x.env.API_TOKEN: uses ${{MY_TOKEN}}, {unset}"
    monkeypatch.setenv("MY_TOKEN", "secret")
    assert parse_servers({"x": {"command": "srv", "env": {"API_TOKEN": "${MY_TOKEN}"}}})[0].env == \
        (("API_TOKEN", "secret"),)


def test_every_bad_key_of_one_hook(user_config: Path, tmp_path: Path) -> None:
    both = 'each hook needs command = "..." (type "command") and timeout must be a positive number of seconds'
    with pytest.raises(HookConfigError) as info:
        parse_hooks({"PostCompact": {"timeout": -1}})
    assert str(info.value) == f"hooks.PostCompact: {both}"
    user_config.write_text('autocompact_buffer = -5\n[hooks]\nPostCompact = [{timeout = -1}, "fine"]\n')
    assert refused(tmp_path) == (
        f"bad values for 2 settings (from {user_config}): hooks.PostCompact: hook 1: {both}; autocompact_buffer: must be 0 "
        "or more tokens (such as 32000, 32k or 128K), not -5")


@pytest.mark.parametrize(("value", "said"), [(5, "a number"), (1.5, "a number"), (True, "true"), ([1], "a list")])
def test_a_hook_that_is_no_command_is_said_in_a_config_files_words(value: object, said: str) -> None:
    with pytest.raises(HookConfigError) as info:
        parse_hooks({"PreCompact": [value]})
    assert str(info.value) == f"hooks.PreCompact: expected a command string or a table, got {said}"


def test_a_hook_timeout_of_true_is_no_number_of_seconds() -> None:
    with pytest.raises(HookConfigError, match="timeout must be a positive number of seconds"):
        parse_hooks({"PreCompact": [{"command": "x", "timeout": True}]})
