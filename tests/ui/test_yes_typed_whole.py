"""`yes` or `no` typed whole at a one-key question goes with the answer. The question takes `y` (or
`n`) and waited only for an Enter: at `/compact --preview`'s `[y/N]`, `yes⏎` compacted and then sent
`es` to the model as a message (`no⏎` sent `o`), and after the permission menu's `n`, `no⏎` told the
model to do "o" instead. A key that answers no by being no answer takes what is typed on with it, up
to its Enter: `sure⏎` sent `ure` to the model, and `/status⏎` sent `status`."""

from __future__ import annotations

import io

from prompt_toolkit.input import create_pipe_input
from prompt_toolkit.input.typeahead import get_typeahead
from prompt_toolkit.output import DummyOutput
from rich.console import Console

from compact_agent.agent.safety.permissions import Instead
from compact_agent.ui.approval import make_ask, nothing, yes_no
from tests.fakes.openai_server import FakeOpenAIServer, Reply, user_messages

from .pty_driver import Terminal
from .repl_driver import Typist


async def test_yes_and_no_typed_whole_go_with_the_answer() -> None:
    for typed, yes, left in [("yes\r", True, ""), ("YES\rnext", True, "next"), ("no\r", False, ""),
                             ("ye\r", True, ""), ("yess", True, "s"), ("nox", False, "x"),
                             ("/status\r", False, ""), ("sure\rnext", False, "next")]:
        with create_pipe_input() as inp:
            inp.send_text(typed)
            assert await yes_no("compact? [y/N] ", inp, DummyOutput()) is yes, typed
            assert "".join(k.data for k in get_typeahead(inp)) == left, typed  # what the next prompt gets


async def test_no_typed_whole_at_the_menu_leaves_the_instruction_to_type() -> None:
    with create_pipe_input() as inp:
        typist = Typist(inp)  # each key read apart, as typed
        typist.type(["n", "o", "\r", "run make check instead\r"])
        console = Console(file=io.StringIO(), width=100)
        ask = make_ask(console, nothing, use_menu=True, inp=inp, output=DummyOutput(), clock=typist)
        assert ask("bash", "rm -rf build") == Instead("run make check instead")


def test_yes_at_compact_preview_sends_nothing_to_the_model(tmp_path, monkeypatch) -> None:
    def model(req) -> Reply:
        if "CRITICAL: Respond with TEXT ONLY" in req.last_user_text():
            return Reply.text("<summary>We talked about the parser.</summary>")
        return Reply.text("ANSWERED " + "about the parser " * 60)

    with FakeOpenAIServer(model) as server:
        term = Terminal(tmp_path, server.base_url, env={"COMPACT_AGENT_COLLAPSE_ENABLED": "false"})
        try:
            at = term.prompt(term.read_until("/help for commands"))
            for i in range(4):
                term.type(f"question {i} about the parser\r")
                at = term.prompt(term.read_until("ANSWERED", at))
            for typed, said in [("no\r", "not compacted; nothing was changed"), ("/status\r", "not compacted; nothing was changed"),
                                ("yes\r", "compacted (manual, full)")]:
                term.type("/compact --preview\r")
                at = term.read_until("[y/N]", at)
                term.type(typed)
                at = term.prompt(term.read_until(said, at))
            term.type("\x15")
            assert term.finish() == 0
        finally:
            term.close()
    sent = [user_messages(req)[-1]["content"] for req in server.requests]
    assert not {"o", "es", "status"} & {text if isinstance(text, str) else "" for text in sent}, sent
    assert len([r for r in server.requests if "CRITICAL" not in str(user_messages(r)[-1])]) == 4, sent
