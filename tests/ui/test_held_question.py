"""The question about a bash line the deny rules cannot read (`held`, permissions.AskFn): the reason
is shown above the line, in the warning's colour; the menu puts "No" first and selected (Enter = no)
and offers no "always", and neither does the typed question, where an `a` is a no."""

from __future__ import annotations

import io

from prompt_toolkit.input import create_pipe_input
from prompt_toolkit.output import DummyOutput
from rich.console import Console

from compact_agent.ui.approval import HELD_WAITING, make_ask, menu_lines, nothing

from .repl_driver import Typist

LINE = "echo $((i+1))"
WHY = "the deny rules ('rm *') cannot tell what this line runs (arithmetic on a name): it could run what they forbid"


def text(fragments) -> str:  # type: ignore[no-untyped-def]
    return "".join(t for _, t in fragments)


def test_the_menu_offers_no_always_and_selects_no() -> None:
    held = text(menu_lines("bash", 0, 100, held=True)).splitlines()
    assert held[:4] == ["Allow bash?", " ❯ 1. No  (esc)", "   2. Yes, run it this once  (y)",
                        "   3. No, and tell the model what to do instead  (n)"], held
    assert held[4] == HELD_WAITING and "always" not in " ".join(held).lower()
    assert "don't ask again" in text(menu_lines("bash", 0, 100))  # the usual question still offers it


def answered(keys: list[str], held: str | None) -> object:
    with create_pipe_input() as inp:
        typist = Typist(inp)
        typist.type(keys)
        ask = make_ask(Console(file=io.StringIO(), width=100), nothing, use_menu=True, inp=inp, output=DummyOutput(),
                       clock=typist)
        return ask("bash", LINE, held=held) if held is not None else ask("bash", LINE)


async def test_enter_is_no_and_a_does_nothing_at_the_menu() -> None:
    assert answered(["\r"], WHY) == "deny"
    assert answered(["a", "\r"], WHY) == "deny"
    assert answered(["y"], WHY) == "once"
    assert answered(["n", "\r", "\r"], WHY) == "deny"  # `n` (its Enter), Enter alone at what to do instead: no
    assert answered(["a"], None) == "always"  # the usual menu: `a` is "always", Enter is yes
    assert answered(["\r"], None) == "once"


def test_the_typed_question_shows_why_and_takes_no_always() -> None:
    console = Console(record=True, file=io.StringIO(), width=200, force_terminal=False)
    assert make_ask(console, nothing, io.StringIO("a\n"))("bash", LINE, held=WHY) == "deny"
    out = console.export_text().splitlines()
    assert out[:3] == ["  ⎿ bash wants to run:", f"    ⚠ {WHY}; say yes only if you have read what it runs",
                       f"    {LINE}"], out
    assert out[3].startswith("allow? [y]es once / [n]o, or what to do instead"), out
    assert make_ask(console, nothing, io.StringIO("y\n"))("bash", LINE, held=WHY) == "once"
    assert make_ask(console, nothing, io.StringIO("a\n"))("bash", LINE) == "always"  # the usual question


async def test_the_repl_asks_and_runs_the_line_only_on_a_yes(tmp_path) -> None:  # type: ignore[no-untyped-def]
    """The real REPL, its typed question answered: `a` (no "always" here) is a no, `y` runs it with real bash."""
    from compact_agent.config import Settings
    from tests.fakes.openai_server import Reply, message_text, tool_results

    from .repl_driver import drive

    def model(req):  # type: ignore[no-untyped-def]
        if not tool_results(req):
            return Reply.tools([("bash", {"command": "i=2; echo $((i+1))"})])
        return Reply.text("result: " + [message_text(m) for m in req.messages if m.get("role") == "tool"][-1])

    settings = Settings(memory_enabled=False, deny_bash=["rm *"])
    for answer, result in (("a", "result: permission denied: the user declined this bash call"), ("y", "result: 3")):
        (tmp_path / answer).mkdir()
        run = await drive(tmp_path / answer, model, ["count\r"], answers=f"{answer}\n", settings=settings)
        assert "⚠ the deny rules ('rm *') cannot tell what this line runs (arithmetic" in run.out, run.out
        assert "[a]lways" not in run.out, run.out
        assert result in run.out, run.out
