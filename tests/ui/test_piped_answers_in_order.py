"""Answers to the approval question read from a pipe or a file (the typed question's stream is not a
terminal: `run_repl(ask_stream=...)`, `make_ask(stream=...)`) are read in order, each line answering
one question: `n` (or `no`) is a plain no, and only `i` (or `instead`) takes the next line as what the
model should do instead. There `n` asked that second line, which a pipe cannot see asked: the answer
meant for the next question went to the model as the user's instruction (`n` then `y` told the model
"y", and the next question met the end of the input, a no). Typed at a terminal (a dumb one, whose
question is typed too) `n` still asks what to do instead: tests/ui/test_typed_question_keys_alike.py."""

from __future__ import annotations

import io
from pathlib import Path

from rich.console import Console

from compact_agent.agent.safety.permissions import INSTEAD, Instead
from compact_agent.ui.approval import make_ask, nothing
from tests.fakes.openai_server import tool_results

from .repl_driver import drive
from .test_approval_instead import bash_then_told


def told(run) -> list[str]:  # type: ignore[no-untyped-def]
    """What each declined or run call's result was, in order: the user's instruction, refused, ran."""
    out = []
    for req in run.server.requests:
        if (results := tool_results(req)):
            content = str(results[-1]["content"])
            out.append("told " + content.split(INSTEAD, 1)[1].strip() if INSTEAD in content
                       else "refused" if "permission denied" in content else "ran")
    return out


async def test_n_is_a_plain_no_and_the_next_line_answers_the_next_question(tmp_path: Path) -> None:
    run = await drive(tmp_path, bash_then_told, ["run it\r", "again\r", "once more\r"], answers="n\ny\nno\n")
    assert told(run) == ["refused", "ran", "refused"], run.out  # was: told y, then refused twice
    assert "what should the model do instead?" not in run.out  # no line was asked for that


async def test_only_i_or_instead_takes_the_next_line_as_the_instruction(tmp_path: Path) -> None:
    keys = ["run it\r", "again\r", "once more\r", "last\r"]
    run = await drive(tmp_path, bash_then_told, keys, answers="i\nuse printf\ny\ninstead\n\nuse echo\n")
    # `i` then its line; `y`; `instead` then Enter alone (a plain no); words at once are the instruction
    assert told(run) == ["told use printf", "ran", "refused", "told use echo"], run.out


def test_a_held_line_and_the_end_of_the_input() -> None:
    why = "the deny rules ('rm *') cannot tell what this line runs"
    console = Console(record=True, file=io.StringIO(), width=200, force_terminal=False)
    ask = make_ask(console, nothing, io.StringIO("n\na\nI\nsay why\ny\n"))
    assert ask("bash", "echo $((i+1))", held=why) == "deny"  # `n`
    assert ask("bash", "echo $((i+1))", held=why) == "deny"  # no "always" for a held line
    assert ask("bash", "echo $((i+1))", held=why) == Instead("say why")
    assert ask("bash", "echo $((i+1))", held=why) == "once"
    assert ask("bash", "echo $((i+1))", held=why) == "deny"  # the end of the input
    assert "[a]lways" not in console.export_text()
