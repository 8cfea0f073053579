"""A bad value of any command-line option is one line naming the option and what it takes, exit 2:
`--context-window abc` used to print the usage block, a `Try ... for help.` line and pydantic's
`Input should be a valid integer, unable to parse string as an integer`. Windows are written as
the docs write them (32K, 128K, 32,768), the same on the command line, in a config file, in the
environment and in /model."""

from __future__ import annotations

import json

import pytest

from compact_agent.cli_help import nothing_spent

MACHINE = ("Usage:", "Try '", "Error:", "Traceback", "Input should be", "Value error", "ValueError",
           "ValidationError", "BadParameter", "UsageError")


@pytest.mark.parametrize(("args", "said"), [
    (("--context-window", "abc"), "--context-window: expected a whole number of tokens such as 32000, 32k or 128K, not 'abc'"),
    (("--context-window", "1.5"), "--context-window: expected a whole number of tokens such as 32000, 32k or 128K, not '1.5'"),
    (("--context-window", "-3"), "--context-window: must be a positive number of tokens (such as 32000, 32k or 128K), not '-3'"),
    (("--context-window=0",), "--context-window: must be a positive number of tokens"),
    (("--context-window", "99999999999"), "--context-window: must be at most 10,000,000 tokens"),
    (("--context-window",), "--context-window needs a value: a number of tokens such as 32000, 32k or 128K"),
    (("--max-turns", "x"), "--max-turns: expected a whole number of model requests (1 or more), not 'x'"),
    (("--max-turns", "1.5"), "--max-turns: expected a whole number of model requests"),
    (("--max-turns", "0"), "--max-turns: must be at least 1 (a number of model requests), not 0"),
    (("--yes=3",), "--yes takes no value"),
    (("--contxt-window", "3"), "no such option --contxt-window; did you mean --context-window? ("),
    # An option where a value belongs was taken for it, and the rest for the query or a command:
    # Click's usage block and "No such command 'hi'".
    (("--model", "--max-turns", "3", "hi"), "--model needs a value: NAME, not the option --max-turns "
                                            "(see compact-agent --help)"),
    (("--context-window", "--yes"), "--context-window needs a value: a number of tokens such as 32000, 32k or 128K, "
                                    "not the option --yes"),
    (("analyze", "t.json", "--model", "--json"), "--model needs a value: NAME, not the option --json "
                                                 "(see compact-agent analyze --help)"),
    (("analyze", "t.json", "--window", "abc"), "--window: expected a whole number of tokens"),
    (("analyze", "t.json", "--window", "1000"), "--window: must be at least 2,048 tokens"),
    (("analyze", "t.json", "--window", "1.5k2"), "--window: expected a whole number of tokens"),
    (("analyze", "t.json", "--window"), "--window needs a value: a number of tokens such as 64000 or 64k"),
    (("analyze", "t.json", "--model"), "--model needs a value: NAME"),
    (("analyze",), "analyze needs PATH..."),
    (("config", "--bogus"), "no such option --bogus (see compact-agent config --help)"),
])
def test_a_bad_option_value_is_one_line(cli, args, said):
    res = cli("-p", "x", *args) if args[0].startswith("-") else cli(*args)
    assert res.code == 2, (args, res.stderr)
    assert res.stderr.startswith(f"compact-agent: {said}"), (args, res.stderr)
    # analyze given --json says its error as `{"error": ...}` on stdout too (docs/analyzer.md)
    printed = {"error": res.stderr.removeprefix("compact-agent: ").rstrip("\n")} if "--json" in args[1:] else None
    assert res.stderr.count("\n") == 1, (args, res.stderr)
    assert (json.loads(res.stdout) if res.stdout else None) == printed, (args, res.stdout, res.stderr)
    for machine in MACHINE:
        assert machine not in res.stderr, (args, machine, res.stderr)
    assert cli.sessions() == []


def test_windows_are_written_as_the_docs_write_them_everywhere(cli):
    """32k / 128K / 32,768 on the command line, in a config file and in the environment; a bad one
    in a file is one line naming the file."""
    def window(res) -> object:
        assert res.code == 0, res.stderr
        return json.loads(res.stdout)["settings"]["context_window"]

    assert window(cli("--context-window", "32k", "config", "--json"))["value"] == 32_000
    assert window(cli("--context-window", "128K", "config", "--json"))["value"] == 128_000
    assert window(cli("--context-window", "32,768", "config", "--json"))["value"] == 32_768
    assert window(cli("config", "--json", env={"COMPACT_AGENT_CONTEXT_WINDOW": "64k"}))["value"] == 64_000
    config = cli.home / "config.toml"
    config.parent.mkdir(parents=True, exist_ok=True)
    config.write_text('context_window = "32K"\n')
    assert window(cli("config", "--json")) == {"value": 32_000, "source": "user file"}
    config.write_text("context_window = 1.5\n")
    bad = cli("config")
    assert bad.code == 2 and bad.stderr == (f"compact-agent: bad value for context_window (from {config}): expected a "
                                            "whole number of tokens such as 32000, 32k or 128K, not 1.5\n")
    config.unlink()
    transcript = cli.cwd / "t.json"
    transcript.write_text(json.dumps([{"role": "user", "content": "go"}, {"role": "assistant", "content": "ok"}]))
    replayed = cli("analyze", str(transcript), "--window", "8k", "-s", "ours", "--json")
    assert replayed.code == 0 and json.loads(replayed.stdout)["window"] == 8_000, replayed.stderr


