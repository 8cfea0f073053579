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
    assert held[:4] == ["Allow bash?", " ❯ 1. No  (n)", "   2. Yes, run it this once  (y)",
                        "   3. No, and tell the model what to do instead  (i)"], held
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
    assert answered(["n"], WHY) == "deny"
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
