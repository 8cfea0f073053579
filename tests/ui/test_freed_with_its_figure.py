"""The line that says what the layers freed comes in the turn the context figure drops. The toolbar
under the prompt shows the view the next request would send, shaped by a look that decides nothing;
the request that then makes the decision says it. After a turn whose last results the model had now
seen, the toolbar said `context 1.3k` where the turn's requests had sent 2.5k, and the line saying
two results had been cleared came only at the end of the next turn (shaping.foreseen, SessionFeed.foretell)."""

from __future__ import annotations

import io
import re

from rich.console import Console

from compact_agent.config import Settings
from compact_agent.context import Event
from compact_agent.ui.command_registry import running
from compact_agent.ui.session_feed import SessionFeed
from compact_agent.ui.toolbar import status_line
from tests.e2e.test_resumed_layer_savings import numbers

from .repl_driver import drive
from .test_commands_terminal import answer

CLEARED = re.compile(r"context: old tool results cleared \((\d) results?\), freed ([\d,]+) tokens")


async def test_a_saving_is_said_in_the_turn_whose_end_shows_it(tmp_path, monkeypatch) -> None:
    monkeypatch.setenv("COMPACT_AGENT_HOME", str(tmp_path / "home"))
    monkeypatch.setenv("COMPACT_AGENT_CONFIG", str(tmp_path / "none.toml"))  # not the user's own
    # Microcompact on its count trigger: the large first result is cleared within the turn, the two
    # small ones once the model has seen the last of them: by the look after the turn.
    settings = Settings(priced_compaction=False, microcompact_keep_recent=0, microcompact_trigger=1,
                        microcompact_min_free_tokens=1_000)
    prompts = iter(range(10))

    def at_prompt() -> None:
        repl = running[-1]
        shown = status_line(repl.session) if repl.session is not None else ""
        repl.console.print(f"PROMPT {next(prompts)} [{shown}]", markup=False, highlight=False)

    run = await drive(tmp_path, numbers, ["show the numbers\r", "thanks\r", "ok\r"], settings=settings,
                      context_window=32_000, permission_mode="yes", at_prompt=at_prompt)
    turns = re.split(r"^PROMPT \d .*$", run.out, flags=re.MULTILINE)
    figures = {int(n): float(f) for n, f in re.findall(r"^PROMPT (\d) .*context (\d+\.\d)k/", run.out, re.MULTILINE)}
    first, second = turns[1], turns[2]  # what the first and the second turn printed
    assert "seen" in first and "you are welcome" in second, run.out
    # The first turn's end says every result cleared by the figure under the next prompt…
    [(n, freed)] = CLEARED.findall(first)
    assert n == "3", first
    # …which does not move again, and the next turn says nothing more of them.
    assert figures[1] == figures[2] == figures[3], figures
    assert not CLEARED.findall(second) and not CLEARED.findall(turns[3]), run.out
    # The large result's saving (about 2,000 tokens) and the two small ones' (over 1,000: their trigger).
    assert int(freed.replace(",", "")) > 3_000, freed



async def test_a_fold_is_said_in_the_turn_whose_end_shows_it(tmp_path) -> None:
    """A fold of rounds without tool calls names no result; it is said at the end of the turn after
    which the figure halves (`context 10.2k` then `5.0k`), not under the next one."""
    prompts = iter(range(20))

    def at_prompt() -> None:
        repl = running[-1]
        shown = status_line(repl.session) if repl.session is not None else ""
        repl.console.print(f"PROMPT {next(prompts)} [{shown}]", markup=False, highlight=False)

    run = await drive(tmp_path, answer, [f"turn {i}\r" for i in range(10)], context_window=16_000, at_prompt=at_prompt)
    turns = re.split(r"^PROMPT \d+ .*$", run.out, flags=re.MULTILINE)  # turns[k]: what came before prompt k
    figures = {int(n): float(f) for n, f in re.findall(r"^PROMPT (\d+) .*context (\d+\.\d)k/", run.out, re.MULTILINE)}
    drop = next(k for k in sorted(figures)[1:] if figures[k] < figures[k - 1] * 0.7)  # the figure halves
    folded = [k for k, said in enumerate(turns) if "context: old rounds folded into a digest" in said]
    assert folded == [drop], (folded, figures, run.out)

def test_a_request_says_only_what_the_turn_end_did_not() -> None:
    console = Console(record=True, width=200, file=io.StringIO())
    feed = SessionFeed(console, lambda: None, lambda: 10_000)
    feed.foretold = {("microcompact", "a"): 1_000, ("microcompact", "c"): 500}
    feed.on_event(Event("microcompact", "clear", 5_000, 2_000, ids=["a", "b"]))  # "a" was said, "b" was not
    feed.on_event(Event("microcompact", "clear", 2_000, 1_500, ids=["c"]))  # said whole
    # A fold naming no result: said less what the turn's end said of the layer's such decisions.
    feed.foretold[("collapse", "")] = 6_000
    feed.on_event(Event("collapse", "commit", 9_000, 2_600))
    feed.say_held()
    assert console.export_text().splitlines() == ["context: old tool results cleared (1 result), freed 2,000 tokens",
                                                  "context: old rounds folded into a digest, freed 400 tokens"]
    assert feed.foretold == {}


def test_a_decision_foretold_is_said_once_until_its_request_makes_it(tmp_path) -> None:
    """Said at one turn's end, a decision the next request does not make yet (its new message moved
    the budget) is not said again at the next turn's end, nor when a request makes it at last."""
    from pydantic_ai.messages import ModelRequest, ModelResponse, ToolCallPart, ToolReturnPart, UserPromptPart

    from compact_agent.agent.run.options import SessionOptions
    from compact_agent.agent.run.runner import AgentSession
    from tests.fakes.openai_server import FakeOpenAIServer, Reply

    console = Console(record=True, width=200, file=io.StringIO())
    with FakeOpenAIServer(lambda req: Reply.text("ok")) as server:
        (tmp_path / "project").mkdir()
        s = AgentSession(SessionOptions(cwd=tmp_path / "project", model="fake-model", base_url=server.base_url,
                                        api_key="k", home=tmp_path / "home"), on_event=lambda ev: feed.on_event(ev))
        feed = SessionFeed(console, lambda: None, lambda: s.cm.limits.window, lambda: s)
        try:
            s.messages = [
                ModelRequest(parts=[UserPromptPart("print the log")]),
                ModelResponse(parts=[ToolCallPart("bash", {"command": "cat big.log"}, tool_call_id="call_1")]),
                ModelRequest(parts=[ToolReturnPart("bash", "a log line\n" * 8_000, tool_call_id="call_1")])]
            feed.say_after()
            feed.say_after()  # the next turn's end: no request made it yet
            said = console.export_text().splitlines()
            assert len(said) == 1 and said[0].startswith("context: large tool results moved to files"), said
            assert feed.foretold
            s.cm.shape(list(s.messages))  # the request that makes it: its event comes to the feed
            feed.say_held()
            assert console.export_text().splitlines() == [] and feed.foretold == {}  # nothing more said
        finally:
            s.close()
