"""What the next step needed, whether a strategy still sent it, and what looking again costs."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest
from pydantic_ai.messages import (
    ModelMessage,
    ModelRequest,
    ModelResponse,
    TextPart,
    ToolCallPart,
    ToolReturnPart,
    UserPromptPart,
)

from compact_agent.context.plumbing import tokens
from compact_agent.models import PRICING
from compact_agent.replay.baselines import NoCompaction
from compact_agent.replay.importers import Transcript, load_transcript
from compact_agent.replay.metrics import measure
from compact_agent.replay.recall import REREAD_OUTPUT, edit_texts, needs_of, norm, references
from compact_agent.replay.simulate import Request, Sim, Step, replay

from .synthetic import sim
from .test_importers import REAL_FILES

SOURCE = "class WhereNode:\n    def as_sql(self):\n        # WhereNode.as_sql sets empty_needed\n" + "pass\n" * 200


def _call(name: str, args: dict[str, object], cid: str) -> ModelResponse:
    return ModelResponse(parts=[TextPart("looking"), ToolCallPart(name, args, tool_call_id=cid)])


def _result(name: str, content: str, cid: str) -> ModelRequest:
    return ModelRequest(parts=[ToolReturnPart(name, content, tool_call_id=cid)])


def transcript() -> Transcript:
    """A file read, an unrelated command, then a response naming what the read returned (two responses
    later), then an edit of the read's text."""
    msgs: list[ModelMessage] = [
        ModelRequest(parts=[UserPromptPart("fix the empty where clause")]),
        _call("Read", {"file_path": "django/db/models/sql/where.py"}, "c1"),
        _result("Read", SOURCE, "c1"),
        _call("bash", {"command": "ls"}, "c2"),
        _result("bash", "setup.py", "c2"),
        ModelResponse(parts=[TextPart("So WhereNode.as_sql decides empty_needed."),
                             ToolCallPart("bash", {"command": "echo ok"}, tool_call_id="c3")]),
        _result("bash", "ok", "c3"),
        ModelResponse(parts=[ToolCallPart("Edit", {"file_path": "django/db/models/sql/where.py",
                                                   "old_string": "    def as_sql(self):\n        # WhereNode",
                                                   "new_string": "    def as_sql(self, compiler):"},
                                          tool_call_id="c4")]),
        _result("Edit", "edited", "c4"),
        ModelResponse(parts=[TextPart("done")]),
    ]
    return Transcript(Path("recall.jsonl"), "openai-chat", msgs)


class Forgetful:
    """Clears the content of the first read's result from the third request on (as a compaction that
    dropped it would), or never when `keep` is set."""

    name = "forgetful"

    def __init__(self, keep: bool = False) -> None:
        self.keep, self.points = keep, 0

    async def step(self, history: list[ModelMessage], sim: Sim) -> Step:
        self.points += 1
        if self.keep or self.points < 3:
            return Step(list(history))
        view: list[ModelMessage] = []
        for m in history:
            if isinstance(m, ModelRequest) and any(isinstance(p, ToolReturnPart) and p.tool_call_id == "c1"
                                                   for p in m.parts):
                m = ModelRequest(parts=[dataclasses.replace(m.parts[0], content="[cleared]")])
            view.append(m)
        return Step(view)

    async def observe(self, sent_tokens: int, output: int, response: ModelResponse) -> None:
        return None


def test_references_are_paths_dotted_underscored_camel_and_hex_names():
    # CamelCase with two humps (a class name) counts as well as camelCase, once when inside a longer name.
    text = ("Open django/db/models/sql/where.py, call WhereNode.as_sql and check empty_needed; "
            "getElementById and commit 3f9a2b7c1d0e; plain words, 1234567890 and v1.2 are not.")
    assert references(text) == ["django/db/models/sql/where.py", "WhereNode.as_sql", "empty_needed",
                                "getElementById", "3f9a2b7c1d0e"]
    assert references("class WhereNode") == ["WhereNode"]


def test_edit_old_text_is_read_from_edit_str_replace_and_patches():
    patch = ("*** Begin Patch\n*** Update File: a.py\n@@\n def keep_this_context_line():\n-    return old_value_here\n"
             "+    return new_value\n*** End Patch")
    r = ModelResponse(parts=[
        ToolCallPart("Edit", {"old_string": "x = compute_the_value(1)", "new_string": "y"}),
        ToolCallPart("str_replace_editor", {"command": "str_replace", "old_str": "short"}),
        ToolCallPart("apply_patch", {"input": patch}),
    ])
    assert edit_texts(r) == ["x = compute_the_value(1)",
                             "def keep_this_context_line(): return old_value_here"]


def test_gutters_of_file_reads_do_not_hide_a_multi_line_edit():
    read = "     1→def f():\n     2→    return 1\n"
    assert norm("def f():\n    return 1") in norm(read)


