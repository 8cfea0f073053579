"""A digest and a record state a result's own line count, not that of what the view showed of it.

Every src file here has 239 lines. Shown as a preview (budget), the result read "(61 lines)"; cleared
(microcompact) or superseded (snip), its placeholder read "(1 line)", and a 12-file glob did too.
"""

from __future__ import annotations

from datetime import timedelta
from pathlib import Path

from pydantic_ai.messages import ModelMessage, ModelRequest, ToolReturnPart

from compact_agent.context.compaction import summary
from compact_agent.context.layers import budget
from compact_agent.context.layers.budget import ToolResultBudget
from compact_agent.context.layers.digest import default_digest
from compact_agent.context.layers.microcompact import CLEARED, Microcompact
from compact_agent.context.layers.previews import PREVIEWED_BY
from compact_agent.context.layers.snip import NO_OUTPUT, SUPERSEDED, Snip
from compact_agent.context.plumbing.markers import KEY
from tests.context.strategies import Conv, budget_for, file_text, small_settings

FILES = "\n".join(f"src/mod_{i:02d}.py" for i in range(1, 13))


def shown(messages: list[ModelMessage]) -> dict[str, ToolReturnPart]:
    return {p.tool_call_id: p for m in messages if isinstance(m, ModelRequest)
            for p in m.parts if isinstance(p, ToolReturnPart)}


def test_the_digest_of_a_shrunk_view_states_each_results_own_count(tmp_path: Path) -> None:
    big, small = file_text("src/mod_05.py", 1, 239), file_text("src/mod_02.py", 1, 239)[:2_500]
    conv = (Conv().user("look around")
            .call("glob", {"pattern": "**/*.py"}, FILES + "\n" + "x" * 1_200)  # cleared
            .call("read_file", {"path": "src/mod_02.py"}, small)  # superseded by the same read below
            .call("read_file", {"path": "src/mod_02.py"}, small)
            .call("bash", {"command": "true"}, "\n" * 40, text="Checking.")  # "(no output)"
            .call("read_file", {"path": "src/mod_05.py"}, big, text="Reading mod_05.")  # previewed
            .call("grep", {"pattern": "def"}, "a\nb\n")
            .say("done"))
    settings = small_settings()
    now, later = conv.t, conv.t + timedelta(hours=2)  # later, the cache expired: microcompact clears
    shrunk = list(conv.messages)
    for layer in (ToolResultBudget(settings, tmp_path / "spill"), Snip()):
        shrunk = layer.apply(shrunk, budget_for(shrunk, now)).messages
    cleared = Microcompact(settings).apply(shrunk, budget_for(shrunk, later)).messages  # all but the newest two
    parts, gone = shown(shrunk), shown(cleared)
    assert parts["call_2"].content == SUPERSEDED and parts["call_4"].content == NO_OUTPUT
    assert "too large for the context" in str(parts["call_5"].content)
    assert gone["call_1"].content == gone["call_2"].content == CLEARED

    for view in (shrunk, cleared):
        text = default_digest(view, framed=False)
        assert 'glob(pattern="**/*.py") -> ok (13 lines)' in text
        assert text.count('read_file(path="src/mod_02.py") -> ok (70 lines)') == 2
        assert 'bash(command="true") -> ok (no output)' in text
        assert 'read_file(path="src/mod_05.py") -> ok (239 lines)' in text
        assert 'grep(pattern="def") -> ok (2 lines)' in text  # a final line break ends a line, it starts none
        # Same rounds, same bytes: what the view showed of them does not change their digest.
        assert text == default_digest(conv.messages, framed=False)
        assert default_digest(view) == default_digest(conv.messages)
        assert summary.record_of(view) == summary.record_of(conv.messages)


def test_a_placeholder_whose_count_was_not_kept_says_so() -> None:
    conv = (Conv().user("go").call("read_file", {"path": "a.py"}, "x\n" * 50).say("ok"))
    parts = shown(conv.messages)
    cleared = parts["call_1"]
    meta = {KEY: {"microcompact": {"trigger": "time", "lines": None}}}
    conv.messages[2] = ModelRequest(parts=[ToolReturnPart(cleared.tool_name, CLEARED, cleared.tool_call_id,
                                                          metadata=meta)])
    text = default_digest(conv.messages, framed=False)
    assert 'read_file(path="a.py") -> ok (output cleared or shortened)' in text
    assert "(1 line)" not in text


def test_the_preview_mark_read_back_is_the_budgets() -> None:
    assert PREVIEWED_BY == budget.LAYER


def numbered_slice(path: str, first: int, last: int, total: int, encoding_note: str = "") -> str:
    """What the agent's read_file returns for lines `first`-`last` of a `total`-line file."""
    head = f"[{path}: lines {first}-{last} of {total}; read more with offset={last + 1}]\n{encoding_note}"
    return head + "\n".join(f"{n:>6}\t{path} line {n}: value = {n * 7 % 13}" for n in range(first, last + 1))


def test_a_read_slice_is_counted_without_the_notes_before_its_lines(tmp_path: Path) -> None:
    """`read_file(path=..., offset=1, limit=70) -> ok (71 lines)`: the slice's header was counted
    as a line of the file; the REPL says 70 lines."""
    utf16 = "[src/b.py is UTF-16 text, not UTF-8; edits keep that encoding]\n"
    conv = (Conv().user("survey")
            .call("read_file", {"path": "src/a.py", "offset": 1, "limit": 70}, numbered_slice("src/a.py", 1, 70, 282))
            .call("read_file", {"path": "src/b.py", "offset": 71, "limit": 70},
                  numbered_slice("src/b.py", 71, 140, 282, utf16))
            .call("read_file", {"path": "src/c.py", "offset": 1, "limit": 400},
                  numbered_slice("src/c.py", 1, 400, 900))  # previewed
            .call("grep", {"pattern": "x"}, "[note]\n     1\tx\n")  # not a read: its lines as they are
            .say("done"))
    settings = small_settings()
    now, later = conv.t, conv.t + timedelta(hours=2)
    shrunk = ToolResultBudget(settings, tmp_path / "spill").apply(conv.messages, budget_for(conv.messages, now)).messages
    assert "too large for the context" in str(shown(shrunk)["call_3"].content)
    cleared = Microcompact(settings).apply(shrunk, budget_for(shrunk, later)).messages
    assert shown(cleared)["call_1"].content == CLEARED
    for view in (conv.messages, shrunk, cleared):
        text = default_digest(view, framed=False)
        assert 'read_file(path="src/a.py", offset=1, limit=70) -> ok (70 lines)' in text, text
        assert 'read_file(path="src/b.py", offset=71, limit=70) -> ok (70 lines)' in text, text
        assert 'read_file(path="src/c.py", offset=1, limit=400) -> ok (400 lines)' in text, text
        assert 'grep(pattern="x") -> ok (2 lines)' in text, text
        assert summary.record_of(view) == summary.record_of(conv.messages)
