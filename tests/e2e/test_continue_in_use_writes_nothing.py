"""A `-c -p` run refused because another run holds the session writes nothing there.

Print mode saves its prompt before its session is built (early_prompt.py). That save let go of the
session's lock at once, and the store took it again only seconds later, when the session opened: a
second `-c -p` started meanwhile saved its prompt too, and was refused as in use only when its own
store opened. Its prompt stayed in the first run's session, went to the model with the first run's
turn, and that run warned of a message "typed" in an earlier run. Now the lock taken for the early
save is kept until the store takes it over, so the second run is refused before it writes anything
(when it looks, as it starts, whether another run holds the session, or when its early save would).

The order is fixed, with no timing: each run waits at pydantic-ai's import for a file of its own
(after its early save), and the server holds the first run's request until the second was refused.
"""

from __future__ import annotations

import subprocess
import threading
import time
from pathlib import Path

from tests.fakes.openai_server import FakeOpenAIServer, Reply, user_messages
from tests.ui.test_typed_prompt_kill import saved

from .held_import import cli_argv, held_env, wait_held
from .test_print_prompt_saved_early import fake, said


def gated(cli, gate: Path, *args: str) -> subprocess.Popen:
    """`compact-agent ARGS` whose start-up waits at pydantic-ai's import until `gate` exists (`reached`
    once it waits there)."""
    env = held_env(cli.home.parent / "gate-hook", cli.home, "pydantic_ai", Path(f"{gate}.reached"), release=gate)
    return subprocess.Popen(cli_argv(*args), cwd=cli.cwd, env=env, stdin=subprocess.DEVNULL,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE)


def reached(gate: Path, proc: subprocess.Popen) -> None:
    """Wait until the run `proc` waits at `gate` (polled: no fixed sleep)."""
    wait_held(Path(f"{gate}.reached"), proc)


def refused_or_reached(gate: Path, proc: subprocess.Popen) -> None:
    """Wait until the run `proc` ended (refused when it found the session in use, before its prompt
    was saved: cli_resume.free) or waits at `gate` (polled: no fixed sleep)."""
    deadline = time.monotonic() + 60
    while not Path(f"{gate}.reached").exists() and proc.poll() is None:
        assert time.monotonic() < deadline, "the run neither ended nor reached the held import"
        time.sleep(0.01)


def files(home: Path) -> dict[str, bytes]:
    return {str(p.relative_to(home)): p.read_bytes() for p in sorted(home.rglob("*")) if p.is_file()}


def test_a_second_continue_refused_as_in_use_leaves_no_prompt_behind(cli):
    arrived, release = threading.Event(), threading.Event()

    def responder(req) -> Reply:
        if req.last_user_text() == "cont 1":
            arrived.set()
            release.wait(60)  # until the second run was refused
        return Reply.text("answered")

    gate_a, gate_b = cli.home.parent / "gate-a", cli.home.parent / "gate-b"
    with FakeOpenAIServer(responder) as server:
        assert cli("-p", "base", *fake(server)).code == 0
        [path] = cli.sessions()
        a = gated(cli, gate_a, "-c", "-p", "cont 1", *fake(server))
        b = None
        try:
            saved(cli.home, "cont 1")  # the first run's prompt saved early; its session not open yet
            reached(gate_a, a)
            b = gated(cli, gate_b, "-c", "-p", "cont 2", *fake(server))
            refused_or_reached(gate_b, b)  # refused as the session is in use, or past its early save
            gate_a.touch()
            assert arrived.wait(60), a.communicate()[1].decode() if a.poll() is not None else "no request"
            before = files(cli.home)  # the first run waits for its answer, holding the session
            gate_b.touch()
            _, b_err = b.communicate(timeout=60)
            assert b.returncode == 1, b_err.decode()
            assert "is in use by another compact-agent process" in b_err.decode()
            assert files(cli.home) == before  # the refused run left nothing: no prompt, no new session
            release.set()
            a_out, a_err = a.communicate(timeout=60)
        finally:
            release.set()
            gate_a.touch()
            gate_b.touch()
            for proc in (a, b):
                if proc is not None and proc.poll() is None:
                    proc.kill()
                    proc.communicate()
    assert a.returncode == 0, a_err.decode()
    assert a_out.decode() == "answered\n"
    assert "had not reached the model" not in a_err.decode()  # nothing "typed" in an earlier run
    assert [m["content"] for m in user_messages(server.requests[-1])] == ["base", "cont 1"]
    assert said(path) == ["base", "answered", "cont 1", "answered"]
    assert cli.sessions() == [path]
    assert b"cont 2" not in b"".join(files(cli.home).values())
