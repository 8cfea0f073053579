"""The REPL in a pseudo-terminal as a Claude Code or Codex user meets it: a permission question
that is never under a spinner, spinners that stop however a turn ends, and `!cmd` that Ctrl-C or
Esc stop without leaving the session."""

from __future__ import annotations

import io

from rich.console import Console

from tests.fakes.openai_server import FakeOpenAIServer, Reply

from .pty_driver import Terminal
from .repl_driver import drive


def bash_then_done(req) -> Reply:
    if not any(m.get("role") == "tool" for m in req.messages[-2:]):
        return Reply.tools([("bash", {"command": "echo RAN-$((40+2))"})])
    tool = [m for m in req.messages if m.get("role") == "tool"][-1]
    return Reply.text("DONE: " + ("refused" if "permission denied" in str(tool.get("content")) else "ran"))


def terminal_console() -> Console:
    return Console(record=True, width=120, file=io.StringIO(), force_terminal=True)


class LiveChecker(io.StringIO):
    """Permission answers read by the REPL; each read records whether a live region (spinner) was up."""

    def __init__(self, console: Console, answers: str) -> None:
        super().__init__(answers)
        self.console, self.live_at_ask = console, []

    def readline(self, *a) -> str:  # type: ignore[override]
        self.live_at_ask.append(bool(self.console._live_stack))
        return super().readline(*a)


async def test_no_spinner_is_up_while_the_permission_question_waits(tmp_path):
    console = terminal_console()
    answers = LiveChecker(console, "y\n")
    run = await drive(tmp_path, bash_then_done, ["run it\r"], console=console, ask_stream=answers)
    assert answers.live_at_ask == [False]
    assert "DONE: ran" in run.out and "waiting for approval" in run.out


def test_the_permission_menu_takes_y_and_esc_in_a_terminal(tmp_path):
    with FakeOpenAIServer(bash_then_done) as server:
        term = Terminal(tmp_path, server.base_url, cols=80, rows=40)
        try:
            start = term.prompt()
            term.type("run it\r")
            menu = term.read_until("Allow bash?", start)
            term.read_until("waiting for approval", menu)
            term.type("\x1b[B\x1b[B")  # two arrows down: the selection moves to "No"
            term.read_until("❯ 3.", menu)
            assert "running bash" not in term.text(menu)  # no spinner drew over the question
            term.type("y")
            done = term.read_until("DONE: ran", menu)
            assert "allowed once" in term.text(menu, done)
            start = term.prompt(done)
            term.type("again\r")
            menu = term.read_until("Allow bash?", start)
            term.type("\x1b")  # Esc = no
            end = term.read_until("DONE: refused", menu)
            assert "declined" in term.text(menu, end)
            term.prompt(end)
            assert term.finish() == 0
        finally:
            term.close()


async def test_every_way_a_turn_ends_stops_its_spinner(tmp_path):
    """Two failed turns in a row: at each prompt no live region (spinner) is left running, so none
    counts over the prompt or stacks on another."""
    console = terminal_console()
    live_at_prompt: list[bool] = []
    run = await drive(tmp_path, lambda req: Reply.error(500, {"error": {"message": "boom"}}),
                      ["first\r", "second\r"], console=console,
                      at_prompt=lambda: live_at_prompt.append(bool(console._live_stack)))
    assert "HTTP 500" in run.out
    assert live_at_prompt == [False, False, False]


def test_after_a_failed_turn_no_spinner_draws_over_the_prompt(tmp_path):
    term = Terminal(tmp_path, "http://127.0.0.1:9/v1", env={"COMPACT_AGENT_MAX_RETRIES": "0",
                                                          "COMPACT_AGENT_TRANSIENT_RETRIES": "0"})
    try:
        start = term.prompt()
        term.type("hello\r")
        failed = term.read_until("cannot reach the model endpoint", start)
        back = term.prompt(failed)
        term.type("/status\r")
        shown = term.read_until("compactions", back)
        term.prompt(shown)
        assert term.finish() == 0
        assert "thinking…" not in term.text(failed), term.text(failed)
        assert shown > failed
        said = " ".join(term.text(failed, back).split())  # names where it went, not a flag nobody gave
        assert "cannot reach the model endpoint at http://127.0.0.1:9/v1" in said and "--base-url" not in said
    finally:
        term.close()


def test_ctrl_c_and_esc_stop_a_shell_command_not_the_session(tmp_path):
    with FakeOpenAIServer(lambda req: Reply.text("GOT IT")) as server:
        term = Terminal(tmp_path, server.base_url)
        try:
            at = term.prompt()
            term.type("!echo FIRST-OUTPUT\r")
            at = term.prompt(term.read_until("FIRST-OUTPUT", at + 20))
            term.type("!sleep 30; echo NEVER\r")
            term.read_until("running !sleep", at)  # a spinner while it runs
            term.type("\x03")  # Ctrl-C
            stopped = term.read_until("the command was stopped", at)
            at = term.prompt(stopped)
            term.type("!sleep 31; echo NEVER\r")
            term.read_until("running !sleep 31", at)
            term.type("\x1b")  # Esc
            stopped = term.read_until("the command was stopped", at)
            at = term.prompt(stopped)
            term.type("what did it print?\r")
            term.prompt(term.read_until("GOT IT", at))
            assert term.finish() == 0
        finally:
            term.close()
        assert "NEVER" not in term.text().replace("echo NEVER", "")
        sent = server.requests[-1].last_user_text()
        assert "FIRST-OUTPUT" in sent and "sleep" not in sent  # the earlier output was kept, the stopped one not


