"""A result a compaction keeps from before the user's newest message stays before it.

The compaction message carries the user's messages, the newest among them. The results the model is
still using go after that message, with their calls: where the newest message was summarised too (a
compaction as a turn starts, or deep in its tool loop), an edit made two turns before stood right
after it, and the model read that edit as its first step on the newest message (`/history` showed
it under that message). Those results now go before the newest message, which follows them in a
message of its own; those of the newest turn stay after it. And a failed call on a file that a later
call on the same file superseded is not kept at all: an edit refused as "File has not been read
yet" was kept after the record that showed the file read since.
"""

from __future__ import annotations

from typing import Any

from pydantic_ai.messages import (
    ModelMessage,
    ModelRequest,
    ModelResponse,
    TextPart,
    ToolCallPart,
    ToolReturnPart,
    UserPromptPart,
)

from compact_agent.context import Compactor, Limits
from compact_agent.context.compaction import summary
from compact_agent.context.plumbing import rounds

ERROR = {"compact_agent": {"tool": {"error": True}}}  # the toolset's mark on a result that says its call failed
PAGE = "word " * 800  # ~1,000 tokens: a few of them fill the verbatim tail


async def _no_model(messages: list[ModelMessage], prompt: str) -> str:
    raise AssertionError("a record asks no model")


def _step(call: ToolCallPart, result: str, metadata: dict[str, Any] | None = None) -> list[ModelMessage]:
    return [ModelResponse(parts=[call]), ModelRequest(parts=[
        ToolReturnPart(call.tool_name, result, tool_call_id=call.tool_call_id, metadata=metadata)])]


def _turn(prompt: str, *steps: list[ModelMessage]) -> list[ModelMessage]:
    out: list[ModelMessage] = [ModelRequest(parts=[UserPromptPart(prompt)])]
    for s in steps:
        out += s
    return [*out, ModelResponse(parts=[TextPart(f"done: {prompt}")])]


def _history() -> list[ModelMessage]:
    """U1 reads notes.md (n1) and a long file (b1), U2 edits config.py (e1, refused: not read), U3 reads
    config.py (c1)."""
    return [
        *_turn("U1 read the notes", _step(ToolCallPart("read_file", {"path": "notes.md"}, "n1"), "NOTE_FLAG is on"),
               _step(ToolCallPart("read_file", {"path": "big.md"}, "b1"), PAGE)),
        *_turn("U2 set the flag in config.py", _step(ToolCallPart(
            "edit_file", {"path": "config.py", "old_string": "FLAG = 0", "new_string": "FLAG = 1"}, "e1"),
            "File has not been read yet: config.py", metadata=ERROR)),
        *_turn("U3 read config.py", _step(ToolCallPart("read_file", {"path": "config.py"}, "c1"), "FLAG = 0\n" + PAGE)),
    ]


def _ids(messages: list[ModelMessage]) -> list[str]:
    """Each message as a word: the compaction message `C`, a typed message by its first word, a call
    or result by its id (`n1>` the call, `<n1` the result)."""
    out: list[str] = []
    for m in messages:
        for p in m.parts:
            if isinstance(p, UserPromptPart):
                out.append("C" if summary.compaction_part(p) else str(p.content).split()[0])
            elif isinstance(p, ToolCallPart):
                out.append(f"{p.tool_call_id}>")
            elif isinstance(p, ToolReturnPart):
                out.append(f"<{p.tool_call_id}")
    return out


def _compactor(hot: set[str]) -> Compactor:
    return Compactor(Limits.for_window(32_000, 4_000), hot=lambda call_id: call_id in hot)


async def test_a_result_kept_from_an_earlier_turn_goes_before_the_newest_message() -> None:
    """Compacted in U4's tool loop, after a long read (d1) that alone fills the verbatim tail: the read
    of notes.md U1 made, in use, comes back after the compaction message and before U4, which no
    longer sits inside the compaction message; then the tail."""
    history = [*_history(), ModelRequest(parts=[UserPromptPart("U4 now the docs")]),
               *_step(ToolCallPart("read_file", {"path": "docs.md"}, "d1"), PAGE * 4)]
    result = await _compactor({"n1"}).compact(history, summarize=_no_model, archive=lambda: None,
                                              prefer_record=lambda n: True)
    assert _ids(result.messages) == ["C", "n1>", "<n1", "U4", "d1>", "<d1"]
    head = "".join(p.content for p in result.messages[0].parts
                   if isinstance(p, UserPromptPart) and isinstance(p.content, str))
    users = head[head.index("The user's messages"):].split("\n\n")[0].splitlines()[1:]
    assert users == ["- U3 read config.py", "- U2 set the flag in config.py", "- U1 read the notes"]
    carried = summary.carried_users(result.messages[0])
    assert carried == [
        "U1 read the notes", "U2 set the flag in config.py", "U3 read config.py"]
    assert rounds.unpaired(result.messages) == (set(), set())
    # The next compaction carries U4 once, from where it now is, after the others.
    assert summary.user_texts(result.messages) == [*carried, "U4 now the docs"]


