"""A paste that reaches the answer to "what should the model do instead?" as keys (a terminal
without bracketed paste, each line break an Enter) is one answer, as at the prompt (paste_keys.py):
the first line break sent the paste's first line as the whole instruction, and its other lines
went on to the main prompt, to be sent as a message of their own."""

from __future__ import annotations

from prompt_toolkit.input import create_pipe_input
from prompt_toolkit.output import DummyOutput

from compact_agent.agent.safety.permissions import Instead, instead_text
from compact_agent.ui.approval import instruction

from .repl_driver import Typist

STEPS = "".join(f"    step-{i:02d}: do this part of the plan\n" for i in range(12))


def test_a_paste_sent_as_keys_is_one_answer_sent_by_the_users_enter() -> None:
    with create_pipe_input() as inp:
        typist = Typist(inp, pause=0.2)  # the Enter a person presses after the paste, 0.2 s later
        typist.type([STEPS.replace("\n", "\r"), "\r"])  # the paste as keys, in one read
        answer = instruction(inp, DummyOutput(), clock=typist)
    assert answer == STEPS.strip(), answer
    assert instead_text(Instead(answer).text) == STEPS.strip()  # the model gets its lines and indentation


def test_a_typed_answer_is_sent_by_its_enter() -> None:
    with create_pipe_input() as inp:
        typist = Typist(inp, pause=0.2)
        typist.type(["use make check", "\r"])
        assert instruction(inp, DummyOutput(), clock=typist) == "use make check"
