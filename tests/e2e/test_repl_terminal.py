"""The real `compact-agent` binary in a pseudo-terminal: QUERY starts the REPL with it, the answer
streams, Ctrl-D leaves with the resume line; without a terminal the REPL says so in one line."""

from __future__ import annotations

import os
import pty
import select
import subprocess
import sys
import time

from tests.fakes.openai_server import FakeOpenAIServer, Reply

from .conftest import REPO


def read_until(fd: int, needle: bytes, seen: bytearray, timeout: float = 90, after: int = 0) -> bool:
    deadline = time.monotonic() + timeout
    while needle not in seen[after:]:
        left = deadline - time.monotonic()
        if left <= 0:
            return False
        ready, _, _ = select.select([fd], [], [], left)
        if ready:
            try:
                chunk = os.read(fd, 65536)
            except OSError:
                return needle in seen[after:]
            if not chunk:
                return needle in seen[after:]
            seen += chunk
    return True


def test_query_opens_the_repl_in_a_terminal(cli):
    with FakeOpenAIServer(lambda req: Reply.text("HELLO FROM THE MODEL")) as server:
        env = {k: v for k, v in os.environ.items() if not k.endswith("_API_KEY")}
        env.update({"COMPACT_AGENT_HOME": str(cli.home), "PYTHONPATH": str(REPO / "src"), "TERM": "xterm", "PROMPT_TOOLKIT_NO_CPR": "1",
                    "COMPACT_AGENT_CONFIG": str(cli.home / "config.toml")})
        main, child = pty.openpty()
        proc = subprocess.Popen([sys.executable, "-m", "compact_agent.cli", "--model", "fake-model", "--base-url",
                                 server.base_url, "--api-key", "k", "say hello"], cwd=cli.cwd, env=env,
                                stdin=child, stdout=child, stderr=child, close_fds=True)
        os.close(child)
        seen = bytearray()
        try:
            assert read_until(main, b"HELLO FROM THE MODEL", seen), seen.decode(errors="replace")
            # the prompt is back (bracketed paste switched on again) after the answer
            assert read_until(main, b"\x1b[?2004h", seen, after=seen.index(b"HELLO FROM THE MODEL"))
            os.write(main, b"\x04")  # Ctrl-D
            assert read_until(main, b"resume this session with", seen), seen.decode(errors="replace")
            assert proc.wait(60) == 0
        finally:
            if proc.poll() is None:
                proc.kill()
            os.close(main)
    assert b"say hello" in seen and b"thinking\xe2\x80\xa6" in seen  # the spinner ran while the model worked


def test_repl_without_a_terminal_is_one_line(cli):
    res = cli("--model", "fake-model", "--base-url", "http://127.0.0.1:9/v1")
    assert res.code == 2 and res.stderr.count("\n") == 1 and "needs a terminal" in res.stderr and "-p" in res.stderr
