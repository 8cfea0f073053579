"""A pre-imported parent that forks real compact-agent processes on request, for the kill harness.

Most of a short `compact-agent -p` run is Python importing pydantic-ai (1.5-3 s); a kill test runs
dozens of them. This process imports everything once, then for each request forks a child that
sets up its environment, working directory and output files and calls the real entry point
(`compact_agent.cli.main()`, or the multi-turn driver). The child is a real, separate process: the
harness stops it, inspects the disk and SIGKILLs it like any other. The zygote itself stays
single-threaded and never starts an event loop or a client, so forking it is safe.

Protocol (JSON lines): stdin gets `{"kind": "cli"|"drive", "argv": [...], "env": {...}, "cwd": ...,
"out": path, "err": path}`; stdout answers `{"pid": n}`, then `{"pid": n, "stopped": true}` when a
child stops and `{"pid": n, "exit": code}` when it ends (-signal when killed).
"""

from __future__ import annotations

import asyncio
import json
import os
import select
import sys
from typing import Any

# Everything a run imports, imported once here.
import openai  # noqa: F401
import pydantic_ai.models.openai  # noqa: F401
import pydantic_ai.providers.openai  # noqa: F401

import compact_agent.agent.runner  # noqa: F401
import compact_agent.cli
from compact_agent import crashpoints
from tests.reliability import drive


def _send(obj: dict[str, Any]) -> None:
    os.write(1, (json.dumps(obj) + "\n").encode())  # unbuffered: nothing for a child to inherit


def _child(req: dict[str, Any]) -> int:
    os.chdir(req["cwd"])
    os.environ.clear()
    os.environ.update(req["env"])
    null = os.open(os.devnull, os.O_RDONLY)
    os.dup2(null, 0)
    for fd, path in ((1, req["out"]), (2, req["err"])):
        os.dup2(os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644), fd)
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


def main() -> None:
    buf = b""
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
                pid = os.fork()
                if pid == 0:
                    code = 1
                    try:
                        code = _child(req)
                    finally:
                        os._exit(code)
                _send({"pid": pid})
        while True:
            try:
                pid, status = os.waitpid(-1, os.WNOHANG | os.WUNTRACED)
            except ChildProcessError:
                break
            if pid == 0:
                break
            if os.WIFSTOPPED(status):
                _send({"pid": pid, "stopped": True})
            else:
                _send({"pid": pid, "exit": os.waitstatus_to_exitcode(status)})


if __name__ == "__main__":
    main()
