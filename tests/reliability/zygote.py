"""A pre-imported parent that forks real compact-agent processes on request, for the kill harness.

Most of a short `compact-agent -p` run is Python importing pydantic-ai (1.5-3 s); a kill test runs
dozens of them. This process imports everything once, then for each request forks a child that
sets up its environment, working directory and output files and calls the real entry point
(`compact_agent.cli.main()`, or the multi-turn driver). The child is a real, separate process: the
harness stops it, inspects the disk and SIGKILLs it like any other. The zygote itself stays
single-threaded, and has no event loop or client open when it forks (the one run it streams to warm
up, in-process, is over and closed first), so forking it is safe.

Protocol (JSON lines, all keyed by a token the harness picks, never by pid, which the system
reuses): stdin gets `{"op": "spawn", "token": t, "kind": "cli"|"drive", "argv": [...], "env":
{...}, "cwd": ..., "out": path, "err": path}`, optionally with `"stdin": path` (a named pipe the
child reads as its stdin) or `"tty": path` (a terminal's other side as its stdin, stdout and
stderr; "out" and "err" then stay empty), or `{"op": "signal", "token": t, "sig": name}` (STOP,
KILL, TERM, ...); stdout answers `{"token": t, "pid": n}`, then `{"token": t, "stopped": true}`
when the child stops and `{"token": t, "exit": code}` when it ends (-signal when killed). Signals go
through the zygote because only it knows whether the child is still unreaped (so the pid is still the child's).

`python -m tests.reliability.zygote --serve FD` imports everything once for every test process of a
run instead: each connection to the listening socket FD gets a zygote of its own, forked from it,
that speaks the same protocol over the connection (`serve`).
"""

from __future__ import annotations

import asyncio
import atexit
import contextlib
import gc
import importlib
import json
import os
import pkgutil
import select
import signal
import socket
import sys
import threading
from typing import Any

# Everything a run imports, imported once here.
import anthropic._base_client
import httpx2
import openai._base_client
import pydantic_ai.models.openai  # noqa: F401
import pydantic_ai.providers.openai  # noqa: F401
import typer.main
from pydantic_ai.messages import ModelMessagesTypeAdapter

import compact_agent.agent.run.runner  # noqa: F401
import compact_agent.cli
import compact_agent.replay.report  # noqa: F401 - `analyze` (the analyzer's CLI tests fork from here too)
from compact_agent import crashpoints
from tests.reliability import drive


def _warm() -> None:
    """What a run would otherwise do for the first time in every child: import the modules the CLI
    imports only when a command needs them (every module of the package, and the SDK parts a
    request loads), and build pydantic-ai's message adapter, which is built on first use. A forked
    `-p` run took 0.34-0.44 s of CPU without this and 0.19 s with it; the suite forks about two thousand.
    No module of the package reads the environment when imported (crashpoints is configured again
    in each child), so importing here changes no run's behaviour. Of the others, fastmcp reads its
    FASTMCP_* settings (and a .env file in the current directory) when imported: the tests set none.

    pydantic-ai's MCP client (with fastmcp's transports), imported only by a run whose settings
    name MCP servers, took such a run 0.9 s of CPU; the Anthropic model's modules, rich's emoji
    table and the date parser are each imported by a few hundred runs."""
    for module in pkgutil.walk_packages(compact_agent.__path__, "compact_agent."):
        if not module.name.endswith("__main__"):  # that one runs the CLI when imported
            importlib.import_module(module.name)
    for name in ("openai.resources.chat.completions.completions", "openai.lib.streaming.chat",
                 "openai.resources.chat.chat", "anyio._backends._asyncio", "genai_prices.data", "encodings.idna",
                 "typer._adapters", "typer._click.decorators", "ctypes", "pydantic_ai.mcp",
                 "fastmcp.client.transports", "pydantic_ai.models.anthropic", "rich._emoji_codes", "_strptime"):
        importlib.import_module(name)
    ModelMessagesTypeAdapter.dump_json(ModelMessagesTypeAdapter.validate_python([]))
    _build_the_command_once()
    _stream_a_run_once()
    # What is alive now stays alive for the zygote's life: out of the collector's sight, a child's
    # collections do not walk (and so copy) the pages of the millions of objects it inherited.
    gc.collect()
    gc.freeze()


