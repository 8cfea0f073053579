"""The tools' names, on their own: the command line checks `--allowed-tools` against them before it
imports any tool (or pydantic-ai)."""

TOOL_NAMES: tuple[str, ...] = ("read_file", "write_file", "edit_file", "bash", "grep", "glob")