def test_one_reading_of_a_number_of_tokens():
    from compact_agent.cli_numbers import parse_tokens
    from compact_agent.ui.model_command import model_args

    assert [parse_tokens(v) for v in ("32000", "32k", "32K", "128K", "32,768", "32_000", "1.5k", "1M", 64_000)] == \
        [32_000, 32_000, 32_000, 128_000, 32_768, 32_000, 1_500, 1_000_000, 64_000]
    for bad in ("1.5", "1e5", "k", "32kk", "", "3 2", True, 1.5):
        with pytest.raises(ValueError, match="expected a whole number of tokens"):
            parse_tokens(bad)
    assert model_args("--window 64k gpt-4.1") == ("gpt-4.1", 64_000)  # /model reads a window as the flag does
    assert model_args("--window=128K") == (None, 128_000)


TOKEN_SETTINGS = ("autocompact_buffer", "summary_output_reserve", "restore_tokens_per_file", "restore_total_tokens",
                  "user_messages_budget", "microcompact_min_free_tokens", "memory_min_tokens", "memory_max_tokens",
                  "memory_update_tokens")


def test_every_number_of_tokens_is_written_as_the_window_is():
    """`autocompact_buffer = "13k"` was refused (`Input should be a valid integer`) while
    `context_window = "32k"` was taken: every setting that counts tokens reads the same forms."""
    from compact_agent.config import Settings

    assert {name for name in Settings.model_fields if name.endswith("_tokens")} <= set(TOKEN_SETTINGS)
    for written, meant in (("13k", 13_000), ("13K", 13_000), ("13,000", 13_000), ("13_000", 13_000), (13_000, 13_000),
                           ("1.5k", 1_500), (" 20000 ", 20_000)):
        for name in TOKEN_SETTINGS:
            if name == "memory_min_tokens":
                continue  # its maximum is memory_max_tokens, 40K by default: checked with it below
            assert getattr(Settings(**{name: written}), name) == meant, (name, written)
    assert Settings(memory_min_tokens="20k", memory_max_tokens="60K").memory_min_tokens == 20_000


def test_token_settings_in_a_file_a_variable_and_their_errors(cli):
    config = cli.home / "config.toml"
    config.parent.mkdir(parents=True, exist_ok=True)
    config.write_text('autocompact_buffer = "20k"\nmemory_max_tokens = "50,000"\n')
    res = cli("config", "--json", env={"COMPACT_AGENT_MEMORY_UPDATE_TOKENS": "5K"})
    assert res.code == 0, res.stderr
    settings = res.json()["settings"]
    assert settings["autocompact_buffer"] == {"value": 20_000, "source": "user file"}
    assert settings["memory_max_tokens"] == {"value": 50_000, "source": "user file"}
    assert settings["memory_update_tokens"] == {"value": 5_000, "source": "env COMPACT_AGENT_MEMORY_UPDATE_TOKENS"}
    config.unlink()
    for env, said in (
            ({"COMPACT_AGENT_AUTOCOMPACT_BUFFER": "lots"}, "bad value for autocompact_buffer (from env "
             "COMPACT_AGENT_AUTOCOMPACT_BUFFER): expected a whole number of tokens such as 32000, 32k or 128K, not 'lots'"),
            ({"COMPACT_AGENT_SUMMARY_OUTPUT_RESERVE": "-2k"}, "bad value for summary_output_reserve (from env "
             "COMPACT_AGENT_SUMMARY_OUTPUT_RESERVE): must be 0 or more tokens (such as 32000, 32k or 128K), not '-2k'"),
            ({"COMPACT_AGENT_MEMORY_UPDATE_TOKENS": "0"}, "bad value for memory_update_tokens (from env "
             "COMPACT_AGENT_MEMORY_UPDATE_TOKENS): must be a positive number of tokens (such as 32000, 32k or 128K), not '0'")):
        bad = cli("-p", "--base-url", "http://127.0.0.1:9/v1", "hi", env=env)
        assert bad.code == 2 and bad.stderr == f"compact-agent: {said}\n", bad.stderr
    assert cli.sessions() == []


@pytest.mark.parametrize("args", [
    ("-p", "x", "--output-format", "json", "--max-turns", "x"),
    ("--output-format=stream-json", "-yp", "x", "--context-window", "abc"),
    ("-p", "--output-format", "json", "x", "--bogus"),
    ("-p", "--model", "--output-format", "json", "hi"),  # --model is missing its value, not the format
    ("-p", "hi", "--model", "--output-format=stream-json"),
])
def test_a_parse_error_of_a_json_run_is_its_error_object_too(cli, args):
    """A run that asked for JSON printed a JSON error object for every failure but a command-line
    parse error, which printed only the stderr line: a script reading stdout got nothing."""
    res = cli(*args)
    assert res.code == 2 and res.stderr.count("\n") == 1, res.stderr
    said = res.stderr.removeprefix("compact-agent: ").rstrip("\n")
    assert res.json() == {"type": "result", "subtype": "error", "is_error": True, "error": said, "result": None,
                          "cut_off": False, "session_id": None, "duration_ms": 0, **nothing_spent()}
    assert res.stdout.count("\n") == 1


@pytest.mark.parametrize("args", [
    ("x", "--output-format", "json", "--max-turns", "x"),  # not print mode: the REPL has no JSON
    ("-p", "x", "--output-format", "text", "--max-turns", "x"),
    ("-p", "x", "--max-turns", "x", "--output-format"),  # the format itself not given
    ("-p", "x", "--model", "--output-format", "--max-turns", "x"),  # the option's text is --model's value
    ("-p", "--output-format", "json", "config", "--bogus"),  # a command's own options: not print mode
])
def test_no_json_where_it_was_not_asked_for(cli, args):
    res = cli(*args)
    assert res.code == 2 and res.stdout == "" and res.stderr.count("\n") == 1, (res.stdout, res.stderr)
