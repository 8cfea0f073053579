"""A misspelt key in an MCP server or a hook (`comand = "x"`, `timout = 5`) was ignored without a
word: the server did not start ("give either command or url", nothing about the typo), or the hook
ran with the default timeout, and the user never learnt why. Now the key is refused in one line
naming the entry, the key and, when it is close to one, the key meant."""

from __future__ import annotations

from pathlib import Path

import pytest

from compact_agent.agent.integrations.hooks import HookConfigError, parse_hooks
from compact_agent.agent.integrations.mcp_servers import McpConfigError, parse_servers
from tests.settings_cases import refused


def test_a_misspelt_key_of_a_server_is_said_with_the_key_meant() -> None:
    with pytest.raises(McpConfigError) as info:
        parse_servers({"docs": {"command": "x", "timout": 5}})
    assert str(info.value) == "mcp_servers.docs.timout: unknown key (did you mean timeout?)"


def test_a_server_key_like_none_lists_the_keys_a_server_takes() -> None:
    with pytest.raises(McpConfigError) as info:
        parse_servers({"docs": {"command": "x", "colour": "red"}})
    assert str(info.value) == ("mcp_servers.docs.colour: unknown key (a server takes command, args, env, cwd, url, "
                               "headers, compactable, instructions, timeout, tool_timeout, allow_tools, deny_tools)")


def test_claude_codes_type_of_a_server_is_no_unknown_key() -> None:
    """`.mcp.json`'s servers (read as `mcpServers`) carry `type`; the transport follows from command or url."""
    [server] = parse_servers({"web": {"type": "http", "url": "http://localhost:8000/mcp"}})
    assert server.url == "http://localhost:8000/mcp"


def test_a_misspelt_command_of_a_server_in_a_file(user_config: Path, tmp_path: Path) -> None:
    user_config.write_text('[mcp_servers.docs]\ncomand = "uvx"\n')
    assert refused(tmp_path) == (f"bad values for 2 settings (from {user_config}): mcp_servers.docs: give either "
                                 "command (stdio) or url (HTTP); mcp_servers.docs.comand: unknown key (did you mean "
                                 "command?)")


@pytest.mark.parametrize(("entry", "said"), [
    ({"command": "x", "timout": 5}, "unknown key timout (did you mean timeout?)"),
    ({"comand": "x"}, 'unknown key comand (did you mean command?) and each hook needs command = "..." (type "command")'),
    ({"matcher": "auto", "hooks": [{"command": "x", "timeot": 3}]}, "unknown key timeot (did you mean timeout?)"),
    ({"matchr": "auto", "hooks": ["x"]}, "unknown key matchr (did you mean matcher?)"),
    ({"command": "x", "when": "always"}, "unknown key when (a hook takes type, command, timeout, matcher, hooks)"),
])
def test_a_misspelt_key_of_a_hook_is_said(entry: dict[str, object], said: str) -> None:
    with pytest.raises(HookConfigError) as info:
        parse_hooks({"PreCompact": [entry]})
    assert str(info.value) == f"hooks.PreCompact: {said}"


def test_a_misspelt_timeout_of_a_hook_in_a_file(user_config: Path, tmp_path: Path) -> None:
    user_config.write_text('[[hooks.PostCompact]]\ncommand = "./log.sh"\ntimout = 5\n')
    assert refused(tmp_path) == f"{user_config}: hooks.PostCompact: unknown key timout (did you mean timeout?)"


@pytest.mark.parametrize(("key", "meant"), [("PreCompcat", "PreCompact"), ("hook_timout_s", "hook_timeout_s")])
def test_a_misspelt_event_or_setting_under_hooks_is_said_with_the_one_meant(user_config: Path, tmp_path: Path,
                                                                            key: str, meant: str) -> None:
    """`hook_timout_s = 20` under [hooks] was 'not a hook event', nothing said of the setting it is like."""
    user_config.write_text(f'[hooks]\n{key} = "x"\n')
    assert refused(tmp_path) == (f"{user_config}: unknown hook event '{key}' (did you mean {meant}?); expected one "
                                 "of PreCompact, PostCompact, SessionStart")
    user_config.write_text(f'autocompact_buffer = -5\n[hooks]\n{key} = "x"\n')
    assert f"hooks.{key}: not a hook event (the events are PreCompact, PostCompact and SessionStart; did you mean " \
        f"{meant}?)" in refused(tmp_path)


def test_a_misspelt_setting_under_mcp_servers_is_said_with_the_one_meant(user_config: Path, tmp_path: Path) -> None:
    """`compactable_tool = ["x"]` under [mcp_servers] was a server that is no table, nothing said of the setting."""
    user_config.write_text('[mcp_servers]\ncompactable_tool = ["docs_search"]\n')
    assert refused(tmp_path) == (f"{user_config}: mcp_servers.compactable_tool: expected a table (a server; did you "
                                 "mean the setting compactable_tools?)")