def _stream_a_run_once() -> None:
    """What pydantic-ai, the openai SDK and pydantic build on a run's first request, built here: a
    pydantic-ai agent (not the package's: none of its state is touched) streams a tool call and a
    text reply from an OpenAI model whose transport answers in this process (no socket, no thread),
    with the SDK's own types. The validators, serialisers, annotations and patterns they build on
    first use are then the zygote's, shared by every child: a forked `-p` run took 0.165-0.18 s of
    CPU without it and 0.12-0.15 s with it (9,700 pages copied on write against 8,700; 2 cores)."""
    from pydantic_ai import Agent
    from pydantic_ai.models.openai import OpenAIChatModel
    from pydantic_ai.providers.openai import OpenAIProvider

    from tests.fakes._http import sse_chunks

    def completion(message: dict[str, Any], reason: str) -> dict[str, Any]:
        return {"id": "warm", "created": 0, "model": "warm", "system_fingerprint": "fp_warm",
                "choices": [{"index": 0, "message": message, "finish_reason": reason}],
                "usage": {"prompt_tokens": 10, "completion_tokens": 2, "total_tokens": 12}}

    call = {"id": "call_warm", "type": "function", "function": {"name": "look", "arguments": '{"path": "a.py"}'}}
    replies = iter([completion({"role": "assistant", "content": None, "tool_calls": [call]}, "tool_calls"),
                    completion({"role": "assistant", "content": "done"}, "stop")])

    def answer(request: httpx2.Request) -> httpx2.Response:
        events = "".join(f"data: {json.dumps(c)}\n\n" for c in sse_chunks(next(replies), include_usage=True))
        return httpx2.Response(200, headers={"content-type": "text/event-stream"},
                               content=(events + "data: [DONE]\n\n").encode())

    async def run() -> None:
        async with httpx2.AsyncClient(transport=httpx2.MockTransport(answer)) as client:
            provider = OpenAIProvider(base_url="http://warm.invalid/v1", api_key="warm", http_client=client)
            agent = Agent(OpenAIChatModel("warm", provider=provider))

            @agent.tool_plain
            def look(path: str) -> str:
                return path

            async with agent.run_stream("warm") as streamed:
                await streamed.get_output()

    asyncio.run(run())
    asyncio.set_event_loop_policy(None)  # as a fresh process has it: no policy made yet
    assert threading.active_count() == 1, "the warm run left a thread behind: forking would copy it half-made"


def _build_the_command_once() -> None:
    """The command line's click command, built from the Typer app once here rather than in every
    child (`main()` builds it on each run: 13-19 ms of CPU in a fork, a tenth of a short run's). What
    it builds is the same: the building reads the app's declarations, never the environment, the
    current directory or the terminal (test_zygote_command.py checks it); each child then reads
    its own command line with it, in its own copy."""
    app, build = compact_agent.cli.app, typer.main.get_command
    command = build(app)

    def built(typer_instance: typer.Typer) -> Any:
        return command if typer_instance is app else build(typer_instance)

    typer.main.get_command = built


_warm()

# The SDKs' back-off between retries of a refused connection or a 5xx (0.5-8 s, jittered; a dead
# endpoint cost each run ~2 s of sleep) is waiting, not behaviour: forked runs retry as often as
# configured, with the same requests and errors, without the sleep. The waits themselves are tested
# in-process (tests/reliability/test_provider_failures.py: retry-after honoured).
openai._base_client.BaseClient._calculate_retry_timeout = lambda self, *args, **kwargs: 0.0  # type: ignore[method-assign]
anthropic._base_client.BaseClient._calculate_retry_timeout = lambda self, *args, **kwargs: 0.0  # type: ignore[method-assign]


def _send(obj: dict[str, Any]) -> None:
    os.write(1, (json.dumps(obj) + "\n").encode())  # unbuffered: nothing for a child to inherit


