"""Lists that name the agent's tools by hand cover every built-in tool (agent/tools/names.py).

Adding a tool took its toolset entry, TOOL_NAMES and a test, and every test passed, yet the tool
was half wired: microcompact (a library layer, which cannot import the agent's tools) never
cleared its old results, and the REPL's call line showed its arguments as raw JSON. Each such
list now fails here, naming the place to decide, until the new tool is in it.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from compact_agent.agent.run.options import SYSTEM_PROMPT, SessionOptions
from compact_agent.agent.run.runner import AgentSession
from compact_agent.agent.run.stream_events import SUMMARIES
from compact_agent.agent.tools import names
from compact_agent.agent.tools.base import ToolEnv
from compact_agent.agent.tools.toolset import build_toolset
from compact_agent.context.compaction import ledger
from compact_agent.context.layers.microcompact import Microcompact
from compact_agent.ui.tool_lines import MAIN_ARG
from tests.agent.test_tools import make_env


def test_every_tool_is_compactable_or_deliberately_not() -> None:
    decided = names.COMPACTABLE_TOOLS | names.KEPT_RESULTS
    undecided = [t for t in names.TOOL_NAMES if t not in decided]
    assert not undecided, (
        f"decide whether microcompact may clear old results of {', '.join(undecided)}: add it to "
        "COMPACTABLE_TOOLS in src/compact_agent/agent/tools/names.py if running the call again gets "
        "the result back, else to KEPT_RESULTS there")
    assert not names.COMPACTABLE_TOOLS & names.KEPT_RESULTS, "a tool is both compactable and kept (names.py)"
    assert decided <= set(names.TOOL_NAMES), f"names.py decides for no such tool: {sorted(decided - set(names.TOOL_NAMES))}"


def test_the_session_clears_the_results_names_py_says(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # A tool the library's own default list does not know (`list_dir`) is cleared once names.py says so.
    monkeypatch.setattr(names, "COMPACTABLE_TOOLS", names.COMPACTABLE_TOOLS | {"list_dir"})
    s = AgentSession(SessionOptions(cwd=tmp_path, model="local", base_url="http://127.0.0.1:9/v1", api_key="k",
                                    context_window=32_000, home=tmp_path / "home"))
    try:
        layers = [layer for layer in s.cm.layers if isinstance(layer, Microcompact)]
        assert layers and all(names.COMPACTABLE_TOOLS <= layer.compactable for layer in layers)
    finally:
        s.close()


def test_every_tool_has_a_call_line(tmp_path: Path) -> None:
    missing = [t for t in names.TOOL_NAMES if t not in MAIN_ARG]
    assert not missing, (
        f"say which argument the call line of {', '.join(missing)} shows: MAIN_ARG in "
        "src/compact_agent/ui/tool_lines.py (None for none); without it the REPL shows its arguments as JSON")
    env: ToolEnv = make_env(tmp_path)
    tools = build_toolset(env).tools
    for name in names.TOOL_NAMES:
        shown = MAIN_ARG[name]
        params = tools[name].function_schema.json_schema.get("properties", {})
        assert shown is None or shown in params, f"MAIN_ARG names {shown!r}, no argument of {name} (ui/tool_lines.py)"


def test_every_tool_has_a_result_summary() -> None:
    missing = [t for t in names.TOOL_NAMES if t not in SUMMARIES]
    assert not missing, (
        f"say how a result of {', '.join(missing)} is summed up in stream-json's `summary` and the REPL's "
        "history: SUMMARIES in src/compact_agent/agent/run/stream_events.py (_first_line for its first line)")


#: The built-in tools that read, write or edit no file by a path argument, as a compaction's ledger
#: sees files (bash's changes are not tracked by name; grep and glob list, they do not read a file).
NO_FILE_ROLE = frozenset({"bash", "grep", "glob"})


#: Where each list of the compaction's file roles is written: the ledger's READ_TOOLS, the file
#: changes' (which undo and the ledger share) the rest. The test after this one holds it to the source.
ROLE_HOMES = {"READ_TOOLS": "context/compaction/ledger.py", "WRITE_TOOLS": "context/plumbing/file_changes.py",
              "EDIT_TOOLS": "context/plumbing/file_changes.py", "PATCH_TOOLS": "context/plumbing/file_changes.py"}


def test_every_tool_has_a_role_in_the_ledger() -> None:
    # The ledger's lists are the library's: it cannot import the agent's tools, and names the tools
    # of other harnesses too. A tool left out of its lists is never a file changed (the compaction
    # message forgets it) nor a file read (none is restored after a compaction).
    roles = {"READ_TOOLS": ledger.READ_TOOLS, "WRITE_TOOLS": ledger.WRITE_TOOLS,
             "EDIT_TOOLS": ledger.EDIT_TOOLS, "PATCH_TOOLS": ledger.PATCH_TOOLS}
    assert set(roles) == set(ROLE_HOMES)
    where = "; ".join(f"{name} in src/compact_agent/{home}" for name, home in ROLE_HOMES.items())
    for tool in names.TOOL_NAMES:
        listed = [name for name, tools in roles.items() if tool.lower() in tools]
        assert listed or tool in NO_FILE_ROLE, (
            f"say whether {tool} reads, writes, edits or patches the file its path names: add it to one of "
            f"{where}; or to NO_FILE_ROLE in tests/agent/test_tool_lists.py if it does none")
        assert not (listed and tool in NO_FILE_ROLE), (
            f"{tool} is in {listed[0]} ({ROLE_HOMES[listed[0]]}) and in NO_FILE_ROLE here")
        assert len(listed) <= 1, (
            f"{tool} is in {' and '.join(f'{n} ({ROLE_HOMES[n]})' for n in listed)}: one role each")
    assert NO_FILE_ROLE <= set(names.TOOL_NAMES), f"NO_FILE_ROLE names no such tool: {sorted(NO_FILE_ROLE - set(names.TOOL_NAMES))}"


def test_the_role_lists_are_where_the_messages_say() -> None:
    # The message above sends whoever adds a tool to a file: it must be the one that writes the list.
    src = Path(__file__).parents[2] / "src" / "compact_agent"
    for name, home in ROLE_HOMES.items():
        text = (src / home).read_text(encoding="utf-8")
        assert re.search(rf"^{name}\b[^=\n]*= ", text, re.M), f"{name} is not written in {home}: change ROLE_HOMES"


#: Built-in tools the system prompt does not name: it names those to look with, edit_file's need of a
#: prior read and bash for the tests; write_file's own description says enough.
NOT_IN_PROMPT = frozenset({"write_file"})


def test_the_system_prompt_decides_about_every_tool() -> None:
    named = {t for t in names.TOOL_NAMES if re.search(rf"\b{t}\b", SYSTEM_PROMPT)}
    undecided = sorted(set(names.TOOL_NAMES) - named - NOT_IN_PROMPT)
    assert not undecided, (
        f"say whether the system prompt tells the model when to use {', '.join(undecided)}: SYSTEM_PROMPT in "
        "src/compact_agent/agent/run/options.py, or add it to NOT_IN_PROMPT in tests/agent/test_tool_lists.py")
    assert not named & NOT_IN_PROMPT, f"{sorted(named & NOT_IN_PROMPT)} named in SYSTEM_PROMPT and in NOT_IN_PROMPT here"
    assert NOT_IN_PROMPT <= set(names.TOOL_NAMES), f"NOT_IN_PROMPT names no such tool: {sorted(NOT_IN_PROMPT - set(names.TOOL_NAMES))}"


COUNT = dict(enumerate(("no", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten",
                        "eleven", "twelve")))
ORDINAL = dict(enumerate(("zeroth", "first", "second", "third", "fourth", "fifth", "sixth", "seventh", "eighth",
                          "ninth", "tenth", "eleventh", "twelfth", "thirteenth")))


def plan_ordinal(text: str) -> re.Match[str] | None:
    """'keeps its plan with a seventh (`todo_write`)': the article and the ordinal."""
    return re.search(r"keeps its plan with (an?)\s+(\w+)\s+\(`todo_write`\)", text)


def article(word: str) -> str:
    return "an" if word[0] in "aeiou" else "a"  # the ordinals up to the thirteenth: an eighth, an eleventh


def test_the_plan_ordinal_is_read_after_a_or_an() -> None:
    said = [plan_ordinal(f"and keeps its plan with {a} {o} (`todo_write`)") for a, o in
            (("a", "seventh"), ("an", "eighth"), ("an", "eleventh"), ("a", "twelfth"))]
    assert [(m[1], m[2]) for m in said if m] == [("a", "seventh"), ("an", "eighth"), ("an", "eleventh"), ("a", "twelfth")]
    assert [article(o) for o in ("seventh", "eighth", "eleventh", "twelfth")] == ["a", "an", "an", "a"]


def test_the_readme_counts_and_names_the_tools() -> None:
    readme = (Path(__file__).parents[2] / "README.md").read_text(encoding="utf-8")
    said = re.search(r"through (\w+) tools \(([^)]*)\)", readme)
    assert said, "README.md's first paragraph no longer says 'through N tools (`read_file`, ...)': change this test"
    assert said[1] == COUNT.get(len(names.TOOL_NAMES)) and tuple(re.findall(r"`(\w+)`", said[2])) == names.TOOL_NAMES, (
        f"README.md's first paragraph says {' '.join(said[0].split())!r}: name the {len(names.TOOL_NAMES)} tools of "
        "TOOL_NAMES (src/compact_agent/agent/tools/names.py), in its order")
    plan, want = plan_ordinal(readme), ORDINAL.get(len(names.TOOL_NAMES) + 1, "next ordinal")
    assert plan, "README.md's first paragraph no longer says 'keeps its plan with a seventh (`todo_write`)': change this test"
    assert plan[2] == want and plan[1] == article(plan[2]), (
        f"README.md's first paragraph says {' '.join(plan[0].split())!r}: todo_write comes after the "
        f"{len(names.TOOL_NAMES)} tools of TOOL_NAMES: {article(want)} {want}")


#: A tool's function in build_toolset, its docstring's `Args:` and its line in the `tools` list: about
#: 20 lines; toolset.py keeps room for two past test_module_size's 400.
ROOM_FOR_TOOLS = 40


def test_the_toolset_module_has_room_for_a_new_tool() -> None:
    # At 380 lines, the first tool a newcomer added took toolset.py past the limit, a failure about
    # module sizes rather than about their tool.
    toolset = Path(__file__).parents[2] / "src" / "compact_agent" / "agent" / "tools" / "toolset.py"
    lines = len(toolset.read_text(encoding="utf-8").splitlines())
    assert lines <= 400 - ROOM_FOR_TOOLS, (
        f"src/compact_agent/agent/tools/toolset.py has {lines} lines: a new tool's ~20 would take it past 400 "
        "(tests/test_module_size.py); move a responsibility out, as the wrapping went to never_raises.py")
