"""A local server that answered and reported no window is not asked again for 7 days
(servers/unreported.json, agent/run/server_report.py). `config --forget-window URL` and
`--forget-server URL` forget that too, so the next session there asks again: once its window was
set (a Modelfile's num_ctx, a restart with max_model_len), the command a user reaches for had no
effect, and only the 7 days ended it."""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta

from compact_agent.agent.run import server_report
from tests.e2e.conftest import Cli

A, B = "http://127.0.0.1:1234/v1", "http://127.0.0.1:4000/v1"


def keep(cli: Cli) -> datetime:
    now = datetime.now(UTC) - timedelta(hours=1)
    for url, model in ((A, "lmstudio-model"), (A, "other"), (B, "gateway")):
        server_report.keep_quiet(cli.home, url, model, now=now)
    return now


def test_forget_window_forgets_a_server_that_reported_nothing(cli: Cli) -> None:
    now = keep(cli)
    res = cli("config", "--forget-window", A)
    assert res.code == 0, res.stderr
    said = " ".join(res.stdout.split())
    assert f"forgot that {A} reported no window for lmstudio-model; the next session there asks it again" in said
    assert f"forgot that {A} reported no window for other" in said
    after = datetime.now(UTC)
    assert not server_report.quiet(cli.home, A, "lmstudio-model", now=after)
    assert server_report.quiet(cli.home, B, "gateway", now=after)  # another endpoint's kept
    kept = json.loads((cli.home / "servers" / "unreported.json").read_text())["unreported"]
    assert kept == {B: {"gateway": now.isoformat(timespec="seconds")}}


def test_forget_server_forgets_it_too_and_json_names_it(cli: Cli) -> None:
    keep(cli)
    res = cli("config", "--forget-server", B, "--json")
    assert res.code == 0, res.stderr
    assert res.json()["forgotten"]["unreported"] == [{"url": B, "model": "gateway"}]
    assert not server_report.quiet(cli.home, B, "gateway", now=datetime.now(UTC))
    assert server_report.quiet(cli.home, A, "other", now=datetime.now(UTC))


def test_nothing_kept_of_an_endpoint_is_still_an_error(cli: Cli) -> None:
    keep(cli)
    res = cli("config", "--forget-window", "http://127.0.0.1:9/v1")
    assert res.code != 0 and "no window is remembered for http://127.0.0.1:9/v1" in res.stderr
