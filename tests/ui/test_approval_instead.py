"""The permission menu's third choice, "No, and tell the model what to do instead", does that: the call
is declined and the line the user types goes to the model as the call's result, marked as the user's
instruction, and the model changes course in the same turn. The choice promised it while `n` only
declined, and the words then said to stop the turn with ctrl-c and type a new message instead."""

from __future__ import annotations

from pathlib import Path

from compact_agent.agent.safety.permissions import INSTEAD, Instead, Permissions
from tests.fakes.openai_server import FakeOpenAIServer, Reply, tool_results, user_messages

from .pty_driver import Terminal
from .repl_driver import drive


def bash_then_told(req) -> Reply:
    """A bash call; then says what its result was: run, refused, or the user's instruction."""
    results = tool_results(req)
    if not results:
        return Reply.tools([("bash", {"command": "echo RAN-$((40+2))"})])
    content = str(results[-1]["content"])
    if INSTEAD in content:
        return Reply.text("DONE: told to " + content.split(INSTEAD, 1)[1].strip())
    return Reply.text("DONE: " + ("refused" if "permission denied" in content else "ran"))


def asked_what_instead(term: Terminal) -> int:
    """`run it` at the prompt, then `n` at bash's approval menu (once its third choice shows): the
    offset where "what should the model do instead?" is asked."""
    start = term.prompt()
    term.type("run it\r")
    menu = term.read_until("Allow bash?", start)
    term.read_until("3. No, and tell the model what to do instead", menu)
    term.type("n")
    return term.read_until("what should the model do instead?", menu)


def test_no_with_an_instruction_in_a_terminal(tmp_path: Path) -> None:
    with FakeOpenAIServer(bash_then_told) as server:
        term = Terminal(tmp_path, server.base_url, cols=100, rows=40)
        try:
            asked = asked_what_instead(term)
            term.type("run make check instead\r")
            done = term.read_until("DONE: told to run make check instead", asked)
            assert "declined; the model is told: run make check instead" in term.text(asked, done)
            start = term.prompt(done)
            term.type("again\r")  # Enter alone at the question: a plain no
            menu = term.read_until("Allow bash?", start)
            term.type("n")
            term.read_until("what should the model do instead?", menu)
            term.type("\r")
            end = term.read_until("DONE: refused", menu)
            term.prompt(end)
            assert term.finish() == 0
        finally:
            term.close()
    told = [r for r in server.requests if tool_results(r)]
    assert INSTEAD + " run make check instead" in str(tool_results(told[0])[-1]["content"])
    assert [len(user_messages(r)) for r in told] == [1, 2]  # the instruction did not make a new turn


async def test_a_typed_answer_other_than_yes_or_no_is_what_to_do_instead(tmp_path: Path) -> None:
    run = await drive(tmp_path, bash_then_told, ["run it\r"], answers="Run Make Check\n")
    assert "[n]o, or what to do instead / Enter alone: just no (waiting for approval):" in run.out
    assert (
        "declined; the model is told: Run Make Check" in run.out and "DONE: told to Run Make Check" in run.out
    )
    assert run.prompts == ["run it"]


def test_the_refusal_carries_the_users_words_marked_as_theirs(tmp_path: Path) -> None:
    answers = iter([Instead("use   pytest -q  instead "), Instead("  "), "deny", Instead("run:\n  make check  \n")])
    perms = Permissions(tmp_path, "ask", ask=lambda tool, detail: next(answers))
    assert perms.check("bash", "make test") == (
        f"permission denied: the user declined this bash call. {INSTEAD} use pytest -q instead"
    )
    assert perms.check("bash", "make test") == "permission denied: the user declined this bash call"
    assert perms.check("bash", "make test") == "permission denied: the user declined this bash call"
    assert perms.check("bash", "make test") == (  # a paste of several lines: its lines kept
        f"permission denied: the user declined this bash call. {INSTEAD} run:\n  make check")
