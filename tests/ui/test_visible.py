"""What the REPL and `sessions` print shows a control character as its escape, as print mode does:
rich drops `\\r` and the bell when it makes a string into text, and markdown takes `\\r` for a line
break, so they vanished instead (while `\\x1b` and `\\u202e` were shown). And an error line reads
as prose where a provider's sentence meets our hint."""

from __future__ import annotations

import io
import re

from compact_agent.ui import render
from compact_agent.ui.turn_view import TurnView

EVIL = "evil \x1b]0;TITLE\x07 \x1b[2J text \r overwritten \u202e reversed"
SHOWN = "evil \\x1b]0;TITLE\\x07 \\x1b[2J text \\r overwritten \\u202e reversed"
RICH_STYLE = re.compile(r"\x1b\[[0-9;]*m")  # our own colours, which reach the terminal as they are


def console() -> render.SafeConsole:
    return render.SafeConsole(record=True, width=200, file=io.StringIO(), force_terminal=True, highlight=False)


def printed(c: render.SafeConsole) -> str:
    out = c.file.getvalue()  # type: ignore[attr-defined]
    raw = RICH_STYLE.sub("", out)
    assert not re.search(r"[\x00-\x08\x0b-\x1f\x7f\u202e]", raw), repr(raw)  # no control of the text left raw
    return raw


def test_an_answer_in_the_repl_shows_every_control_as_its_escape() -> None:
    c = console()
    view = TurnView(c, lambda: 0, spinner=False)
    view.on_text(EVIL)
    view.end()
    assert SHOWN in printed(c)


def test_an_answer_keeps_its_markdown_its_line_breaks_and_its_tabs() -> None:
    c = console()
    view = TurnView(c, lambda: 0, spinner=False)
    view.on_text("**bold** words\n\n```\nfirst\tcell\nsecond\x07\n```\n\nlast paragraph\n")
    view.end()
    out = c.file.getvalue()  # type: ignore[attr-defined]
    text = printed(c)
    assert "\x1b[1mbold" in out and "**" not in text  # markdown still rendered
    lines = [line.strip() for line in text.splitlines()]
    assert "second\\x07" in lines and "last paragraph" in lines  # a line each: newlines still break lines
    cell = next(line for line in lines if line.startswith("first"))
    assert re.fullmatch(r"first +cell", cell)  # a tab is a tab (spaces on screen), not `\t`


def test_a_string_the_repl_prints_shows_its_controls() -> None:
    c = console()
    c.print(f"tool said: {EVIL}\nnext line")
    assert f"tool said: {SHOWN}\nnext line" in printed(c)


def test_sessions_shows_a_carriage_return_in_a_first_prompt(tmp_path, monkeypatch) -> None:
    from pydantic_ai.messages import ModelRequest, UserPromptPart
    from typer.testing import CliRunner

    from compact_agent.cli import app
    from compact_agent.session.store import SessionStore
    from tests.session.test_listing_counts import sessions_root

    store = SessionStore(sessions_root(tmp_path, monkeypatch), "20261202-1030-ab12")
    store.append([ModelRequest(parts=[UserPromptPart("make it RED\rprompt\nand\tthis")])])
    res = CliRunner().invoke(app, ["sessions"])
    assert res.exit_code == 0, res.output
    assert "make it RED\\rprompt and this" in res.output  # one line a session; the \r shown, not a space


def test_one_line_keeps_the_controls_it_does_not_show_as_spaces() -> None:
    from compact_agent.ui.visible import one_line, visible

    assert one_line("  a\n\tb  \r c\x0cd\u2028e ") == "a b \r c\x0cd e"
    assert visible(one_line("x\ry")) == "x\\ry"
    assert render.clip_words("RED\rprompt and a long tail of words", 20) == "RED\rprompt and a…"


def test_an_error_line_joins_the_providers_sentence_and_the_hint() -> None:
    """`…Please try again later.; the session is saved…` read as a typo: after the provider's full
    stop the hint takes its place, after its `?` the hint is a sentence of its own."""
    from pydantic_ai.exceptions import ModelHTTPError

    from compact_agent.error_text import describe_error

    limited = ModelHTTPError(429, "m", {"error": {"message": "Rate limit reached. Please try again later."}})
    line = describe_error(limited)
    assert line.endswith("Rate limit reached. Please try again later; the session is saved with your message: "
                         "send it again (↑ Enter) to retry"), line
    printed = describe_error(limited, "; the session is saved: `compact-agent -c -p ...` continues it")
    assert printed.endswith("Please try again later; the session is saved: `compact-agent -c -p ...` continues it")
    asked = describe_error(ModelHTTPError(503, "m", {"error": {"message": "Overloaded, retry?"}}))
    assert asked.endswith("Overloaded, retry? The session is saved with your message: send it again (↑ Enter) "
                          "to retry"), asked
    plain = describe_error(ModelHTTPError(500, "m", {"error": {"message": "internal error"}}))
    assert plain.endswith("internal error; the session is saved with your message: send it again (↑ Enter) to "
                          "retry"), plain


def test_tool_output_in_the_repl_and_ctrl_o_shows_its_controls() -> None:
    """The tail of a tool's output under its line, and /expand (Ctrl-O), build their text without
    the console's string path: they show `\\r` and the bell as escapes too."""
    from pydantic_ai.messages import ToolCallPart

    from compact_agent.ui.expand import Call, show

    c = console()
    view = TurnView(c, lambda: 0, spinner=False)
    view.on_tool({"type": "tool_call", "tool": "bash", "id": "c1", "args": {"command": "cat x"}})
    view.on_tool({"type": "tool_result", "tool": "bash", "id": "c1", "error": False, "summary": "2 lines",
                  "tail": ["first \r over", "bell \x07 here"], "output_lines": 2})
    view.end()
    shown = printed(c)
    assert "first \\r over" in shown and "bell \\x07 here" in shown
    c = console()
    show([Call(ToolCallPart("bash", {"command": "cat x"}, tool_call_id="c1"), "first \r over\nbell \x07 here",
               False, 0)], c)
    shown = printed(c)
    assert "first \\r over" in shown and "bell \\x07 here" in shown
