"""The tools' names, on their own: the command line checks `--allowed-tools` against them before it
imports any tool (or pydantic-ai). Here too what each tool's results are to the layers: the runner
hands `COMPACTABLE_TOOLS` to microcompact, the library (context/) knowing no agent's tools."""

TOOL_NAMES: tuple[str, ...] = ("read_file", "write_file", "edit_file", "bash", "grep", "glob")

COMPACTABLE_TOOLS: frozenset[str] = frozenset({"read_file", "write_file", "edit_file", "bash", "grep", "glob"})
"""The tools whose old results microcompact may clear: the call stays, and running it again gets
the result back (or, for an edit, its outcome matters no more once the model has moved on)."""

KEPT_RESULTS: frozenset[str] = frozenset()
"""The tools whose old results microcompact leaves as they are: ones the model could not get back
by calling again. Each tool of TOOL_NAMES is in this set or in COMPACTABLE_TOOLS
(tests/agent/test_tool_lists.py): a new tool's old results were silently never cleared."""
