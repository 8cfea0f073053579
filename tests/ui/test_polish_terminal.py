"""The REPL in a pseudo-terminal: `/config` shows what the session runs with (its start-up flags
included), and prose wraps at words at the terminal's width."""

from __future__ import annotations

import re

from tests.fakes.openai_server import FakeOpenAIServer, Reply

from .pty_driver import Terminal

ANSI = re.compile(r"\x1b\[[0-9;?]*[A-Za-z]")


def screen_lines(text: str) -> list[str]:
    return [ANSI.sub("", line).replace("\r", "") for line in text.replace("\r\n", "\n").split("\n")]


def test_config_shows_the_flags_the_session_started_with(tmp_path):
    extra = tmp_path / "extra"
    extra.mkdir()
    with FakeOpenAIServer(lambda req: Reply.text("ok")) as server:
        term = Terminal(tmp_path, server.base_url, "--max-turns", "7", "--add-dir", str(extra),
                        "--allowed-tools", "bash(sleep *)", "--yes")
        try:
            start = term.prompt()
            term.type("/config\r")
            end = term.read_until("(/permissions)", start)
            term.prompt(end)
            assert term.finish() == 0
        finally:
            term.close()
    rows = {line.split()[0]: line.split() for line in screen_lines(term.text(start, end)) if line.strip()}
    assert rows["max_requests_per_turn"][1:] == ["7", "flag"]
    assert rows["model"][1:] == ["fake-model", "flag"] and rows["base_url"][-1] == "flag"
    shown = rows["extra_dirs"][1].rstrip("…")  # a long value is cut to fit the table
    assert len(shown) > 10 and f'["{extra.resolve()}"]'.startswith(shown) and rows["extra_dirs"][-1] == "flag"
    assert "sleep *" in " ".join(rows["allow_bash"]) and rows["allow_bash"][-1] == "flag"
    assert "--yes" in term.text(start, end + 20)
    assert "flags given at start are not shown" not in term.text(start)


def test_prose_wraps_at_words_in_an_80_column_terminal(tmp_path):
    with FakeOpenAIServer(lambda req: Reply.text("ok")) as server:
        term = Terminal(tmp_path, server.base_url, cols=80)
        try:
            start = term.prompt()
            term.type("!\r")  # the usage line of `!cmd`: longer than 80 columns
            end = term.read_until("next message)", start)
            term.prompt(end)
            assert term.finish() == 0
        finally:
            term.close()
    lines = [line for line in screen_lines(term.text(start, end + len("next message)"))) if "usage" in line
             or "next message" in line]
    assert len(lines) == 2 and all(len(line.rstrip()) <= 80 for line in lines), lines
    assert "the output goes with your next message)" in " ".join(line.strip() for line in lines)  # broken at a space


def seq_then_done(req) -> Reply:
    if not any(m.get("role") == "tool" for m in req.messages):
        return Reply.tools([("bash", {"command": "seq 1 3000"})])
    return Reply.text("DONE")


def test_ctrl_o_shows_the_last_turns_output_in_full_above_the_prompt(tmp_path):
    with FakeOpenAIServer(seq_then_done) as server:
        term = Terminal(tmp_path, server.base_url, "--yes")
        try:
            start = term.prompt()
            term.type("go\r")
            after_turn = term.prompt(term.read_until("DONE", start))
            assert "\n1500\r\n" not in term.text(start) and "    1500" not in term.text(start)  # only its tail
            term.type("keep this")
            term.read_until("keep this", after_turn)
            shown = term.type("\x0f")  # Ctrl-O
            end = term.read_until("1 tool call in full", shown)
            assert "    1500" in term.text(shown, end) and "● bash(seq 1 3000)" in term.text(shown, end)
            term.type("\r")  # what was typed stayed in the input
            term.prompt(term.read_until("DONE", end))
            assert term.finish() == 0
        finally:
            term.close()
    assert server.requests[-1].last_user_text() == "keep this"
