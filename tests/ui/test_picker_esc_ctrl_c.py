"""Esc or Ctrl-C at `-r`'s list leaves it as an interrupt does elsewhere: one line,
`compact-agent: interrupted; no session was opened`, exit 130, and no session opened. Esc was taken
for the start of Alt-Enter, so Esc then Enter resumed session 1; Ctrl-C ended the command with exit
0 and no word. Ctrl-D still quits, as the question says, with exit 0."""

from __future__ import annotations

import time
from pathlib import Path

import pytest

from tests.fakes.openai_server import FakeOpenAIServer

from .pty_driver import Terminal, one_session
from .test_banner_and_picker_narrow import ok


def ended(term: Terminal, timeout: float = 60) -> int:
    """The exit code of a process that is leaving by itself, all it wrote read."""
    deadline = time.monotonic() + timeout
    while term.proc.poll() is None and time.monotonic() < deadline:
        if not term._read(0.2):
            time.sleep(0.05)
    term.drain()
    return term.proc.wait(max(1.0, deadline - time.monotonic()))


@pytest.mark.parametrize("key", ["\x1b", "\x03"], ids=["esc", "ctrl-c"])
def test_esc_or_ctrl_c_leaves_the_list_as_an_interrupt(tmp_path: Path, key: str) -> None:
    with FakeOpenAIServer(ok) as server:
        one_session(tmp_path, server.base_url, "the only one")
        term = Terminal(tmp_path, server.base_url, "-r")
        try:
            asked = term.read_until("resume it? (Enter or 1, Ctrl-D to quit)")
            term.type(key)
            said = term.read_until("compact-agent: interrupted; no session was opened", asked, timeout=20)
            term.type("\r")  # Enter after it opens nothing: the command is over
            assert ended(term) == 130
            after = term.text(asked)
            assert "/help for commands" not in after and "Traceback" not in after, after
            assert term.text(said).strip() == "compact-agent: interrupted; no session was opened", term.text(said)
        finally:
            term.close()


def test_ctrl_d_quits_the_list(tmp_path: Path) -> None:
    with FakeOpenAIServer(ok) as server:
        one_session(tmp_path, server.base_url, "the only one")
        term = Terminal(tmp_path, server.base_url, "-r")
        try:
            asked = term.read_until("resume it?")
            term.type("\x04")
            assert ended(term) == 0
            assert "/help for commands" not in term.text(asked) and "interrupted" not in term.text(asked)
        finally:
            term.close()
