"""A large paste at the prompt shows as `[pasted 200 lines]`, while it is edited and in the
scrollback after Enter, and the model gets it whole. It filled the input line with every line of
the paste, and the scrollback again. A small paste goes in as it is; typing around a placeholder
works, Backspace after it takes it whole, and the prompt history keeps the paste itself."""

from __future__ import annotations

from prompt_toolkit.input import create_pipe_input
from prompt_toolkit.output import DummyOutput

from compact_agent.session.store import load_session_file
from compact_agent.ui.pastes import Pastes
from compact_agent.ui.prompt_input import history_path, make_prompt

from .paste_terminal import paste_in_terminal
from .repl_driver import pasted

LOG = "".join(f"paste-line-{i:03d} of the log\n" for i in range(200))


def test_a_large_paste_shows_as_its_placeholder_and_the_model_gets_it_whole(tmp_path):
    run = paste_in_terminal(tmp_path, "look at this: ", LOG, "[pasted 200 lines]", " which line is last?",
                            "READ-THE-LOG")
    term, shown, seen = run.term, run.shown, run.seen
    screen = term.text()
    assert "paste-line-" not in screen, screen[-2000:]  # not in the input, not in the scrollback
    assert "which line is last?" in term.text(shown)
    assert seen == [f"look at this: {LOG} which line is last?"]  # the model got the paste whole
    [path] = (tmp_path / "home" / "projects").glob("*/*.jsonl")
    said = [p.content for m in load_session_file(path).messages for p in m.parts if getattr(p, "part_kind", "") == "user-prompt"]
    assert said == [f"look at this: {LOG} which line is last?"]  # so did the session
    assert "[pasted" not in path.read_text()


async def prompt_once(tmp_path, *keys: str) -> tuple[str, Pastes]:
    """One prompt given `keys`; the line the REPL makes of it (placeholders expanded) and the pastes."""
    pastes = Pastes()
    with create_pipe_input() as inp:
        p = make_prompt(tmp_path / "root", [], tmp_path, pastes=pastes, input=inp, output=DummyOutput())
        for k in keys:
            inp.send_text(k)
        line = await p.prompt_async("› ")
    return pastes.expand(line), pastes


async def test_the_placeholder_is_edited_as_words_and_backspace_takes_it_whole(tmp_path):
    line, _ = await prompt_once(tmp_path, "a", pasted(LOG), "b", "\x1b[D", "\x1b[H", "<", "\x1b[F", ">\r")
    assert line == f"<a{LOG}b>"  # Left, Home, End: typing goes where the cursor is, around the placeholder
    line, _ = await prompt_once(tmp_path, "a", pasted(LOG), "b", "\x1b[D", "\x7f", "c\r")
    assert line == "acb"  # Backspace right after the placeholder took the whole of it
    line, pastes = await prompt_once(tmp_path, "a ", pasted(LOG), "\x7f", "\x7f", "typed\r")
    assert line == "atyped"  # then Backspace is Backspace again
    line, pastes = await prompt_once(tmp_path, pasted(LOG), pasted(LOG[:400]), " and\r")
    assert list(pastes.held) == ["[pasted 200 lines]", "[pasted 16 lines #2]"]
    assert line == LOG + LOG[:400] + " and"


async def test_a_small_paste_goes_in_as_it_is_and_the_history_keeps_the_paste(tmp_path):
    small = "one\ntwo\nthree"
    line, pastes = await prompt_once(tmp_path, pasted(small), "\r")
    assert line == small and not pastes.held
    await prompt_once(tmp_path, "see ", pasted(LOG), "\r")
    history = history_path(tmp_path / "root").read_text()
    assert "paste-line-199 of the log" in history and "[pasted" not in history
