"""How a new user installs compact-agent, as the README and docs say it: `make install` first (not only
`make test`, which also lints and runs every test), and from a checkout, never by the bare name from a
package index, where the project is not published."""

from __future__ import annotations

import json
import re
import shlex
import subprocess
import sys
from importlib import metadata
from pathlib import Path

import pytest

from compact_agent import __main__ as entry

ROOT = Path(__file__).resolve().parents[1]
PAGES = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
_BLOCK = re.compile(r"^```(?:sh|bash|console|shell)\n(.*?)^```$", re.S | re.M)


def _pip_installs(text: str) -> list[str]:
    """The arguments of every `pip install` shown, in a shell block or an inline code span."""
    lines = [line.split(" # ", 1)[0] for block in _BLOCK.findall(text) for line in block.splitlines()]
    lines += re.findall(r"`([^`\n]*pip install[^`\n]*)`", text)
    out = []
    for line in lines:
        for m in re.finditer(r"pip install ([^&|;#]*)", line):
            out += [a for a in shlex.split(m.group(1)) if not a.startswith("-")]
    return out


def test_the_readme_starts_with_make_install_and_a_first_run() -> None:
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    start = text.index("## Quick start")
    first = _BLOCK.search(text, start)
    assert first is not None
    block = first.group(1)
    assert block.lstrip().startswith("make install")
    assert ".venv/bin/compact-agent" in block and "make demo" in block
    assert text.index("make install") < text.index("make test")


def test_no_page_installs_compact_agent_by_its_name_from_an_index() -> None:
    by_name = []
    for page in PAGES:
        for arg in _pip_installs(page.read_text(encoding="utf-8")):
            if re.fullmatch(r"compact[-_]agent(\[\w+\])?", arg, re.I):
                by_name.append((page.name, arg))
    assert not by_name, by_name
    readme = _pip_installs((ROOT / "README.md").read_text(encoding="utf-8"))
    assert "/path/to/compact-agent" in readme


class _Dist:
    def __init__(self, direct_url: dict[str, object] | None) -> None:
        self.direct_url = direct_url

    def read_text(self, name: str) -> str | None:
        return None if self.direct_url is None else json.dumps(self.direct_url)


@pytest.mark.parametrize(("direct_url", "said"), [
    ({"url": "file:///home/me/compact-agent", "dir_info": {"editable": True}},
     "pip install -e '/home/me/compact-agent[cli]'"),
    ({"url": "file:///tmp/my%20checkout", "dir_info": {}}, "pip install '/tmp/my checkout[cli]'"),
    (None, "pip install '/path/to/compact-agent[cli]' (the path to its checkout)"),
    ({"url": "https://example.invalid/compact_agent-0.1.0.whl", "archive_info": {}},
     "pip install '/path/to/compact-agent[cli]' (the path to its checkout)"),
])
def test_the_command_without_its_extra_names_the_checkout_not_an_index(
        monkeypatch: pytest.MonkeyPatch, direct_url: dict[str, object] | None, said: str) -> None:
    monkeypatch.setattr(metadata, "distributions", lambda name: [_Dist(direct_url)])
    assert entry.install_cli_command() == said


def test_the_line_said_without_the_extra_is_one_a_user_can_follow() -> None:
    code = "import sys; sys.modules['typer'] = None; from compact_agent.__main__ import main; main()"
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert proc.returncode == 1 and proc.stderr.count("\n") == 1
    assert "pip install 'compact-agent[cli]'" not in proc.stderr and "[cli]'" in proc.stderr
