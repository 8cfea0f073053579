"""A value of the wrong kind in an MCP server or a setting was said in Python's words (`expected a
string, not {'a': 1}`, `not None`, `not True`), and a server's args, env and headers took any value,
a table or true going to the server as Python wrote it (`{'a': 1}`, `True`), `compactable = "no"`
as true, and a hook's `matcher = true` was the pattern "True". Now the line says the kind in a
config file's words (`not a table`, `not null`, `not true`), and a value a server or a hook could
only get as Python's text is refused."""

from __future__ import annotations

import datetime
from pathlib import Path

import pytest

from compact_agent.agent.integrations.hooks import HookConfigError, parse_hooks
from compact_agent.agent.integrations.mcp_servers import McpConfigError, parse_servers
from compact_agent.setting_values import shown
from tests.settings_cases import refused


@pytest.mark.parametrize(("value", "said"), [
    ({"a": 1}, "a table"), ([1], "a list"), (None, "null"), (True, "true"), (False, "false"), (5, "5"),
    (1.5, "1.5"), ("-v", "'-v'"), (datetime.date(2026, 1, 2), "a date"), (datetime.time(1, 2), "a time"),
    (datetime.datetime(2026, 1, 2, 3, 4), "a date and time"),
    ("a\\b", "'a\\b'"), ("it's\\x", '"it\'s\\\\x"'), ('say "x"\t', '"say \\"x\\"\\t"'),
])
def test_a_value_in_a_config_files_words(value: object, said: str) -> None:
    assert shown(value) == said


@pytest.mark.parametrize(("spec", "said"), [
    ({"command": {"a": 1}}, "mcp_servers.docs.command: expected a string, not a table"),
    ({"command": "x", "env": [1]}, "mcp_servers.docs.env: expected a table, not a list"),
    ({"command": "x", "timeout": None}, "mcp_servers.docs.timeout: expected seconds, more than 0 and at most 3,600, not null"),
    ({"command": "x", "args": {"a": 1}}, "mcp_servers.docs.args: expected a list of strings, not a table"),
    ({"command": "x", "args": ["--port", 8000, {"a": 1}]},
     "mcp_servers.docs.args: expected a list of strings, and item 3 is a table"),
    ({"command": "x", "args": ["-v", True]}, "mcp_servers.docs.args: expected a list of strings, and item 2 is true"),
    ({"command": "x", "env": {"A": True}}, "mcp_servers.docs.env.A: expected a string, not true"),
    ({"url": "http://x", "headers": {"A": {"b": 1}}}, "mcp_servers.docs.headers.A: expected a string, not a table"),
    ({"command": "x", "compactable": "no"}, "mcp_servers.docs.compactable: expected true or false, not 'no'"),
    ({"command": "x", "instructions": 0}, "mcp_servers.docs.instructions: expected true or false, not 0"),
])
def test_a_server_value_of_the_wrong_kind_is_said_in_words(spec: dict[str, object], said: str) -> None:
    with pytest.raises(McpConfigError) as info:
        parse_servers({"docs": spec})
    assert str(info.value) == said


def test_numbers_in_args_and_env_are_text_for_the_server() -> None:
    [server] = parse_servers({"docs": {"command": "x", "args": ["--port", 8000], "env": {"N": 2}}})
    assert server.args == ("--port", "8000") and server.env == (("N", "2"),)


def test_a_setting_of_the_wrong_kind_is_said_in_words(user_config: Path, tmp_path: Path) -> None:
    user_config.write_text('model = {name = "x"}\nsummary_model = 1979-05-27\n')
    assert refused(tmp_path) == (f"bad values for 2 settings (from {user_config}): model: expected text in quotes, "
                                 "not a table; summary_model: expected text in quotes, not a date")


@pytest.mark.parametrize(("matcher", "said"), [(True, "true"), ({"a": 1}, "a table"), (["auto"], "a list")])
def test_a_hook_matcher_that_is_no_text_is_said(matcher: object, said: str) -> None:
    """`matcher = true` was the pattern "True", matching no trigger: the hook never ran, without a word."""
    with pytest.raises(HookConfigError) as info:
        parse_hooks({"PreCompact": [{"command": "x", "matcher": matcher}]})
    assert str(info.value) == f"hooks.PreCompact: matcher must be text (a pattern of the trigger or source), not {said}"


@pytest.mark.parametrize(("timeout", "said"), [(1e9, "1,000,000,000"), (float("inf"), "inf"), (float("nan"), "nan"),
                                               (601, "601")])
def test_a_hook_timeout_past_ten_minutes_is_refused(timeout: float, said: str) -> None:
    """`timeout = 1e9` (or TOML's `inf`) was taken, where `hook_timeout_s` is at most 600: a hook that
    hangs held the compaction for ever."""
    with pytest.raises(HookConfigError) as info:
        parse_hooks({"PreCompact": [{"command": "x", "timeout": timeout}]})
    assert str(info.value) == f"hooks.PreCompact: timeout must be at most 600 seconds, not {said}"


@pytest.mark.parametrize(("written", "said"), [
    ("[1, 2]", "a list"), ("{ a = 1 }", "a table"), ("1979-05-27", "a date"), ("12:30:00", "a time"),
    ("1.5", "1.5"), ('" 8k6 "', "'8k6'"), (f"1{'0' * 80}", f"1{'0' * 58}…"),
])
def test_a_number_of_tokens_of_another_kind_is_said_in_words(user_config: Path, tmp_path: Path, written: str,
                                                              said: str) -> None:
    """`context_window = [1, 2]` was refused as `not [1, 2]` (JSON's ["a"]: `not ['a']`), a table
    as `not {'a': 1}`, a date as `not datetime.date(1979, 5, 27)`, and a number of 81 digits whole."""
    user_config.write_text(f"context_window = {written}\n")
    wanted = "must be at most 10,000,000 tokens" if said.endswith("…") else \
        "expected a whole number of tokens such as 32000, 32k or 128K"
    assert refused(tmp_path) == f"bad value for context_window (from {user_config}): {wanted}, not {said}"


@pytest.mark.parametrize("written", ["'a\\b'", '"it\'s\\\\x"', "'say \"x\"'", '"it\'s \\"x\\""'])
def test_text_is_said_as_the_file_writes_it(user_config: Path, tmp_path: Path, written: str) -> None:
    """The value said can be pasted back: Python's form doubled a backslash between single quotes,
    where TOML reads none (`'a\\\\b'` for `a\\b`), and quoted `it's "x"` in a way TOML does not read."""
    user_config.write_text(f"max_retries = {written}\n")
    assert refused(tmp_path).endswith(f"): expected a whole number from 0 to 10, not {written}")