async def test_a_result_of_the_newest_turn_stays_after_its_message() -> None:
    """Compacted deep in U4's tool loop: U1's read goes before U4; U4's own read (d1), in use, after it;
    the newest pages stay verbatim."""
    pages = [_step(ToolCallPart("read_file", {"path": f"page{i}.md"}, f"p{i}"), PAGE) for i in range(6)]
    history = [*_history(), ModelRequest(parts=[UserPromptPart("U4 now the docs")]),
               *_step(ToolCallPart("read_file", {"path": "docs.md"}, "d1"), "DOCS_FLAG"),
               *[m for s in pages for m in s]]
    result = await _compactor({"n1", "d1"}).compact(history, summarize=_no_model, archive=lambda: None,
                                                    prefer_record=lambda n: True)
    ids = _ids(result.messages)
    assert ids[:6] == ["C", "n1>", "<n1", "U4", "d1>", "<d1"]
    assert ids[6:] == [w for i in range(6 - len(ids[6:]) // 2, 6) for w in (f"p{i}>", f"<p{i}")]  # the tail
    assert rounds.unpaired(result.messages) == (set(), set())


async def test_a_result_of_the_turn_kept_verbatim_leaves_the_newest_message_where_it_was() -> None:
    """The newest message kept verbatim in the tail: the results in use go after the compaction
    message as before, and the compaction message lists U4 nowhere (it is in the tail)."""
    history = [*_history(), ModelRequest(parts=[UserPromptPart("U4 now the docs")]),
               *_step(ToolCallPart("read_file", {"path": "docs.md"}, "d1"), "DOCS_FLAG")]
    result = await _compactor({"n1"}).compact(history, summarize=_no_model, archive=lambda: None,
                                              prefer_record=lambda n: True)
    assert _ids(result.messages)[:3] == ["C", "n1>", "<n1"] and "U4" in _ids(result.messages)[3:]


def test_a_failed_call_on_a_file_a_later_call_on_it_superseded_is_not_kept() -> None:
    """U2's edit of config.py failed (not read yet); U3 read config.py since: the failure is not kept,
    though the model was using it. Without the later read it is."""
    every = _compactor({"n1", "e1", "c1"})
    kept = [p.tool_call_id for m in every.kept_results(_history()) for p in m.parts if isinstance(p, ToolReturnPart)]
    assert kept == ["n1", "c1"]
    before_the_read = _history()[:-4]  # U3's turn left out
    kept = [p.tool_call_id for m in every.kept_results(before_the_read) for p in m.parts
            if isinstance(p, ToolReturnPart)]
    assert kept == ["n1", "e1"]
    # The later call kept verbatim after the summarised part supersedes it alike.
    history = _history()
    kept = [p.tool_call_id for m in every.kept_results(history[:-4], after=history[-4:])
            for p in m.parts if isinstance(p, ToolReturnPart)]
    assert kept == ["n1"]


async def test_an_update_appended_to_a_kept_compaction_message_leaves_the_newest_message_apart_alike() -> None:
    """An incremental compaction (the compaction message kept, a record of what followed appended to
    it): U1's read goes before U4 alike, and the update's metadata, which the next compaction carries
    on, lists the messages before U4 but not U4, which it reads where it now is."""
    first = summary.summary_message("U0 was asked.", None, ["U0 the task"], "record", {})
    history = [first, ModelResponse(parts=[TextPart("done: U0 the task")]), *_history(),
               ModelRequest(parts=[UserPromptPart("U4 now the docs")]),
               *_step(ToolCallPart("read_file", {"path": "docs.md"}, "d1"), PAGE * 4)]
    result = await _compactor({"n1"}).compact(history, summarize=_no_model, archive=lambda: None,
                                              prefer_record=lambda n: True, prefer_incremental=lambda kept, new: True)
    assert result.event.detail["incremental"]
    assert _ids(result.messages) == ["C", "C", "n1>", "<n1", "U4", "d1>", "<d1"]
    assert summary.carried_users(result.messages[0]) == [
        "U0 the task", "U1 read the notes", "U2 set the flag in config.py", "U3 read config.py"]
    assert summary.user_texts(result.messages) == [*summary.carried_users(result.messages[0]), "U4 now the docs"]
