"""Ctrl-C ends every command the same way: `compact-agent: interrupted` on stderr, exit 130. In
`sessions`, `config`, and the seconds before the REPL or a `-p` run takes over, the command-line
library caught the interrupt and exited 130 without a word, where a `-p` run said that line.

Each run stops at a known point, an import it makes on the way (a finder put first in sys.meta_path
holds it, after writing a file that says it is there); the test sends SIGINT once that file is."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time

import pytest

from .conftest import REPO, Cli

HOLD = """
import os, sys, time

class Hold:
    # The import of HOLD_AT never finishes: READY says the run got there, and it waits for Ctrl-C.

    def find_spec(self, name, path=None, target=None):
        if name == os.environ["HOLD_AT"]:
            open(os.environ["READY"], "w").close()
            while True:
                time.sleep(0.01)
        return None

sys.meta_path.insert(0, Hold())
"""


def interrupted_at(cli: Cli, module: str, *args: str) -> tuple[int, str, str]:
    """Runs `compact-agent ARGS` held at the import of `module`, sends SIGINT there: exit, stdout, stderr."""
    hook = cli.home.parent / "hold"
    hook.mkdir(exist_ok=True)
    (hook / "sitecustomize.py").write_text(HOLD)
    ready = cli.home.parent / "ready"
    env = {k: v for k, v in os.environ.items() if not k.endswith("_API_KEY")}
    env.update({"COMPACT_AGENT_HOME": str(cli.home), "COMPACT_AGENT_CONFIG": str(cli.home / "config.toml"),
                "PYTHONPATH": f"{hook}:{REPO / 'src'}", "HOLD_AT": module, "READY": str(ready)})
    with subprocess.Popen([sys.executable, "-m", "compact_agent.cli", *args], cwd=cli.cwd, env=env,
                          stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE) as proc:
        try:
            deadline = time.monotonic() + 60
            while not ready.exists():  # the readiness signal
                assert proc.poll() is None and time.monotonic() < deadline, proc.communicate()
                time.sleep(0.01)
            proc.send_signal(signal.SIGINT)
            out, err = proc.communicate(timeout=30)
        finally:
            if proc.poll() is None:
                proc.kill()
                proc.communicate()
    return proc.returncode, out.decode(), err.decode()


@pytest.mark.parametrize(("args", "module"), [
    (("sessions",), "compact_agent.agent.run.options"),  # listing this directory's sessions
    (("config",), "compact_agent.settings_in_use"),  # the settings read, the table not yet written
    ((), "compact_agent.agent.run.options"),  # the REPL, before it takes over
    (("-p", "hello", "--model", "fake-model", "--base-url", "http://127.0.0.1:9/v1"),
     "compact_agent.agent.run.options"),  # a -p run, before its own handler is in place
], ids=["sessions", "config", "repl-start", "print-start"])
def test_ctrl_c_says_interrupted_and_exits_130(cli: Cli, args: tuple[str, ...], module: str) -> None:
    code, out, err = interrupted_at(cli, module, *args)
    assert (code, err) == (130, "compact-agent: interrupted\n"), (out, err)
    assert out == ""


def test_with_json_output_a_script_reads_why(cli: Cli) -> None:
    """A `-p --output-format json` run interrupted before its turn says so in its error object too."""
    code, out, err = interrupted_at(cli, "compact_agent.agent.run.options", "-p", "hello", "--output-format", "json",
                                    "--model", "fake-model", "--base-url", "http://127.0.0.1:9/v1")
    assert (code, err) == (130, "compact-agent: interrupted\n")
    assert '"interrupted"' in out, out