def _child(req: dict[str, Any], out_fd: int, err_fd: int) -> int:
    if req.get("tty"):  # a terminal on stdin, stdout and stderr, in a session of its own
        os.setsid()
        tty = os.open(req["tty"], os.O_RDWR | os.O_NOCTTY)  # not its controlling one: as Popen hands it over
        for fd in (0, 1, 2):
            os.dup2(tty, fd)
        sys.stdout.reconfigure(line_buffering=True)  # as a fresh interpreter's is on a terminal
    else:
        os.dup2(out_fd, 1)
        os.dup2(err_fd, 2)
        # A named pipe the test writes the input into (opening waits for its writer), else nothing.
        os.dup2(os.open(req.get("stdin") or os.devnull, os.O_RDONLY), 0)
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
    # As an interpreter's exit does (os._exit below skips them): a run's exit handlers, those its
    # modules set when imported (inherited) and those it set itself (the no-editor folder it made for
    # its life was left behind in the temp dir, one a run).
    atexit._run_exitfuncs()
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
            _forget_children_signal()
            code = _child(req, out_fd, err_fd)
        except BaseException as e:  # noqa: BLE001 - the set-up failed: say so in the err file
            os.write(err_fd, f"zygote child set-up failed: {e!r}\n".encode())
        finally:
            os._exit(code)
    os.close(out_fd)
    os.close(err_fd)
    return pid


# A child's stop or end wakes the loop below: SIGCHLD writes a byte into this pipe (set_wakeup_fd),
# which the loop waits on beside stdin. Polling every 5 ms instead cost each idle zygote 0.8% of a
# core, four zygotes through the whole suite.
_woken_r, _woken_w = os.pipe()


def _listen_for_children() -> None:
    for fd in (_woken_r, _woken_w):
        os.set_blocking(fd, False)
    signal.signal(signal.SIGCHLD, lambda *_: None)  # the handler does nothing: the byte is the news
    signal.set_wakeup_fd(_woken_w)


def _forget_children_signal() -> None:
    """In a child: SIGCHLD and the wakeup pipe as a fresh process has them (the run's own
    subprocesses and event loop set their own)."""
    signal.set_wakeup_fd(-1)
    signal.signal(signal.SIGCHLD, signal.SIG_DFL)
    os.close(_woken_r)
    os.close(_woken_w)


def main() -> None:
    _listen_for_children()
    buf = b""
    tokens: dict[int, str] = {}  # unreaped children
    while True:
        ready, _, _ = select.select([0, _woken_r], [], [])
        if _woken_r in ready:  # a byte a SIGCHLD: one read takes them all (a byte left would only wake it again)
            with contextlib.suppress(BlockingIOError):
                os.read(_woken_r, 4096)
        if 0 in ready:
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
                        os.kill(pid, getattr(signal, f"SIG{req['sig']}"))
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


def serve(listening: socket.socket) -> None:
    """One warmed process for every test process of a run (`pytest -n N`): each connection to
    `listening` gets a zygote of its own, forked from this one, speaking the protocol above over it;
    it ends when its test process closes the connection. Each test process warming a zygote of its
    own cost 4-5 s of CPU a worker. Ends when stdin does, once its zygotes have."""
    zygotes: set[int] = set()
    while True:
        ready, _, _ = select.select([0, listening], [], [], 1.0)
        if listening in ready:
            conn, _ = listening.accept()
            pid = os.fork()
            if pid == 0:
                _zygote_over(listening, conn)
            conn.close()
            zygotes.add(pid)
        if 0 in ready and not os.read(0, 4096):
            break
        zygotes -= _reaped()
    listening.close()
    for pid in zygotes:
        with contextlib.suppress(ChildProcessError):
            os.waitpid(pid, 0)


def _reaped() -> set[int]:
    gone: set[int] = set()
    with contextlib.suppress(ChildProcessError):
        while (pid := os.waitpid(-1, os.WNOHANG)[0]) != 0:
            gone.add(pid)
    return gone


def _zygote_over(listening: socket.socket, conn: socket.socket) -> None:
    """In a child of `serve`: a zygote whose stdin and stdout are `conn`, with a wakeup pipe of its
    own (the one made at import is the serving process's, shared by every child it forks)."""
    global _woken_r, _woken_w
    code = 0
    try:
        listening.close()
        os.dup2(conn.fileno(), 0)
        os.dup2(conn.fileno(), 1)
        conn.close()
        os.close(_woken_r)
        os.close(_woken_w)
        _woken_r, _woken_w = os.pipe()
        main()
    except BaseException as e:  # noqa: BLE001 - said on stderr, as an interpreter would
        sys.stderr.write(f"zygote ended: {e!r}\n")
        code = 1
    finally:
        os._exit(code)


if __name__ == "__main__":
    if sys.argv[1:2] == ["--serve"]:  # --serve FD: a listening socket's descriptor
        serve(socket.socket(fileno=int(sys.argv[2])))
    else:
        main()