def test_what_arrived_since_the_previous_response_is_not_a_need():
    needs = needs_of(transcript().messages)
    # Point 5 names two tokens of the read two responses earlier; the read's path came in a call.
    assert needs.by_point[5].refs == ("WhereNode.as_sql", "empty_needed")
    # Point 7's edit: its path and old text are earlier, not in the result that just arrived.
    assert needs.by_point[7].edits == (norm("    def as_sql(self):\n        # WhereNode"),)
    assert needs.by_point[7].refs == ("django/db/models/sql/where.py", "WhereNode")
    # Point 3 follows the read directly: what it could use arrived with the read itself.
    assert 3 not in needs.by_point


async def test_a_dropped_read_named_two_responses_later_is_one_priced_stall():
    t = transcript()
    s = sim(100_000)
    run = await replay(t, Forgetful(), s)
    assert run.recall.stalls == 2  # point 5 (names) and point 7 (edit and path) lost the read
    # At 7 the path survives in the read's call, `WhereNode` in the answer at 5; the read's text does not.
    assert (run.recall.refs, run.recall.refs_kept) == (4, 2)
    assert (run.recall.edits, run.recall.edits_kept) == (1, 0)
    mains = [r for r in run.requests if r.kind == "main"]
    rereads = [r for r in run.requests if r.kind == "reread"]
    source = tokens.text_tokens(SOURCE)  # both stalls look again at the same read
    assert rereads == [Request("reread", mains[2].tokens + source, mains[2].cached, REREAD_OUTPUT),
                       Request("reread", mains[3].tokens + source, mains[3].cached, REREAD_OUTPUT)]
    price = PRICING["deepseek"]
    by_hand = sum((r.cached * price.cache_read + (r.tokens - r.cached) * price.input + REREAD_OUTPUT * price.output) / 1e6
                  for r in rereads)
    m = measure([run], price)
    assert m.stalls == 2 and m.reread_requests == 2
    assert m.cost_parts["reread"] == pytest.approx(by_hand)
    assert m.cost == pytest.approx(sum(m.cost_parts.values()))
    assert m.recall == pytest.approx(2 / 4) and m.edit_ready == 0.0


async def test_an_edit_whose_old_text_is_still_sent_is_ready():
    run = await replay(transcript(), Forgetful(keep=True), sim(100_000))
    assert (run.recall.edits, run.recall.edits_kept, run.recall.stalls) == (1, 1, 0)
    assert not [r for r in run.requests if r.kind == "reread"]


async def test_none_keeps_everything_by_construction():
    s = sim(100_000)
    run = await replay(transcript(), NoCompaction(s), s)
    assert run.recall.refs == run.recall.refs_kept > 0 and run.recall.stalls == 0


MAIN_SESSIONS = [p for p in REAL_FILES if "subagents" not in p.parts]


@pytest.mark.parametrize("path", MAIN_SESSIONS[:1] + MAIN_SESSIONS[-1:], ids=lambda p: p.name)
async def test_none_has_full_recall_on_real_transcripts(path: Path):
    t = load_transcript(path)
    s = sim(64_000)
    m = measure([await replay(t, NoCompaction(s), s)], PRICING["deepseek"])
    assert m.refs_needed > 0
    assert (m.recall, m.edit_ready, m.stalls, m.cost_parts["reread"]) == (1.0, 1.0, 0, 0.0)


class NamesOnly(Forgetful):
    """Replaces the read with a bare list of the names it held, from the third request on."""

    async def step(self, history: list[ModelMessage], sim: Sim) -> Step:
        self.points += 1
        if self.points < 3:
            return Step(list(history))
        view = [ModelRequest(parts=[dataclasses.replace(m.parts[0], content="names: WhereNode.as_sql empty_needed")])
                if isinstance(m, ModelRequest) and isinstance(m.parts[0], ToolReturnPart) and m.parts[0].tool_call_id == "c1"
                else m for m in history]
        return Step(view)


async def test_a_list_of_names_without_their_lines_keeps_recall_but_not_line_recall():
    kept = await replay(transcript(), Forgetful(keep=True), sim(100_000))
    names = await replay(transcript(), NamesOnly(), sim(100_000))
    assert kept.recall.lines_kept == kept.recall.refs == 4
    # Point 5's two names are still sent, but not the line they came from (`# WhereNode.as_sql sets
    # empty_needed`); point 7's path and `WhereNode` are in lines still sent (the call, the answer at 5).
    assert (names.recall.refs_kept, names.recall.lines_kept) == (4, 2)
    price = PRICING["deepseek"]
    assert measure([names], price).line_recall == 0.5 and measure([kept], price).line_recall == 1.0
