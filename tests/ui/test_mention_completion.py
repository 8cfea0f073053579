"""Tab completes a path with a space into a mention that works: `see @odd` + Tab gave `@odd dir/`
unquoted (read back as `@odd`: "no such file"), and a second Tab offered nothing. Now the folder is
written escaped (`@odd\\ dir/`) and Tab goes on inside it to `@odd\\ dir/sp\\ ace.txt`; a mention
begun with a quote (`@"odd`) keeps it, left open for a folder."""

from __future__ import annotations

from pathlib import Path

from prompt_toolkit.completion import CompleteEvent
from prompt_toolkit.document import Document

from compact_agent.agent.run.attachments import find
from compact_agent.agent.safety.permissions import Permissions
from compact_agent.config import Settings
from compact_agent.ui.prompt_input import ReplCompleter


def tab(comp: ReplCompleter, line: str) -> str:
    """`line` after Tab with one completion offered (what prompt_toolkit inserts)."""
    found = list(comp.get_completions(Document(line), CompleteEvent(completion_requested=True)))
    assert len(found) == 1, [c.text for c in found]
    return line[: len(line) + found[0].start_position] + found[0].text


def attached(line: str, cwd: Path) -> list[str]:
    return [a.line for a in find(line, cwd, Permissions(cwd, "yes"), sees_images=False, max_bytes=1 << 20,
                                 settings=Settings())]


def test_tab_completes_into_a_folder_with_a_space_and_on_to_its_file(tmp_path: Path) -> None:
    (tmp_path / "odd dir").mkdir()
    (tmp_path / "odd dir" / "sp ace.txt").write_text("hello\n")
    comp = ReplCompleter([], tmp_path)
    once = tab(comp, "see @odd")
    assert once == "see @odd\\ dir/"
    twice = tab(comp, once)
    assert twice == "see @odd\\ dir/sp\\ ace.txt"
    assert attached(twice + " and say hi", tmp_path) == ["attached odd dir/sp ace.txt (1 line)"]
    quoted = tab(comp, tab(comp, 'see @"o'))
    assert quoted == 'see @"odd dir/sp ace.txt"'
    assert attached(quoted, tmp_path) == ["attached odd dir/sp ace.txt (1 line)"]
    assert tab(comp, 'see @"odd dir/"') == quoted  # a quote closed by hand is completed inside too
    assert tab(comp, tab(comp, "see @'o")) == "see @'odd dir/sp ace.txt'"


def test_plain_names_complete_plainly(tmp_path: Path) -> None:
    (tmp_path / "src").mkdir()
    (tmp_path / "src" / "main.py").write_text("")
    comp = ReplCompleter([], tmp_path)
    assert tab(comp, "read @s") == "read @src/" and tab(comp, "read @src/m") == "read @src/main.py"


async def test_the_repl_sends_a_quoted_mention_with_the_file(tmp_path: Path) -> None:
    from tests.fakes.openai_server import Reply

    from .repl_driver import drive

    (tmp_path / "project" / "odd dir").mkdir(parents=True)
    (tmp_path / "project" / "odd dir" / "sp ace.txt").write_text("the secret word is pelican\n")
    run = await drive(tmp_path, lambda req: Reply.text("ok"), ['what is in @"odd dir/sp ace.txt"?\r'])
    assert "⎿ attached odd dir/sp ace.txt (1 line)" in run.out, run.out
    assert "pelican" in str(run.server.requests[0].messages)


def test_tab_twice_in_a_terminal_attaches_the_file(tmp_path: Path) -> None:
    """The keys of the trial, in a real terminal: `see @odd`, Tab, Tab, Enter. What Tab writes
    begins with what was typed, so prompt_toolkit inserts it rather than opening a one-item menu
    that the second Tab would only cycle through."""
    from tests.fakes.openai_server import FakeOpenAIServer, Reply

    from .pty_driver import Terminal

    (tmp_path / "project" / "odd dir").mkdir(parents=True)
    (tmp_path / "project" / "odd dir" / "sp ace.txt").write_text("hello\n")
    with FakeOpenAIServer(lambda req: Reply.text("noted")) as srv:
        term = Terminal(tmp_path, srv.base_url)
        try:
            at = term.prompt()
            at = term.read_until("dir/", term.type("see @odd\t"))  # the terminal is sent what changed
            at = term.read_until("ace.txt", term.type("\t"))
            answered = term.read_until("noted", term.type("\r"))
            assert "attached odd dir/sp ace.txt (1 line)" in term.text(at), term.text(at)
            term.prompt(answered)  # Ctrl-D at the prompt: sent while the turn ends, a loaded machine lost it
            assert term.finish() == 0
        finally:
            term.close()
    assert "hello" in str(srv.requests[0].messages)
