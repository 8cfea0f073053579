"""`config` says what a run uses of a setting the window scales down: in an 8,000-token window it
showed `autocompact_buffer  13000  default` and `summary_output_reserve  20000  default`, while the
run kept 800 and 2,000 (`Limits.for_window`: a tenth and a quarter of the window), as `/context`
said (`answer 2.0k (cap: a quarter of the window) + buffer 800`). The value in use now follows the
source where it differs, and `--json` gives every one under `in_use`, its settings as they were."""

from __future__ import annotations

import re
from datetime import UTC, datetime

from compact_agent.agent.run import server_windows
from compact_agent.context import CompactionSettings
from tests.e2e.conftest import Cli
from tests.e2e.scripted import FileTaskAgent, make_project, task_text
from tests.fakes.openai_server import FakeOpenAIServer

URL = "http://127.0.0.1:9/v1"  # nothing listens: neither config nor -p /config sends a request
SMALL = ("--base-url", URL, "-m", "fake-model", "--context-window", "8k")


def row(out: str, setting: str) -> tuple[str, str]:
    found = re.search(rf"^{setting}\s+(\S+)\s+(.+?)\s*$", out, re.MULTILINE)
    assert found is not None, out
    return found[1], found[2]


def test_config_shows_the_values_a_small_window_scales_to(cli: Cli) -> None:
    out = cli(*SMALL, "config")
    assert out.code == 0, out.stderr
    assert row(out.stdout, "autocompact_buffer") == ("13000", "default → 800 in the 8,000-token window")
    assert row(out.stdout, "summary_output_reserve") == ("20000", "default → 2,000 in the 8,000-token window")
    assert row(out.stdout, "restore_total_tokens") == ("50000", "default → 2,000 in the 8,000-token window")
    assert row(out.stdout, "context_window") == ("8000", "flag")  # as used: nothing to add
    assert row(out.stdout, "restore_max_files") == ("5", "default")  # not scaled

    context = cli("-p", "/context", *SMALL, "--api-key", "k")  # what the session keeps, by its own view
    assert "answer 2.0k (cap: a quarter of the window) + buffer 800" in context.stdout, context.stdout
    slash = cli("-p", "/config", *SMALL, "--api-key", "k")
    assert row(slash.stdout, "autocompact_buffer") == row(out.stdout, "autocompact_buffer")

    data = cli(*SMALL, "config", "--json").json()
    assert data["settings"]["autocompact_buffer"] == {"value": 13_000, "source": "default"}  # as it was
    assert data["in_use"]["autocompact_buffer"] == {"value": 800, "why": "in the 8,000-token window"}
    assert data["in_use"]["summary_output_reserve"] == {"value": 2_000, "why": "in the 8,000-token window"}
    assert data["in_use"]["context_window"] == {"value": 8_000, "why": None}
    assert data["in_use"]["memory_update_tokens"]["value"] < 10_000


def test_a_value_the_window_holds_is_shown_as_given(cli: Cli) -> None:
    (cli.home / "config.toml").parent.mkdir(parents=True, exist_ok=True)
    (cli.home / "config.toml").write_text("autocompact_buffer = 500\n")
    out = cli(*SMALL, "config")
    assert row(out.stdout, "autocompact_buffer") == ("500", "user file")
    assert cli(*SMALL, "config", "--json").json()["in_use"]["autocompact_buffer"] == {"value": 500, "why": None}


def test_the_reserve_capped_by_the_model_and_a_window_kept_from_the_server(cli: Cli) -> None:
    known = cli("-m", "deepseek-chat", "config").stdout  # 128,000 tokens: the answer's cap is the model's
    assert row(known, "summary_output_reserve") == ("20000", "default → 8,192, the model's output limit")
    assert row(known, "autocompact_buffer") == ("13000", "default → 12,800 in the 128,000-token window")

    server_windows.remember(cli.home, URL, "fake-model", 6_000, "refused", now=datetime(2026, 5, 1, tzinfo=UTC))
    kept = cli("--base-url", URL, "-m", "fake-model", "config").stdout  # the window a session there works in
    assert row(kept, "autocompact_buffer") == ("13000", "default → 600 in the 6,000-token window")


def test_a_window_given_that_the_server_showed_smaller(cli: Cli) -> None:
    """Given 32,000, refused at 8,000 and resumed: `/config` says the window given and the one in use."""
    make_project(cli.cwd, 12)
    with FakeOpenAIServer(FileTaskAgent(n=12), window=8_000, model="local", overflow="llama.cpp") as server:
        at = ("-m", "local", "--base-url", server.base_url, "--api-key", "k", "--context-window", "32k")
        assert cli("-p", task_text(12), "-y", *at).code == 0
        slash = cli("-c", "-p", "/config", *at)
        assert slash.code == 0, slash.stderr
        value, source = row(slash.stdout, "context_window")
        assert (value, source.split(" (")[0]) == ("32000", "flag → 8,000 learned from the server"), slash.stdout
        assert row(slash.stdout, "autocompact_buffer") == ("13000", "default → 800 in the 8,000-token window")


def test_config_shows_the_least_gain_microcompact_uses(cli: Cli) -> None:
    """`microcompact_min_free_tokens` is at most a tenth of the threshold where a run uses it: 520 in
    an 8,000-token window (threshold 5,200), where `config` said `20000  default`."""
    default = CompactionSettings().microcompact_min_free_tokens  # whatever it is: above 520
    out = cli(*SMALL, "config")
    assert row(out.stdout, "microcompact_min_free_tokens") == (str(default), "default → 520 in the 8,000-token window")
    data = cli(*SMALL, "config", "--json").json()
    assert data["settings"]["microcompact_min_free_tokens"] == {"value": default, "source": "default"}
    assert data["in_use"]["microcompact_min_free_tokens"] == {"value": 520, "why": "in the 8,000-token window"}
    slash = cli("-p", "/config", *SMALL, "--api-key", "k")  # a session's /config says the same
    assert row(slash.stdout, "microcompact_min_free_tokens") == row(out.stdout, "microcompact_min_free_tokens")
