"""Every message the user typed goes to the model with every later request of the session, verbatim
and in order, whatever the runs before did: killed while sending, unable to reach the model, or
answered. A short message ("go on", "ok") answered once was left out of the requests after it, and
the reply to it was joined to the answer before it, also when that answer was the session's own
close of a turn that got none ("this turn ended before an answer"): the model then read the
session's marker and its own reply as one message, and never the user's words that asked for it."""

from __future__ import annotations

import asyncio
import os
import signal
import subprocess
import sys
import tempfile
import threading
from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from compact_agent.agent.run.options import SessionOptions, session_root
from compact_agent.config import Settings
from compact_agent.early_prompt import save_early
from compact_agent.session import journal
from compact_agent.ui.print_mode import run_print
from tests.e2e.conftest import REPO
from tests.fakes.openai_server import FakeOpenAIServer, Fault, Reply, error_body, user_messages

from .test_print_prompt_saved_early import fake
from .test_resume_after_failures import dead_endpoint

CLOSED = "[compact-agent: this turn ended before an answer"


def started(cli, *args: str) -> subprocess.Popen:
    """`compact-agent ARGS` as a process the test can kill."""
    env = {k: v for k, v in os.environ.items() if not k.endswith("_API_KEY")}
    env.update({"COMPACT_AGENT_HOME": str(cli.home), "PYTHONPATH": str(REPO / "src"),
                "COMPACT_AGENT_CONFIG": str(cli.home / "config.toml")})
    return subprocess.Popen([sys.executable, "-m", "compact_agent.cli", *args], cwd=cli.cwd, env=env,
                            stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE)


def typed(req) -> list[str]:
    return [m["content"] for m in user_messages(req)]


def pairs_intact(req) -> bool:
    """Every tool call of the request is answered by the tool messages right after it, and every
    tool message answers a call just made."""
    open_calls: set[str] = set()
    for m in req.messages:
        if m["role"] == "tool":
            if m.get("tool_call_id") not in open_calls:
                return False
            open_calls.discard(m["tool_call_id"])
            continue
        if open_calls:
            return False
        if m["role"] == "assistant":
            open_calls = {c["id"] for c in m.get("tool_calls") or []}
    return not open_calls


def replies(req) -> list[str]:
    return [str(m.get("content") or "") for m in req.messages if m["role"] == "assistant"]


def test_a_short_message_after_a_killed_and_a_failed_run_goes_with_every_later_request(cli):
    arrived = threading.Event()

    def answer(req):
        if req.messages[-1]["role"] == "user" and req.messages[-1]["content"] == "go on":
            return Reply.tools([("glob", {"pattern": "*.txt"})])  # a tool call in the answer
        return Reply.text("done" if req.messages[-1]["role"] == "tool" else "ok")

    def hold_the_first(req, attempt):
        if typed(req) == ["remember A"]:
            arrived.set()
            return Fault.slow(120)  # the run is killed while it waits
        return None

    (cli.cwd / "notes.txt").write_text("x\n")
    with FakeOpenAIServer(answer, faults=hold_the_first) as server:
        proc = started(cli, "-p", "remember A", *fake(server))
        try:
            assert arrived.wait(60), "the first run never sent its request"
            proc.send_signal(signal.SIGKILL)  # killed during its request
            proc.wait(30)
        finally:
            proc.kill()
            proc.communicate()
        failed = cli("-c", "-p", "remember B", "--base-url", dead_endpoint(), "--api-key", "k")
        answered = cli("-c", "-p", "go on", *fake(server))
        later = cli("-c", "-p", "ok", *fake(server))
        last = cli("-c", "-p", "and the last one", *fake(server))
    assert failed.code == 1 and answered.code == 0, failed.stderr + answered.stderr
    assert later.code == 0 and last.code == 0, later.stderr + last.stderr
    sent = [r for r in server.requests if r.index > 0]
    assert [typed(r) for r in sent] == [
        ["remember A", "remember B", "go on"],
        ["remember A", "remember B", "go on"],  # the glob's result goes back
        ["remember A", "remember B", "go on", "ok"],
        ["remember A", "remember B", "go on", "ok", "and the last one"],
    ]
    for r in sent:
        assert pairs_intact(r), r.messages
        # The session's close of a turn that got no answer is a message of its own, never joined to a reply.
        assert all(text.startswith(CLOSED) == (CLOSED in text) for text in replies(r)), replies(r)
        assert all(not text.startswith(CLOSED) or text.endswith("]") for text in replies(r)), replies(r)
    assert "done" in replies(sent[-1]) and "ok" in replies(sent[-1])


# -- any mix of runs, in process --------------------------------------------------------------------

KINDS = st.sampled_from(["killed", "failed", "ok", "ok with a tool"])
PROMPTS = st.sampled_from(["ok", "go on", "继续", "yes", "fix the parser", "and the tests"])


def killed_while_starting(opts: SessionOptions, prompt: str) -> None:
    """What a run killed before its first request leaves: its prompt saved, nothing else (the
    killed process's memory of that save goes with it)."""
    early, problem = save_early(opts, prompt)
    assert early is not None and problem is None
    journal.claim_early(session_root(opts.cwd.resolve(), opts.home) / f"{early.session_id}.jsonl")


@settings(max_examples=12, deadline=None, derandomize=True, database=None,
          suppress_health_check=[HealthCheck.too_slow])
@given(runs=st.lists(st.tuples(KINDS, PROMPTS), min_size=2, max_size=6))
def test_every_message_typed_in_any_mix_of_killed_failed_and_answered_runs_goes_with_each_request(runs):
    """Every request of every run holds all the user typed so far, in order and verbatim, its tool
    calls answered, and the session's close of an unanswered turn never joined to a reply. (A run
    killed while sending leaves on disk what a failed one does: the request, no reply.)"""
    state = {"mode": "ok"}

    def answer(req):
        last = req.messages[-1]
        if state["mode"] == "failed":
            return Reply.error(400, error_body("the request was refused", type="invalid_request_error"))
        if state["mode"] == "ok with a tool" and last["role"] == "user":
            return Reply.tools([("glob", {"pattern": "*.txt"})])
        return Reply.text("done" if last["role"] == "tool" else "ok")

    with tempfile.TemporaryDirectory() as tmp, FakeOpenAIServer(answer) as server:
        cwd = Path(tmp) / "project"
        cwd.mkdir()
        said: list[str] = []
        open_ = False  # the history ends at a message the last run left unanswered (failed or killed)
        for n, (kind, prompt) in enumerate(runs):
            opts = SessionOptions(cwd=cwd, model="fake-model", base_url=server.base_url, api_key="k",
                                  permission_mode="yes", home=Path(tmp) / "home", continue_last=n > 0,
                                  settings=Settings(memory_enabled=False, max_retries=0, transient_retries=0))
            state["mode"] = kind
            seen = len(server.requests)
            if not (kind != "killed" and open_ and said[-1] == prompt):  # else a retry of that turn: once
                said.append(prompt)
            open_ = kind in ("killed", "failed")
            if kind == "killed":
                killed_while_starting(opts, prompt)
                continue
            code = asyncio.run(run_print(opts, prompt))
            assert code == (1 if kind == "failed" else 0), (kind, code)
            sent = server.requests[seen:]
            assert sent, kind
            for r in sent:
                assert typed(r) == said, (runs, r.messages)
                assert pairs_intact(r), r.messages
                assert all(text.startswith(CLOSED) == (CLOSED in text) for text in replies(r)), replies(r)
