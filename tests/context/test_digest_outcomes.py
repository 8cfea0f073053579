"""A fold's digest says what each call did: a search that found nothing as "no matches" (it said
`ok (1 line)` of "No matches for 'TODO' in ."), one that found some by their count, a failure by its
first line, a write that failed or was refused as no change, and a file's content with its line
breaks shown (`↵`) or by its size, never flattened into one line of other code."""

from __future__ import annotations

from pathlib import Path

from compact_agent.agent.run.options import SessionOptions
from compact_agent.agent.run.runner import AgentSession
from compact_agent.context.layers.digest import default_digest
from tests.fakes.openai_server import ChatRequest, FakeOpenAIServer, Reply

LONG = "".join(f"line {i}\n" for i in range(30))
STEPS = [("grep", {"pattern": "TODO"}), ("grep", {"pattern": "return"}), ("glob", {"pattern": "**/*.rs"}),
         ("glob", {"pattern": "src/*.py"}), ("write_file", {"path": "src/div.py", "content": "def div(a, b):\n    return a / b\n"}),
         ("write_file", {"path": "src/long.py", "content": LONG}),
         ("edit_file", {"path": "src/calc.py", "old_string": "NOT THERE", "new_string": "x"}),
         ("write_file", {"path": "src/calc.py", "content": "x = 1\n"})]


def model(req: ChatRequest) -> Reply:
    done = sum(1 for m in req.messages if m.get("role") == "assistant")
    return Reply.tools([STEPS[done]]) if done < len(STEPS) else Reply.text("Done.")


async def test_each_outcome_says_what_happened(tmp_path: Path) -> None:
    cwd = tmp_path / "project"
    (cwd / "src").mkdir(parents=True)
    (cwd / "src" / "calc.py").write_text("def sub(a, b):\n    return a - b\n\ndef add(a, b):\n    return a + b\n")
    with FakeOpenAIServer(model) as server:
        s = AgentSession(SessionOptions(cwd=cwd, model="fake-model", base_url=server.base_url, api_key="k",
                                        context_window=32_000, permission_mode="yes", home=tmp_path / "home"))
        try:
            await s.run_turn("look around, then add div")
        finally:
            s.close()
    text = default_digest(s.messages)
    steps = text.split("What happened, in order:\n", 1)[1].splitlines()
    assert steps[1:9] == [
        '- grep(pattern="TODO") -> no matches',
        '- grep(pattern="return") -> 2 matches',
        '- glob(pattern="**/*.rs") -> no matches',
        '- glob(pattern="src/*.py") -> 1 match',
        '- write_file(path="src/div.py", content="def div(a, b):↵return a / b↵") -> ok (1 line)',
        f'- write_file(path="src/long.py", content=({len(LONG)} chars, 30 lines)) -> ok (1 line)',
        '- edit_file(path="src/calc.py", old_string="NOT THERE", new_string="x") -> failed: File has not been read '
        "yet: src/calc.py; read it with read_file before you edit it.",
        '- write_file(path="src/calc.py", content="x = 1↵") -> failed: refused: src/calc.py already exists and has '
        "not been read; read it first with read_file.",
    ], text
    assert "Files changed: src/div.py, src/long.py\n" in text, text  # not calc.py: nothing changed it


def test_a_search_is_counted_by_its_own_lines_not_its_notes() -> None:
    from compact_agent.agent.tools.never_raises import found

    note = "[1 folder git ignores not searched: build/; give one as the path to search it]"
    assert found("grep", f"a.py:1:x = 1\nb.py:20:y = 2\n{note}\n2 entries hidden by deny_paths") == 2
    assert found("glob", f"app/[id].tsx\nsrc/a.py\n{note}\n1 entry hidden by deny_paths") == 2
    assert found("grep", f"No matches for 'TODO' in .\n{note}") == found("glob", "No files match '*.rs' under .") == 0
    assert found("grep", "[grep stopped after 10 s; the matches above are the ones found so far]") is None
    hits = "".join(f"a.py:{i}:x\n" for i in range(1, 201))
    assert found("grep", hits + "[stopped at 200 matches; narrow the pattern or path]") is None  # more than listed
    assert found("glob", "a.py\n[200 of 450 files shown, newest first; narrow the pattern]") is None
