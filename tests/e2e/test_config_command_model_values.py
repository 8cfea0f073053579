"""`compact-agent config` shows the window and prices the model runs at where no setting gives them,
and whence, in `/config`'s words: it said `prices  null  default` and `context_window  null
default` for deepseek-chat, while `/config` in the REPL said "the model's own (deepseek-chat)"."""

from __future__ import annotations

import json
import re

from tests.e2e.conftest import Cli

LOCAL = ("--model", "fake-model", "--base-url", "http://127.0.0.1:9/v1")


def row(out: str, setting: str) -> str:
    found = re.search(rf"^{setting}\s+(.+?)\s*$", out, re.MULTILINE)
    assert found is not None, out
    return re.sub(r"\s{2,}", " | ", found[1])


def test_config_command_and_slash_config_agree(cli: Cli) -> None:
    for model in (("--model", "deepseek-chat"), LOCAL):
        command = cli(*model, "config")
        slash = cli("-p", "/config", *model, "--api-key", "k")
        assert command.code == 0 and slash.code == 0, command.stderr + slash.stderr
        for setting in ("prices", "context_window"):
            assert row(command.stdout, setting) == row(slash.stdout, setting), (command.stdout, slash.stdout)
    known = cli("--model", "deepseek-chat", "config")
    assert row(known.stdout, "prices") == ("$0.28 input, $0.028 cached, $0.42 output per M tokens | "
                                           "the model's own (deepseek-chat)")
    assert "null" not in row(known.stdout, "context_window")


def test_config_json_gives_the_model_values_too(cli: Cli) -> None:
    out = json.loads(cli("--model", "deepseek-chat", "config", "--json").stdout)["settings"]
    assert out["prices"]["source"] == "the model's own (deepseek-chat)"
    assert out["prices"]["value"]["input"] == 0.28
    assert out["context_window"] == {"value": 128_000, "source": "the model's own (deepseek-chat)"}
    given = json.loads(cli("--model", "deepseek-chat", "--context-window", "64k", "config", "--json").stdout)
    assert given["settings"]["context_window"] == {"value": 64_000, "source": "flag"}


def test_config_json_of_a_model_with_no_prices_warns_of_nothing(cli: Cli) -> None:
    # Prices "none" are held as words where a price table is typed: dumping them as JSON raised a
    # serializer warning, said as 'the provider reported token usage that is not a count'.
    done = cli(*LOCAL, "config", "--json")
    assert done.code == 0 and done.stderr == ""
    assert json.loads(done.stdout)["settings"]["context_window"]["value"]
