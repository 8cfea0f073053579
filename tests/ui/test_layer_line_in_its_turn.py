"""A layer's line is said in the turn whose request it shapes. A layer decides when the context is
measured, and the REPL measures it for the toolbar under the next prompt too: the line
(`context: old rounds folded into a digest (6 results), freed 4,791 tokens`) was printed then,
above the prompt of the message it was for, and read as the end of the turn before. Now a line
decided between turns is said when the next turn starts, under its prompt."""

from __future__ import annotations

from compact_agent.context import Event
from compact_agent.ui.command_registry import running
from tests.fakes.openai_server import Reply

from .repl_driver import drive

LINE = "context: old tool results cleared (1 result), freed 8,000 tokens"


async def test_a_saving_decided_between_turns_is_said_under_the_next_prompt(tmp_path):
    prompts = iter(range(10))

    def at_prompt() -> None:
        n = next(prompts)
        repl = running[-1]
        if n == 1:  # as the toolbar's measure does: a layer decides after the first turn ended
            repl.session.cm.emit(Event("microcompact", "clear", tokens_before=9_000, tokens_after=1_000, ids=["a"]))
        repl.console.print(f"› PROMPT {n}")  # the prompt as the terminal shows it

    run = await drive(tmp_path, lambda req: Reply.text(f"ANSWER to {req.last_user_text()}"),
                      ["first\r", "second\r"], at_prompt=at_prompt)
    out = run.out
    assert out.count(LINE) == 1, out
    assert out.index("ANSWER to first") < out.index("› PROMPT 1") < out.index(LINE) < out.index("ANSWER to second"), out
