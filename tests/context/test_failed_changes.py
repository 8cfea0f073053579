"""A write or edit that did not happen (refused by the user, failed) is no change.

The compaction message listed it under "Files changed in this session" and its record said
`-> ok`, so after a compaction the model believed a file it was refused existed."""

from __future__ import annotations

from pathlib import Path

from pydantic_ai.messages import (
    ModelRequest,
    ModelResponse,
    TextPart,
    ToolCallPart,
    ToolReturnPart,
    UserPromptPart,
)

from compact_agent.config import Limits
from compact_agent.context.compaction import ledger, summary
from compact_agent.context.compaction.compactor import Compactor
from compact_agent.context.layers.digest import default_digest
from compact_agent.context.plumbing.markers import mark


def call(name: str, args: dict, cid: str) -> ModelResponse:
    return ModelResponse(parts=[ToolCallPart(name, args, tool_call_id=cid)])


def result(name: str, text: str, cid: str, *, marked: bool = False, outcome: str = "success") -> ModelRequest:
    meta = mark(None, "tool", {"error": True}) if marked else None
    return ModelRequest(parts=[ToolReturnPart(name, text, tool_call_id=cid, metadata=meta, outcome=outcome)])  # type: ignore[arg-type]


def session() -> list:
    return [
        ModelRequest(parts=[UserPromptPart("tidy the project")]),
        call("write_file", {"path": "scratch.txt", "content": "x"}, "w1"),
        result("write_file", "permission denied: the user declined this write_file call", "w1", marked=True),
        call("edit_file", {"path": "calc.py", "old_string": "NOT_THERE", "new_string": "x"}, "e1"),
        result("edit_file", "old_string not found in calc.py", "e1", marked=True),
        call("edit_file", {"path": "denied.py", "old_string": "a", "new_string": "b"}, "e2"),
        result("edit_file", "denied", "e2", outcome="denied"),
        call("edit_file", {"path": "app.py", "old_string": "a", "new_string": "b"}, "e3"),
        result("edit_file", "Edited app.py (1 replacement)", "e3"),
        *[m for i in range(8) for m in (ModelResponse(parts=[TextPart(f"step {i}"), ToolCallPart(
            "read_file", {"path": f"f{i}.txt"}, tool_call_id=f"r{i}")]),
            ModelRequest(parts=[ToolReturnPart("read_file", "y" * 3_000, tool_call_id=f"r{i}")]))],
    ]


def test_the_ledger_counts_only_what_happened() -> None:
    history = session()
    assert ledger.changed_files(history) == {"app.py": ["edited"]}
    assert ledger.changed_files(history, attempts=True) == {
        "scratch.txt": ["write failed"], "calc.py": ["edit failed"], "denied.py": ["edit failed"], "app.py": ["edited"]}
    steps = default_digest(history[:9])
    assert 'write_file(path="scratch.txt"' in steps and "-> failed: permission denied" in steps
    assert "-> failed: old_string not found" in steps and "-> denied: denied" in steps
    assert "-> ok (1 line)" in steps  # app.py's edit, which happened


async def summarize(messages, prompt):
    return "<summary>Tidying: app.py edited.</summary>"


async def test_a_compaction_lists_what_failed_apart_and_carries_it_on(tmp_path: Path) -> None:
    comp = Compactor(Limits.for_window(32_000, 4_000))
    first = await comp.compact(session(), summarize=summarize, archive=lambda: tmp_path / "a")
    text = first.messages[0].parts[0].content
    changed, _, rest = text.partition("Files changed in this session (read them again before editing):\n")
    listed = rest.split("\n\n")[0]
    assert listed == "- app.py (edited)", text
    assert ("Writes and edits that did not happen (they failed or were refused: these files are as they were):\n"
            "- scratch.txt (write failed)\n- calc.py (edit failed)\n- denied.py (edit failed)") in text
    # The next compaction carries both lists on, and a later edit that works moves the file over.
    later = [*first.messages, ModelRequest(parts=[UserPromptPart("now fix calc.py")]),
             call("edit_file", {"path": "calc.py", "old_string": "x", "new_string": "y"}, "e9"),
             result("edit_file", "Edited calc.py (1 replacement)", "e9"),
             *session()[9:]]
    second = await comp.compact(later, summarize=summarize, archive=lambda: tmp_path / "b")
    again = "\n".join(p.content for p in second.messages[0].parts if isinstance(p.content, str))
    assert "(read them again before editing):\n- calc.py (edited)\n- app.py (edited)\n" in again  # first tried first
    assert "- scratch.txt (write failed)\n- denied.py (edit failed)" in again and "calc.py (edit failed)" not in again
    assert ledger.changed_files(second.messages) == {"app.py": ["edited"], "calc.py": ["edited"]}
    assert summary.user_texts(second.messages) == ["tidy the project", "now fix calc.py"]
