"""`/model NAME` against a --base-url server asks it for its model list first (test_model_not_served.py).
A server that hangs kept the REPL waiting 5 s with nothing on the screen, and Ctrl-C was the only way
out. Now the wait is under the spinner that model requests have, Esc or Ctrl-C stops it (nothing
switched), and a list that does not come in time, or fails, is said in one line of our own: the name
was not checked, and the switch goes on."""

from __future__ import annotations

import asyncio
import re
from pathlib import Path

import pytest

from compact_agent.agent.run import served_models
from tests.fakes.openai_server import FakeOpenAIServer, Fault, Reply

from .pty_driver import Terminal
from .repl_driver import drive

WAIT = 0.3  # the list's wait in these tests (5 s in use): the fake's hang is cut short by its stop()


def answer(req) -> Reply:
    return Reply.text(f"ANSWERED BY {req.body['model']}")


@pytest.mark.parametrize(("fault", "why"), [
    (Fault.slow(60), f"no answer within {WAIT:g} s"),  # a server that hangs
    (Fault.trickle(every=0.05, seconds=60), f"no answer within {WAIT:g} s"),  # one never silent, never done
    (Fault.http(500), "it answered HTTP 500"),
    (Fault.drop(), "no connection"),
])
async def test_a_list_that_cannot_be_read_is_said_in_one_line_and_the_switch_goes_on(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, fault: Fault, why: str) -> None:
    monkeypatch.setattr(served_models, "WAIT_S", WAIT)
    with FakeOpenAIServer(answer, serves=["other-model"], models_fault=fault) as server:
        async with asyncio.timeout(30):
            run = await drive(tmp_path, answer, ["/model other-model\r", "hi\r"], server=server)
        where = server.base_url
    out = " ".join(run.out.split())
    said = f"note: the model list of {where} could not be read ({why}), so other-model was not checked against it"
    assert said in out, run.out
    assert re.findall(r"model \S+ → \S+", out) == ["model fake-model → other-model"], run.out  # switched
    assert "ANSWERED BY other-model" in out, run.out
    assert "Traceback" not in run.out and "Error" not in run.out and "Timeout" not in run.out, run.out


def test_the_wait_for_the_list_shows_and_ctrl_c_stops_it(tmp_path: Path) -> None:
    with FakeOpenAIServer(answer, serves=["other-model"], models_fault=Fault.slow(60)) as server:
        term = Terminal(tmp_path, server.base_url, cols=120, rows=40)
        try:
            start = term.prompt()
            term.type("/model other-model\r")
            waiting = term.read_until("for its models…", start)  # the spinner, as for a model request
            term.type("\x03")  # Ctrl-C
            stopped = term.read_until("not switched; nothing was changed", waiting)
            back = term.prompt(stopped)
            term.type("hi\r")
            done = term.read_until("ANSWERED BY fake-model", back)  # nothing switched
            shown = term.text(start, done)
            assert "Traceback" not in shown and "Cancelled" not in shown and "note:" not in shown, shown
            term.prompt(done)
            assert term.finish() == 0
        finally:
            term.close()
