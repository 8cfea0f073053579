"""A message that `!cmd` output went with is shown as it was typed, the command named after it, in
`/history`, in the sessions listing (`compact-agent sessions`, `-r`'s list, `/resume`) and in the
last exchanges a resumed session shows; the model still gets the output in front of it.

Before, each of them showed the message as it went to the model: a session begun with `!echo hello`
then `what did it print` was listed as 'I ran this shell command myself: $ echo hello hello exit
code: 0…', and its `/history` row likewise, the words typed nowhere in sight.
"""

from __future__ import annotations

from pathlib import Path

from compact_agent.shell_message import typed_after_output
from compact_agent.ui.sessions_list import first_prompt
from tests.fakes.openai_server import Reply
from tests.ui.repl_driver import drive

SHOWN = "what did it print (with the output of !echo hello from shell)"


def echo(req) -> Reply:
    return Reply.text("ok")


async def test_history_the_listing_and_a_resume_show_the_words_typed(tmp_path: Path) -> None:
    run = await drive(tmp_path, echo, ["!echo hello from shell\r", "what did it print\r", "/history\r"])
    users = [m["content"] for m in run.server.requests[0].messages if m.get("role") == "user"]
    assert users == ["I ran this shell command myself:\n$ echo hello from shell\nhello from shell\nexit code: 0"
                     "\n\nwhat did it print"]  # the model gets the output, as before
    history = run.out[run.out.index("messages (the numbers"):]
    assert f"0 you          {SHOWN}" in history, history
    assert "I ran this shell command myself" not in history, history
    [session] = (tmp_path / "home" / "projects").glob("*/*.jsonl")
    assert first_prompt(session) == (SHOWN, 2)
    again = await drive(tmp_path, echo, [], continue_last=True)
    assert f"› {SHOWN}" in again.out, again.out


def test_the_typed_words_are_found_behind_several_outputs_and_one_that_prints_an_exit_line() -> None:
    head = "I ran this shell command myself:\n$ "
    text = (f"{head}make\nexit code: 0\n\nbuilt\nexit code: 2\n\n{head}cat log\nexit code: 1\n\nok\n"
            "exit code: 0\n\nwhy did make fail?\n\nsee above")
    assert typed_after_output(text) == (["make", "cat log"], "why did make fail?\n\nsee above")
    assert typed_after_output("fix the test") is None
    assert typed_after_output(f"{head}ls\n[cut to fit: the rest is in a file]") is None  # not whole: shown as it is
