"""A long paste into the answer to "what should the model do instead?" shows as its placeholder, as
at the prompt, and the model gets it whole, its lines kept: it was shown whole, filling the screen
(and again in the scrollback), and reached the model as one run-on line."""

from __future__ import annotations

from pathlib import Path

from compact_agent.agent.safety.permissions import INSTEAD
from tests.fakes.openai_server import FakeOpenAIServer, Reply, tool_results

from .pty_driver import Terminal
from .repl_driver import pasted
from .test_approval_instead import asked_what_instead

STEPS = "".join(f"    step-{i:02d}: do this part of the plan\n" for i in range(40))


def bash_then_counts(req) -> Reply:
    """A bash call; then how many lines of the user's instruction it got (not the lines themselves)."""
    results = tool_results(req)
    if not results:
        return Reply.tools([("bash", {"command": "echo RAN"})])
    told = str(results[-1]["content"]).split(INSTEAD, 1)[-1]
    return Reply.text(f"DONE: told {told.count('step-')} steps on {len(told.strip().splitlines())} lines")


def test_a_long_paste_into_what_to_do_instead_shows_as_its_placeholder(tmp_path: Path) -> None:
    with FakeOpenAIServer(bash_then_counts) as server:
        term = Terminal(tmp_path, server.base_url, cols=100, rows=40)
        try:
            asked = asked_what_instead(term)
            term.type(pasted(STEPS.replace("\n", "\r")))  # as a terminal sends a paste
            term.read_until("[pasted 40 lines]", asked)
            term.type("\r")
            done = term.read_until("DONE: told 40 steps on 40 lines", asked)  # whole, its lines kept
            shown = term.text(asked, done)
            assert "step-39" not in shown and "step-20" not in shown, shown  # not echoed whole
            term.prompt(done)
            assert term.finish() == 0
        finally:
            term.close()
    told = str(tool_results([r for r in server.requests if tool_results(r)][0])[-1]["content"])
    assert told.endswith(f"{INSTEAD} {STEPS.strip()}"), told  # every line, each with its indentation
