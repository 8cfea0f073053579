"""The API key pasted where a model name goes (`-m "$KEY"`, `/model $KEY`) reaches no file and no
output: `usage.jsonl` names the model `[REDACTED]` as the session file does, and `/cost` and
`/model`'s confirmation print it so. They wrote and printed the key whole."""

from __future__ import annotations

import json
from pathlib import Path

from compact_agent.agent.accounting.costs import Entry, report
from compact_agent.models import ModelInfo
from compact_agent.secrets import REDACTED, register
from compact_agent.ui.model_command import not_remembered, switched
from tests.e2e.conftest import Cli, CliResult
from tests.fakes.openai_server import FakeOpenAIServer, Reply

KEY = "sk-mdlNAME7qW3xZ9kT5vB2nR8yL4pJ6hD1"
SECRETS = (KEY, KEY.removeprefix("sk-"))


def leaks(home: Path, results: list[CliResult]) -> list[str]:
    found = [f"output {i}" for i, r in enumerate(results) if any(s in r.stdout + r.stderr for s in SECRETS)]
    for p in home.rglob("*"):
        if any(s in p.name for s in SECRETS):
            found.append(f"name {p.relative_to(home)}")
        elif p.is_file() and any(s.encode() in p.read_bytes() for s in SECRETS):
            found.append(f"file {p.relative_to(home)}")
    return found


def test_the_key_given_as_the_model_name_is_in_no_file_and_no_output(tmp_path: Path, zygote) -> None:  # type: ignore[no-untyped-def]
    cwd = tmp_path / "project"
    cwd.mkdir()
    home = tmp_path / "home"
    cli = Cli(home=home, cwd=cwd, zygote=zygote)
    results: list[CliResult] = []
    with FakeOpenAIServer(lambda req: Reply.text("ok"), serves=[KEY]) as server:
        def run(*args: str) -> CliResult:
            res = cli("--base-url", server.base_url, "--prices", "1,1,1", *args, env={"OPENAI_API_KEY": KEY})
            assert res.code == 0, res.stderr
            results.append(res)
            return res

        run("-m", KEY, "-p", "hi")
        cost = run("-c", "-p", "/cost")
        switch = run("-m", "fake-model", "-p", f"/model {KEY}")
        run("-c", "-m", "fake-model", "-p", f"/model {KEY}")
        run("-c", "-p", "/cost")
    usage = [json.loads(line) for p in home.rglob("usage.jsonl") for line in p.read_text().splitlines()]
    assert usage and {u["model"]["name"] for u in usage} >= {REDACTED}, usage
    assert f"main · {REDACTED}" in cost.stdout, cost.stdout
    assert f"model fake-model → {REDACTED}" in switch.stdout, switch.stdout
    assert leaks(home, results) == []


def test_the_printers_redact_a_name_written_before() -> None:
    """/cost reads `usage.jsonl` as it is, a file an earlier version wrote with the key whole too."""
    register(KEY)
    info = ModelInfo(KEY, "openai", 32_000, 4_000, 0, 0, 0, 0)
    r = report([Entry("main", info, 10, 0, 0, 5)])
    assert list(r.rows) == [f"main · {REDACTED}"] and r.unpriced_models == [REDACTED]
    assert switched("fake-model", KEY, 32_000, 32_000) == f"model fake-model → {REDACTED} · window 32,000"
    assert KEY not in not_remembered(type("S", (), {"session_id": "x", "store": type("T", (), {
        "path": Path("/nonexistent")})()})(), KEY, None)  # type: ignore[arg-type]
