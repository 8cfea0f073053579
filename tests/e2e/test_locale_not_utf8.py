"""stdout whose encoding is not UTF-8 (`PYTHONIOENCODING=ascii` or `latin-1`, a C locale with
Python's own UTF-8 switched off): every command runs to its end, text the encoding cannot hold is
replaced (the interface's marks by ASCII ones), and JSON is valid JSON in ASCII, its other
characters escaped. Each run is a fresh interpreter: the encoding is chosen as Python starts
(a forked run keeps its zygote's)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.e2e.conftest import REPO, Cli
from tests.fakes.openai_server import FakeOpenAIServer, Reply

ANSWER = "café → 日本語 ✅ 👋🏽 done"

ASCII = {"PYTHONIOENCODING": "ascii"}
C_LOCALE = {"LC_ALL": "C", "LANG": "C", "PYTHONUTF8": "0", "PYTHONCOERCECLOCALE": "0", "PYTHONIOENCODING": ""}
LATIN1 = {"PYTHONIOENCODING": "latin-1"}


def answers(req) -> Reply:
    return Reply.text(ANSWER)


def fake(server: FakeOpenAIServer) -> tuple[str, ...]:
    return ("--model", "fake-model", "--base-url", server.base_url, "--api-key", "k")


@pytest.fixture
def fresh(tmp_path: Path) -> Cli:
    cwd = tmp_path / "project"
    cwd.mkdir()
    return Cli(home=tmp_path / "home", cwd=cwd)  # no zygote: a new interpreter, its encoding from env


def no_traceback(stderr: str) -> None:
    assert "Traceback" not in stderr and "UnicodeEncodeError" not in stderr and "codec" not in stderr, stderr


@pytest.mark.parametrize("env", [ASCII, C_LOCALE], ids=["ascii", "C"])
def test_print_mode_text_is_printed_with_what_ascii_cannot_hold_replaced(fresh: Cli, env: dict[str, str]) -> None:
    with FakeOpenAIServer(answers) as server:
        res = fresh("-p", *fake(server), "say it", env=env)
    no_traceback(res.stderr)
    assert res.code == 0
    assert res.stdout == "cafe -> ??? ? ?? done\n"


def test_print_mode_text_in_latin1_keeps_what_latin1_holds(fresh: Cli) -> None:
    with FakeOpenAIServer(answers) as server:
        proc = subprocess.run([sys.executable, "-m", "compact_agent.cli", "-p", *fake(server), "say it"],
                              cwd=fresh.cwd, capture_output=True, timeout=120, stdin=subprocess.DEVNULL,
                              env={**os.environ, "COMPACT_AGENT_HOME": str(fresh.home), "PYTHONPATH": str(REPO / "src"),
                                   "COMPACT_AGENT_CONFIG": str(fresh.home / "config.toml"), **LATIN1})
    no_traceback(proc.stderr.decode("utf-8", "replace"))
    assert proc.returncode == 0
    assert proc.stdout == "café -> ??? ? ?? done\n".encode("latin-1")


@pytest.mark.parametrize("env", [C_LOCALE, LATIN1], ids=["C", "latin-1"])
def test_print_mode_json_is_ascii_json_carrying_the_whole_answer(fresh: Cli, env: dict[str, str]) -> None:
    with FakeOpenAIServer(answers) as server:
        res = fresh("-p", *fake(server), "--output-format", "json", "say it", env=env)
        stream = fresh("-p", *fake(server), "--output-format", "stream-json", "say it", env=env)
    no_traceback(res.stderr + stream.stderr)
    assert res.code == 0 and stream.code == 0
    assert res.stdout.isascii() and stream.stdout.isascii()
    assert res.json()["result"] == ANSWER and res.json()["subtype"] == "success"
    lines = [json.loads(line) for line in stream.stdout.splitlines()]
    assert lines[-1]["type"] == "result" and lines[-1]["subtype"] == "success"
    assert lines[-1]["result"] == ANSWER
    assert "".join(x["text"] for x in lines if x.get("type") == "text") == ANSWER


def test_json_in_utf8_stays_utf8(fresh: Cli) -> None:
    """Where stdout is UTF-8, JSON is written as it was: UTF-8, not escaped."""
    with FakeOpenAIServer(answers) as server:
        res = fresh("-p", *fake(server), "--output-format", "json", "say it", env={"PYTHONIOENCODING": "utf-8"})
    assert res.code == 0 and ANSWER in res.stdout, res.stderr


def test_config_sessions_and_analyze_run_in_ascii(fresh: Cli) -> None:
    env = ASCII
    with FakeOpenAIServer(answers) as server:
        made = fresh("-p", *fake(server), "日本語のプロンプト: explain → this")  # a session whose prompt is CJK
        assert made.code == 0, made.stderr
        config = fresh(*fake(server)[:4], "config", env=env)
    no_traceback(config.stderr)
    assert config.code == 0 and config.stdout.isascii()
    assert "default -> " in config.stdout  # a figure scaled for the window: the arrow, in ASCII

    as_json = fresh("--model", "fake-model", "config", "--json", env=env)
    assert as_json.code == 0 and as_json.stdout.isascii(), as_json.stderr
    assert json.loads(as_json.stdout)["settings"]

    listed = fresh("sessions", env=env)
    no_traceback(listed.stderr)
    assert listed.code == 0 and listed.stdout.isascii()
    assert ": explain -> this" in listed.stdout

    folder = next((fresh.home / "projects").iterdir())
    analyzed = fresh("analyze", str(folder), env=env)
    no_traceback(analyzed.stderr)
    assert analyzed.code == 0 and analyzed.stdout.isascii() and "ours" in analyzed.stdout
    figures = fresh("analyze", str(folder), "--json", env=env)
    assert figures.code == 0 and figures.stdout.isascii(), figures.stderr
    assert json.loads(figures.stdout)["window"] == 64_000
