"""A config file with two bad values says both at once. `autocompact_buffer = -5` and
`bash_timeout_s = "x"` in config.toml said only the first; the second was said once the first was
fixed. Now one line names every bad value, each with its reason, exit 2 and no traceback; a single
bad value reads as it always did."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.settings_cases import refused


def test_every_bad_value_of_a_file_in_one_line(user_config: Path, tmp_path: Path) -> None:
    user_config.write_text('autocompact_buffer = -5\nbash_timeout_s = "x"\ndeny_bash = [3]\n')
    assert refused(tmp_path) == (
        f"bad values for 3 settings (from {user_config}): deny_bash: expected a list of patterns; "
        "autocompact_buffer: must be 0 or more tokens (such as 32000, 32k or 128K), not -5; "
        "bash_timeout_s: expected a number above 0 and at most 600, not 'x'")


def test_bad_values_from_several_places_name_each_place(user_config: Path, tmp_path: Path,
                                                         monkeypatch: pytest.MonkeyPatch) -> None:
    user_config.write_text("autocompact_buffer = -5\n")
    monkeypatch.setenv("COMPACT_AGENT_BASH_TIMEOUT_S", "x")
    assert refused(tmp_path) == (
        f"bad values for 2 settings: autocompact_buffer (from {user_config}): must be 0 or more tokens (such as 32000, "
        "32k or 128K), not -5; bash_timeout_s (from env COMPACT_AGENT_BASH_TIMEOUT_S): expected a number above 0 "
        "and at most 600, not 'x'")
    monkeypatch.delenv("COMPACT_AGENT_BASH_TIMEOUT_S")
    assert refused(tmp_path) == (f"bad value for autocompact_buffer (from {user_config}): must be 0 or more tokens "
                                 "(such as 32000, 32k or 128K), not -5")  # one: as it always read


def test_every_variable_that_is_not_json_in_one_line(user_config: Path, tmp_path: Path,
                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    """Two list variables gone wrong: the reading stopped at the first, the second said once it was fixed."""
    monkeypatch.setenv("COMPACT_AGENT_DENY_BASH", '["rm *",')
    monkeypatch.setenv("COMPACT_AGENT_EXTRA_DIRS", "[../shared")
    monkeypatch.setenv("COMPACT_AGENT_HOOKS", "not json")
    assert refused(tmp_path) == (
        "bad values for 3 settings: "
        """deny_bash (from env COMPACT_AGENT_DENY_BASH): expected JSON, e.g. COMPACT_AGENT_DENY_BASH='["..."]'; """
        """extra_dirs (from env COMPACT_AGENT_EXTRA_DIRS): expected JSON, e.g. COMPACT_AGENT_EXTRA_DIRS='["..."]'; """
        """hooks (from env COMPACT_AGENT_HOOKS): expected JSON, e.g. COMPACT_AGENT_HOOKS='{"NAME": ...}'""")


def test_every_bad_hook_and_server_of_a_file_with_the_other_bad_values(user_config: Path, tmp_path: Path,
                                                                       monkeypatch: pytest.MonkeyPatch) -> None:
    """A hook that could never run stopped at once: a second bad hook, an MCP server that could
    never start and a value out of range were said one after the other as each was fixed."""
    user_config.write_text('autocompact_buffer = -5\n[hooks]\nPreKompact = "x"\n'
                    'PreCompact = [{command = "a", timeout = -1}, "fine", {command = "b", timeout = 0}]\n'
                    '[mcp_servers.docs]\nargs = ["a"]\n[mcp_servers.web]\nurl = "http://x"\ntimeout = 0\n'
                    '[mcp_servers.ok]\ncommand = "server"\n')
    monkeypatch.setenv("COMPACT_AGENT_DENY_PATHS", "[.env")
    line = refused(tmp_path)
    assert line == (
        f"bad values for 6 settings: hooks.PreKompact (from {user_config}): not a hook event (the events are PreCompact, "
        f"PostCompact and SessionStart; did you mean PreCompact?); hooks.PreCompact (from {user_config}): hook 1: timeout must be a positive number "
        f"of seconds; hooks.PreCompact (from {user_config}): hook 3: timeout must be a positive number of seconds; "
        f"mcp_servers.docs (from {user_config}): give either command (stdio) or url (HTTP); mcp_servers.web.timeout "
        f"(from {user_config}): expected seconds, more than 0 and at most 3,600, not 0; autocompact_buffer (from {user_config}): "
        "must be 0 or more tokens (such as 32000, 32k or 128K), not -5; deny_paths (from env "
        """COMPACT_AGENT_DENY_PATHS): expected JSON, e.g. COMPACT_AGENT_DENY_PATHS='["..."]'"""), line


def test_every_bad_hook_and_server_of_a_variable(user_config: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("COMPACT_AGENT_HOOKS", '{"Stop": "x", "PostCompact": {"timeout": 5}}')
    monkeypatch.setenv("COMPACT_AGENT_MCP_SERVERS", '{"a b": {"command": "x"}, "docs": {"command": "x", "args": 3}}')
    assert refused(tmp_path) == (
        "bad values for 4 settings: hooks.Stop (from env COMPACT_AGENT_HOOKS): not a hook event (the events are "
        "PreCompact, PostCompact and SessionStart); hooks.PostCompact (from env COMPACT_AGENT_HOOKS): each hook "
        'needs command = "..." (type "command"); mcp_servers.a b (from env COMPACT_AGENT_MCP_SERVERS): a server '
        "name is letters, digits, _ and - (it prefixes tool names); mcp_servers.docs.args (from env "
        "COMPACT_AGENT_MCP_SERVERS): expected a list of strings, not 3")
    monkeypatch.delenv("COMPACT_AGENT_MCP_SERVERS")
    monkeypatch.setenv("COMPACT_AGENT_HOOKS", '{"Stop": "x"}')  # one: as it always read
    assert refused(tmp_path) == ("env COMPACT_AGENT_HOOKS: unknown hook event 'Stop'; expected one of PreCompact, "
                                 "PostCompact, SessionStart")


def test_two_bad_hooks_of_one_event_are_one_setting_in_the_count(user_config: Path, tmp_path: Path) -> None:
    user_config.write_text('[[hooks.PreCompact]]\ncommand = 5\n\n[[hooks.PreCompact]]\ncommand = "true"\ntimeout = -1\n')
    said = refused(tmp_path)
    assert said.startswith(f"bad values for 1 setting (from {user_config}): hooks.PreCompact: "), said
    assert said.count("hooks.PreCompact") == 2, said
