"""`compact-agent --output-format json "hi"` without -p said 'the REPL needs a terminal on stdin',
which sent the user looking at stdin; on a terminal the REPL started and the flag did nothing. The
flag is print mode's: the line says so and how to give it, exit 2, whatever stdin is."""

from __future__ import annotations

import os
import pty
import subprocess
import sys

import pytest

from tests.fakes.openai_server import FakeOpenAIServer, Reply

from .conftest import REPO
from .test_repl_terminal import read_until


@pytest.mark.parametrize("fmt", ["json", "stream-json"])
def test_output_format_without_p_says_it_is_for_print_mode(cli, fmt: str) -> None:
    run = cli("--output-format", fmt, "hi", "--model", "fake-model", "--base-url", "http://127.0.0.1:9/v1",
              "--api-key", "k")
    assert run.code == 2 and run.stdout == "", run.stdout + run.stderr
    assert run.stderr == (f"compact-agent: --output-format applies to print mode (-p): compact-agent -p "
                          f"--output-format {fmt} \"QUERY\"\n")


def test_text_output_format_and_print_mode_are_as_before(cli) -> None:
    plain = cli("--output-format", "text", "hi", "--model", "fake-model", "--api-key", "k")
    assert plain.code == 2 and "the REPL needs a terminal on stdin" in plain.stderr, plain.stderr
    printing = cli("-p", "--output-format", "json", "hi", "--model", "fake-model", "--base-url",
                   "http://127.0.0.1:9/v1", "--api-key", "k")
    assert "applies to print mode" not in printing.stderr and printing.json()["is_error"], printing.stdout


def test_on_a_terminal_the_repl_does_not_start_with_it(cli) -> None:
    """On a terminal the REPL started and `--output-format json` did nothing."""
    with FakeOpenAIServer(lambda req: Reply.text("ok")) as server:
        env = {k: v for k, v in os.environ.items() if not k.endswith("_API_KEY")}
        env.update({"COMPACT_AGENT_HOME": str(cli.home), "PYTHONPATH": str(REPO / "src"), "TERM": "xterm",
                    "PROMPT_TOOLKIT_NO_CPR": "1", "COMPACT_AGENT_CONFIG": str(cli.home / "config.toml")})
        main, child = pty.openpty()
        proc = subprocess.Popen([sys.executable, "-m", "compact_agent.cli", "--output-format", "json", "--model",
                                 "fake-model", "--base-url", server.base_url, "--api-key", "k", "hi"],
                                cwd=cli.cwd, env=env, stdin=child, stdout=child, stderr=child, close_fds=True)
        os.close(child)
        seen = bytearray()
        try:
            assert read_until(main, b"applies to print mode (-p)", seen), seen.decode(errors="replace")
            assert proc.wait(60) == 2
        finally:
            if proc.poll() is None:
                proc.kill()
            os.close(main)
        assert not server.requests