async def test_max_turns_stops_the_turn_in_our_words_and_the_spinner_with_it(tmp_path):
    from compact_agent.config import Settings

    console = terminal_console()
    live_at_prompt: list[bool] = []
    run = await drive(tmp_path, lambda req: Reply.tools([("glob", {"pattern": "*"})]), ["look\r"], console=console,
                      settings=Settings(max_requests_per_turn=2),
                      at_prompt=lambda: live_at_prompt.append(bool(console._live_stack)))
    said = " ".join(run.out.split())
    # the limit set in the settings, no --max-turns given: said as the setting
    assert ("stopped after 2 model requests (max_requests_per_turn = 2); the work so far is saved, send a message "
            "to go on") in said
    assert "request_limit" not in run.out and "send the message again" not in run.out
    assert live_at_prompt == [False, False]


async def test_the_toolbar_shows_context_cost_model_and_the_bypass_mark(tmp_path):
    from compact_agent.ui.command_registry import current_repl

    seen: list[str] = []
    await drive(tmp_path, lambda req: Reply.text("ok"), ["hi\r"], permission_mode="yes",
                at_prompt=lambda: seen.append(current_repl().status_text))
    assert len(seen) == 2 and "fake-model" in seen[1] and "bypass permissions (--yes)" in seen[1]
    assert "context " in seen[1] and "k/32.8k (" in seen[1] and "1 request at unknown prices" in seen[1]
    assert seen[0] != seen[1]  # the turn's messages count in the context figure


def test_the_toolbar_is_under_the_prompt_in_a_terminal(tmp_path):
    with FakeOpenAIServer(lambda req: Reply.text("ok")) as server:
        term = Terminal(tmp_path, server.base_url, "--yes", cols=80)
        try:
            start = term.prompt()
            term.read_until("bypass permissions", start - 200)
            assert term.finish() == 0
        finally:
            term.close()


def test_keys_typed_during_start_up_go_to_the_prompt_not_above_the_banner(tmp_path):
    with FakeOpenAIServer(lambda req: Reply.text("ANSWERED")) as server:
        term = Terminal(tmp_path, server.base_url, fresh=True)  # keys typed while it imports
        try:
            term.wait_echo_off()  # the REPL has started and is still loading
            assert b"/help for commands" not in term.seen
            term.type("typed ahead")
            banner = term.read_until("/help for commands")
            term.prompt(banner)
            term.read_until("typed ahead", banner)
            term.type("\r")
            term.prompt(term.read_until("ANSWERED", banner))
            assert term.finish() == 0
        finally:
            term.close()
        assert "typed ahead" not in term.text(0, banner)
        assert server.requests[0].last_user_text() == "typed ahead"


def test_version_and_help_do_not_import_the_agent():
    import subprocess
    import sys

    code = ("import sys\nfrom compact_agent.cli import main\nsys.argv = ['compact-agent', '{}']\n"
            "try:\n    main()\nexcept SystemExit:\n    pass\n"
            "print('HEAVY' if {{'pydantic_ai', 'openai'}} & set(sys.modules) else 'LIGHT', file=sys.stderr)")
    for flag in ("--version", "--help"):
        out = subprocess.run([sys.executable, "-c", code.format(flag)], capture_output=True, text=True, timeout=60)
        assert out.stderr.strip().endswith("LIGHT"), (flag, out.stderr)


def test_a_line_typed_ahead_with_enter_during_a_turn_is_sent_after_it(tmp_path):
    """Enter typed while a turn ran was dropped: the line stayed in the next prompt unsent, and
    what was typed next was joined to it ("chat hello/exit" went to the model, the REPL stayed)."""
    import threading

    asked, release = threading.Event(), threading.Event()

    def slow_first(req) -> Reply:
        text = req.last_user_text()
        if text == "first":
            asked.set()
            release.wait(30)
        return Reply.text(f"ANSWER {text}")

    with FakeOpenAIServer(slow_first) as server:
        term = Terminal(tmp_path, server.base_url)
        try:
            start = term.prompt()
            term.type("first\r")
            assert asked.wait(30)
            term.type("second\r")  # alone: two lines that come in one write are a paste (typed_ahead.py)
            release.set()
            term.prompt(term.read_until("ANSWER second", start))
            term.type("/exit\r")  # the prompt holds nothing: "second/exit" would be sent
            assert term.finish() == 0
        finally:
            release.set()
            term.close()
    assert [r.last_user_text() for r in server.requests] == ["first", "second"]
