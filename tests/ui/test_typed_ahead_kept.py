"""A line typed ahead while a turn runs (ended with Enter) is saved the moment Enter is pressed:
in the up-arrow history and in the session's folder, fsynced. It was kept in memory until the turn
ended, so a closed terminal (SIGHUP) or a kill (SIGKILL) before then lost it: neither the session
nor up-arrow had it. The next run to open the session (the REPL, or `-c -p`) says it, once, and
up-arrow recalls it."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import threading
import time
from pathlib import Path

import pytest

from tests.fakes.openai_server import FakeOpenAIServer, Reply, message_text
from tests.forked_cli import run_forked

from .pty_driver import REPO, Terminal
from .repl_driver import drive

AHEAD = "typed AHEAD while it runs"


def until(found, what: str, timeout: float = 15) -> None:
    """Poll (the REPL process writes it) until `found()`; no fixed sleep."""
    deadline = time.monotonic() + timeout
    while not found():
        if time.monotonic() > deadline:
            raise AssertionError(f"{what} never happened")
        time.sleep(0.01)


def text_of(paths: list[Path]) -> str:
    return "".join(p.read_text(errors="replace") for p in paths)


def print_run(tmp_path: Path, base_url: str, *args: str) -> subprocess.CompletedProcess[str]:
    """`compact-agent ARGS` with stdin at end of file, forked from the zygote (tests/forked_cli.py):
    what it says as it resumes the session does not depend on the interpreter's start-up."""
    home = tmp_path / "home"
    env = {k: v for k, v in os.environ.items() if not k.endswith("_API_KEY")}
    env.update({"COMPACT_AGENT_HOME": str(home), "PYTHONPATH": str(REPO / "src"),
                "COMPACT_AGENT_CONFIG": str(home / "config.toml")})
    argv = ["--model", "fake-model", "--base-url", base_url, "--api-key", "k", *args]
    code, out, err = run_forked(argv, env, tmp_path / "project", 120)
    return subprocess.CompletedProcess(argv, code, out.decode(), err.decode())


@pytest.mark.parametrize(("sig", "resumed_by"), [(signal.SIGKILL, "repl"), (signal.SIGHUP, "repl"),
                                                 (signal.SIGKILL, "print")])
async def test_a_line_typed_ahead_survives_the_end_of_the_run(tmp_path, sig, resumed_by) -> None:
    release = threading.Event()

    def responder(req) -> Reply:
        if "slow" in message_text(req.messages[-1]):
            release.wait(60)
        return Reply.text("ANSWERED")

    home = tmp_path / "home"
    with FakeOpenAIServer(responder) as server:
        term = Terminal(tmp_path, server.base_url, "--yes")
        try:
            at = term.prompt(term.read_until("/help for commands"))
            term.type("hello\r")
            at = term.prompt(term.read_until("ANSWERED", at))
            term.type("a slow question\r")
            until(lambda: len(server.requests) == 2, "the slow request")
            term.type(AHEAD + "\r")
            history = lambda: text_of(list((home / "projects").glob("*/prompt_history")))  # noqa: E731
            until(lambda: AHEAD in history(), "the line in the prompt history")
            kept = lambda: list((home / "projects").glob("*/*/typed-ahead.json"))  # noqa: E731
            until(lambda: len(kept()) == 1, "the line in the session's folder")
            assert json.loads(kept()[0].read_text()) == [AHEAD]
            term.proc.send_signal(sig)
            assert term.proc.wait(30) != 0
        finally:
            release.set()
            term.close()
        assert AHEAD not in json.dumps([r.messages for r in server.requests])  # never sent
        said = f"typed ahead in the last run and never sent: “{AHEAD}”"
        if resumed_by == "print":  # `-c -p` says it on stderr, once, whichever run resumes first
            first, second = (print_run(tmp_path, server.base_url, "-c", "-p", "/history") for _ in range(2))
            assert first.returncode == 0 and said in first.stderr and "(up-arrow recalls it)" in first.stderr
            assert said not in second.stderr
            return

        # Resumed: said once under the last exchanges; up-arrow brings it back, and Enter sends it
        again = await drive(tmp_path, lambda req: Reply.text("GOT IT"), ["\x1b[A\r"], server=server,
                            continue_last=True)
    out = " ".join(again.out.split())
    assert f"{said} (up-arrow recalls it)" in out, again.out
    assert message_text(server.requests[-1].messages[-1]) == AHEAD
    assert not list((home / "projects").glob("*/*/typed-ahead.json"))  # said once: the record is gone
