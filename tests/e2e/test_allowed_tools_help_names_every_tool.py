"""`--help`'s --allowed-tools names every tool the option takes, as its error does: it named
write_file, edit_file and bash while the error listed all six and read_file was taken silently."""

from __future__ import annotations

import re

from compact_agent.agent.tools.names import TOOL_NAMES


def test_the_help_names_every_tool_the_option_takes(cli) -> None:
    r = cli("--help")
    assert r.code == 0, r.stderr
    text = " ".join(r.stdout.split())
    said = text[text.index("--allowed-tools TOOL"):]
    said = said[:said.index("comma-")]
    assert all(re.search(rf"\b{name}\b", said) for name in TOOL_NAMES), said
    assert "never ask" in said
