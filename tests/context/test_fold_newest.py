"""The last resort's last step: when a system prompt leaves a few hundred tokens, even the newest
round's short previews do not fit, and its steps fold into one note on the first message."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from pydantic_ai import Agent
from pydantic_ai.messages import (
    ModelMessage,
    ModelRequest,
    ModelResponse,
    SystemPromptPart,
    TextPart,
    ToolCallPart,
    ToolReturnPart,
    UserPromptPart,
)
from pydantic_ai.models.function import AgentInfo, FunctionModel

from compact_agent.context import ContextManager
from compact_agent.context.decisions.fit import FOLDED, shrink_to_fit
from compact_agent.context.layers.budget import ToolResultBudget
from compact_agent.context.plumbing import rounds
from compact_agent.context.plumbing.events import Event
from compact_agent.context.plumbing.settings import CompactionSettings

TASK = "TASK: wire the annotation schema into the session view"


def tight(tmp_path: Path, overhead: int) -> tuple[ContextManager, list[Event]]:
    """An 8,000-token window whose system prompt and tools take `overhead` estimated tokens."""
    cm = ContextManager(window=8_000)
    cm.layers = [ToolResultBudget(CompactionSettings(), tmp_path / "spill")]
    cm.overhead = overhead
    events: list[Event] = []
    cm.emit = events.append  # type: ignore[method-assign,assignment]
    return cm, events


def newest_round(results: int = 6, ids: str = "c", folder: str = "lib", line: str = "  x = 1\n") -> list[ModelMessage]:
    reads = ModelResponse(parts=[TextPart("I know the codebase now; reading the files I will change."),
                                 *[ToolCallPart("read_file", {"path": f"{folder}/m{k}.ex"}, tool_call_id=f"{ids}{k}")
                                   for k in range(results)]])
    found = ModelRequest(parts=[ToolReturnPart("read_file", f"defmodule M{k} do\n" + line * 400,
                                               tool_call_id=f"{ids}{k}") for k in range(results)])
    return [reads, found]


def test_a_round_that_fits_no_preview_folds_into_a_note_with_where_each_result_is(tmp_path: Path) -> None:
    cm, events = tight(tmp_path, overhead=7_400)  # 440 tokens left under the 2% margin
    view = [ModelRequest(parts=[UserPromptPart(TASK)]), *newest_round()]
    before = cm.measure(view)
    limit = 8_000 - 8_000 // 50
    shrunk, after = shrink_to_fit(cm, list(view), before)
    assert before > limit >= after == cm.measure(shrunk)
    assert len(shrunk) == 1 and isinstance(shrunk[0], ModelRequest)  # no call is left without its result
    assert rounds.unpaired(shrunk) == (set(), set())
    task, note = shrunk[0].parts
    assert isinstance(task, UserPromptPart) and task.content == TASK  # the user's request, verbatim
    assert isinstance(note, UserPromptPart) and isinstance(note.content, str) and note.content.startswith(FOLDED)
    # The newest result's line survives and names the file that holds its whole text.
    newest = next(line for line in note.content.splitlines() if "(id c5) returned" in line)
    path = tmp_path / "spill" / "c5.txt"
    assert str(path) in newest
    assert path.read_text() == "defmodule M5 do\n" + "  x = 1\n" * 400
    assert events[-1].detail["steps_folded"] == 2


def test_the_fold_keeps_the_system_prompt_and_the_newest_lines_first(tmp_path: Path) -> None:
    cm, _ = tight(tmp_path, overhead=7_350)
    first = ModelRequest(parts=[SystemPromptPart("You are terse."), UserPromptPart(TASK)])
    view = [first, *newest_round(results=12)]
    shrunk, after = shrink_to_fit(cm, list(view), cm.measure(view))
    assert after <= 8_000 - 8_000 // 50
    system, _, last = shrunk[0].parts
    assert isinstance(system, SystemPromptPart) and system.content == "You are terse."
    assert isinstance(last, UserPromptPart)
    note = last.content
    assert isinstance(note, str)
    # Twelve results do not all fit: the oldest lines went first, the newest result stayed.
    assert "(id c11) returned" in note and "you wrote: I know the codebase" not in note


def test_a_request_that_fits_after_previews_is_not_folded(tmp_path: Path) -> None:
    cm, events = tight(tmp_path, overhead=3_000)
    view = [ModelRequest(parts=[UserPromptPart(TASK)]), *newest_round()]
    shrunk, _ = shrink_to_fit(cm, list(view), cm.measure(view))
    assert len(shrunk) == 3 and all(isinstance(p, ToolReturnPart) for p in shrunk[-1].parts)
    assert events[-1].detail["steps_folded"] == 0


def test_a_shorter_preview_leaves_the_saved_file_whole(tmp_path: Path) -> None:
    # Room for short previews but not full ones: each result is previewed twice, and the file the
    # previews name must still hold the whole result, not the first preview.
    cm, events = tight(tmp_path, overhead=5_600)
    view = [ModelRequest(parts=[UserPromptPart(TASK)]), *newest_round()]
    shrunk, after = shrink_to_fit(cm, list(view), cm.measure(view))
    assert after <= 8_000 - 8_000 // 50 and len(shrunk) == 3
    assert events[-1].detail["steps_folded"] == 0
    shown = [p.content for p in shrunk[-1].parts if isinstance(p, ToolReturnPart) and isinstance(p.content, str)]
    assert len(shown) == 6 and any(len(text) < 1_000 for text in shown)  # some went down to the short preview
    for k in range(6):
        assert (tmp_path / "spill" / f"c{k}.txt").read_text() == f"defmodule M{k} do\n" + "  x = 1\n" * 400


def _reader(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
    """Reads three whole parts; told they were folded, reads a small slice of one; then done."""
    seen = [p for m in messages if isinstance(m, ModelRequest) for p in m.parts]
    if any(isinstance(p, ToolReturnPart) and p.tool_name == "read_lines" for p in seen):
        return ModelResponse(parts=[TextPart("done")])
    if any(isinstance(p, UserPromptPart) and isinstance(p.content, str) and p.content.startswith(FOLDED)
           for p in seen):
        return ModelResponse(parts=[ToolCallPart("read_lines", {"n": 0}, tool_call_id="small")])
    return ModelResponse(parts=[ToolCallPart("read", {"n": n}, tool_call_id=f"c{n}") for n in range(3)])


def _agent(cm: ContextManager, model: Callable[[list[ModelMessage], AgentInfo], ModelResponse]) -> Agent[None, str]:
    agent: Agent[None, str] = Agent(FunctionModel(model), capabilities=[cm])

    @agent.tool_plain
    def read(n: int) -> str:
        """Read part n whole."""
        return f"part {n}: " + "data " * 8_000

    @agent.tool_plain
    def read_lines(n: int) -> str:
        """Read the first lines of part n."""
        return f"part {n}: data data"

    return agent


async def test_a_model_that_reads_less_after_the_fold_goes_on() -> None:
    result = await _agent(ContextManager(window=500), _reader).run("go")
    assert result.output == "done"


def test_the_same_steps_again_right_after_a_fold_are_not_folded_twice(tmp_path: Path) -> None:
    cm, events = tight(tmp_path, overhead=7_400)
    task = ModelRequest(parts=[UserPromptPart(TASK)])
    shrunk, _ = shrink_to_fit(cm, [task, *newest_round()], cm.fit_size([task, *newest_round()]))
    assert len(shrunk) == 1 and events[-1].detail["steps_folded"] == 2
    # The model answers the note by reading the same six files whole again, under new call ids,
    # and they have not changed: no progress.
    cm.requests += 1
    view = [task, *newest_round(ids="again-")]
    shrunk, after = shrink_to_fit(cm, list(view), cm.fit_size(view))
    assert events[-1].detail["steps_folded"] == 0 and after > 8_000  # refused at the request (pipeline.py)
    assert rounds.unpaired(shrunk) == (set(), set())
    # Other calls fold as before, and so do the same calls whose results changed.
    cm.requests += 1
    other = newest_round(ids="t", folder="test")
    shrunk, after = shrink_to_fit(cm, [task, *other], cm.fit_size([task, *other]))
    assert len(shrunk) == 1 and after <= 8_000 - 8_000 // 50
    cm.requests += 1
    changed = newest_round(ids="u", folder="test", line="  x = 2\n")
    shrunk, after = shrink_to_fit(cm, [task, *changed], cm.fit_size([task, *changed]))
    assert len(shrunk) == 1 and after <= 8_000 - 8_000 // 50


def test_a_users_message_folded_into_the_note_keeps_its_first_words_in_the_shortest_pass(tmp_path: Path) -> None:
    """The folded note cuts each step's line to 160 and then 60 characters; a message the user typed
    among the steps kept 60, so the note said what they asked in half a sentence. Their words keep
    the first 300 characters whatever the pass (the model's and the tools' lines are cut first)."""
    cm, _ = tight(tmp_path, overhead=7_300)
    ask = ("and when the schema is wired, rename the session view's annotation column to notes, keep the old "
           "name as an alias for one release, and say in the changelog that the alias goes away in 2.0 "
           "because nobody outside this repository reads that column anyway")
    reads, found = newest_round()
    found = ModelRequest(parts=[*found.parts, UserPromptPart(ask)])
    view = [ModelRequest(parts=[UserPromptPart(TASK)]), reads, found]
    shrunk, after = shrink_to_fit(cm, list(view), cm.measure(view))
    assert after <= 8_000 - 8_000 // 50
    note = str(shrunk[0].parts[-1].content)
    assert note.startswith(FOLDED)
    assert "- the user wrote: " + ask in note  # whole: under 300 characters
    assert all(len(line) <= 60 + len("- you called read_file (id c0): ") + 2 for line in note.splitlines()
               if line.startswith("- you called"))  # the steps in their shortest pass
