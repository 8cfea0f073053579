"""A pre-imported parent that forks real compact-agent processes on request, for the kill harness.

Most of a short `compact-agent -p` run is Python importing pydantic-ai (1.5-3 s); a kill test runs
dozens of them. This process imports everything once, then for each request forks a child that
sets up its environment, working directory and output files and calls the real entry point
(`compact_agent.cli.main()`, or the multi-turn driver). The child is a real, separate process: the
harness stops it, inspects the disk and SIGKILLs it like any other. The zygote itself stays
single-threaded and never starts an event loop or a client, so forking it is safe.

Protocol (JSON lines, all keyed by a token the harness picks, never by pid, which the system
reuses): stdin gets `{"op": "spawn", "token": t, "kind": "cli"|"drive", "argv": [...], "env":
{...}, "cwd": ..., "out": path, "err": path}` or `{"op": "signal", "token": t, "sig": "STOP"|"KILL"}`;
stdout answers `{"token": t, "pid": n}`, then `{"token": t, "stopped": true}` when the child stops
and `{"token": t, "exit": code}` when it ends (-signal when killed). Signals go through the zygote
because only it knows whether the child is still unreaped (so the pid is still the child's).
"""

from __future__ import annotations

import asyncio
import json
import os
import select
import signal
import sys
from typing import Any

# Everything a run imports, imported once here.
import anthropic._base_client
import openai._base_client
import pydantic_ai.models.openai  # noqa: F401
import pydantic_ai.providers.openai  # noqa: F401

import compact_agent.agent.run.runner  # noqa: F401
import compact_agent.cli
import compact_agent.replay.report  # noqa: F401 - `analyze` (the analyzer's CLI tests fork from here too)
from compact_agent import crashpoints
from tests.reliability import drive

# The SDKs' back-off between retries of a refused connection or a 5xx (0.5-8 s, jittered; a dead
# endpoint cost each run ~2 s of sleep) is waiting, not behaviour: forked runs retry as often as
# configured, with the same requests and errors, without the sleep. The waits themselves are tested
# in-process (tests/reliability/test_provider_failures.py: retry-after honoured).
openai._base_client.BaseClient._calculate_retry_timeout = lambda self, *args, **kwargs: 0.0  # type: ignore[method-assign]
anthropic._base_client.BaseClient._calculate_retry_timeout = lambda self, *args, **kwargs: 0.0  # type: ignore[method-assign]


def _send(obj: dict[str, Any]) -> None:
    os.write(1, (json.dumps(obj) + "\n").encode())  # unbuffered: nothing for a child to inherit


def _child(req: dict[str, Any], out_fd: int, err_fd: int) -> int:
    os.dup2(out_fd, 1)
    os.dup2(err_fd, 2)
    os.dup2(os.open(os.devnull, os.O_RDONLY), 0)
    os.chdir(req["cwd"])
    os.environ.clear()
    os.environ.update(req["env"])
    crashpoints.configure(os.environ.get(crashpoints.ENV, ""), os.environ.get(crashpoints.TALLY_ENV, ""))
    sys.argv = ["compact-agent", *req["argv"]]
    code = 0
    try:
        if req["kind"] == "drive":
            asyncio.run(drive.main(req["argv"][0], int(req["argv"][1]), req["argv"][2:]))
        else:
            compact_agent.cli.main()
    except SystemExit as e:
        code = e.code if isinstance(e.code, int) else (0 if e.code is None else 1)
    except BaseException as e:  # noqa: BLE001 - reported like an uncaught exception would be
        sys.stderr.write(f"{type(e).__name__}: {e}\n")
        code = 1
    sys.stdout.flush()
    sys.stderr.flush()
    crashpoints.write_tally()
    return code


def _spawn(req: dict[str, Any]) -> int:
    # The output files exist before the child runs, whatever happens to it.
    out_fd = os.open(req["out"], os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
    err_fd = os.open(req["err"], os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
    pid = os.fork()
    if pid == 0:
        code = 1
        try:
            code = _child(req, out_fd, err_fd)
        except BaseException as e:  # noqa: BLE001 - the set-up failed: say so in the err file
            os.write(err_fd, f"zygote child set-up failed: {e!r}\n".encode())
        finally:
            os._exit(code)
    os.close(out_fd)
    os.close(err_fd)
    return pid


def main() -> None:
    buf = b""
    tokens: dict[int, str] = {}  # unreaped children
    while True:
        ready, _, _ = select.select([0], [], [], 0.005)
        if ready:
            chunk = os.read(0, 65536)
            if not chunk:
                return
            buf += chunk
            while b"\n" in buf:
                line, buf = buf.split(b"\n", 1)
                req = json.loads(line)
                if req["op"] == "spawn":
                    pid = _spawn(req)
                    tokens[pid] = req["token"]
                    _send({"token": req["token"], "pid": pid})
                else:
                    pid = next((p for p, t in tokens.items() if t == req["token"]), None)
                    if pid is not None:  # still ours: the pid cannot have been reused
                        os.kill(pid, signal.SIGSTOP if req["sig"] == "STOP" else signal.SIGKILL)
        while tokens:
            try:
                pid, status = os.waitpid(-1, os.WNOHANG | os.WUNTRACED)
            except ChildProcessError:
                break
            if pid == 0:
                break
            if os.WIFSTOPPED(status):
                _send({"token": tokens[pid], "stopped": True})
            else:
                _send({"token": tokens.pop(pid), "exit": os.waitstatus_to_exitcode(status)})


if __name__ == "__main__":
    main()
