"""A reply the user stopped keeps the mark that says so through a compaction. The agent closes such
a reply with the text that came and its mark after it (agent/run/unfinished.py `STOPPED`); a record
wrote the reply by its first 240 characters, the last resort's folded note by its first 160 or 60,
and the mark at the end went: the model read a stopped reply as an answer it had finished. A summary
that leaves it out has it said under it."""

from __future__ import annotations

from pathlib import Path

from pydantic_ai.messages import ModelMessage, ModelRequest, ModelResponse, TextPart, UserPromptPart

from compact_agent.agent.run.unfinished import STOPPED, cut_reply
from compact_agent.context import Compactor, Limits
from compact_agent.context.compaction.cut_replies import UNFINISHED_HEAD
from compact_agent.context.compaction.restore import Restorer
from compact_agent.context.decisions.fit import STEP_CHARS, _steps

from .file_reads import no_model

PLAN = "Here is the plan for the parser: " + "first split the input into tokens, then " * 30


def history() -> list[ModelMessage]:
    asked: list[ModelMessage] = [ModelRequest(parts=[UserPromptPart("Plan the parser rewrite.")])]
    stopped = cut_reply(asked, [PLAN], STOPPED)  # as the agent closes a reply stopped with Esc
    assert stopped is not None and stopped.parts[0].content.endswith(STOPPED)  # type: ignore[union-attr]
    out = [*asked, stopped]
    for i in range(6):
        out += [ModelRequest(parts=[UserPromptPart(f"then step {i}: " + "more words " * 40)]),
                ModelResponse(parts=[TextPart(f"done step {i}")])]
    return out


def compactor(tmp_path: Path) -> Compactor:
    restorer = Restorer(recent_files=lambda: [], reread=lambda p, n: [], resolve=lambda s: tmp_path / s)
    return Compactor(Limits.for_window(8_000, 2_000), restorer)


def first_text(messages: list[ModelMessage]) -> str:
    part = messages[0].parts[0]
    assert isinstance(part, UserPromptPart) and isinstance(part.content, str)
    return part.content


async def _forgetful(messages: list[ModelMessage], prompt: str) -> str:
    return "<summary>The user asked for a parser plan; the assistant planned it, then did six steps.</summary>"


async def test_a_record_keeps_the_mark_with_the_reply(tmp_path: Path) -> None:
    done = await compactor(tmp_path).compact(history(), summarize=no_model, archive=lambda: None,
                                             prefer_record=lambda n: True)
    assert done.strategy == "record"
    text = first_text(done.messages)
    step = next(line for line in text.splitlines() if line.startswith("- Assistant: Here is the plan"))
    assert step.endswith("… " + STOPPED), step  # its beginning, then the mark, on the reply's own line
    assert len(step) <= len("- Assistant: ") + 240
    assert UNFINISHED_HEAD not in text  # the record holds it already


async def test_a_summary_that_leaves_the_mark_out_has_it_said_under_it(tmp_path: Path) -> None:
    done = await compactor(tmp_path).compact(history(), summarize=_forgetful, archive=lambda: None)
    text = first_text(done.messages)
    assert "then did six steps." in text
    said = text.split(UNFINISHED_HEAD, 1)[1].splitlines()[1]
    assert said.startswith('- the reply beginning "Here is the plan for the parser: first split') and \
        said.endswith(f'" ended: {STOPPED}'), said


def test_a_folded_step_keeps_the_mark() -> None:
    stopped = history()[1]
    for chars in STEP_CHARS:  # 160, then 60: the mark alone is longer
        [line] = _steps(stopped, chars, {})
        assert line.startswith("you wrote: Here is the plan") and line.endswith("… " + STOPPED), line
