"""`-p` stopped by Ctrl-C (SIGINT) says in one line that it was interrupted and that its session is
saved, as SIGTERM and SIGHUP say they terminated it: it printed nothing (the terminal's `^C` only)
and exited 130, a script's log not saying whether the prompt was kept. It still exits 130, and with
`--output-format json` or `stream-json` stdout ends with a result object, as a terminated run's does
(subtype "error_interrupted", signal "SIGINT"). A later `-c` says plainly that the user stopped
that turn, as after a turn stopped in the REPL, not that the message got no answer."""

from __future__ import annotations

import json
import signal

from tests.fakes.openai_server import FakeOpenAIServer, Reply, user_messages

from .held_request import stopped_while_starting, terminated
from .test_print_prompt_saved_early import fake

LINE = "compact-agent: interrupted; the session is saved: `compact-agent -c -p ...` continues it\n"


def test_ctrl_c_during_the_request_says_the_session_is_saved_and_exits_130(cli):
    code, lines, err = terminated(cli, signal.SIGINT)
    assert code == 130 and lines == [] and err == LINE
    with FakeOpenAIServer(lambda req: Reply.text("ok")) as server:
        again = cli("-c", "-p", "go on", *fake(server))
    assert again.code == 0, again.stderr
    assert [m["content"] for m in user_messages(server.requests[-1])] == ["remember HERON", "go on"]


def test_with_an_answered_session_before_it_the_line_names_the_resume_that_goes_on(cli):
    """`-c` goes on with the newest session the model answered in (session/answered.py): the
    line said `-c -p` of a new session `-c` passes over."""
    with FakeOpenAIServer(lambda req: Reply.text("ok")) as server:
        assert cli("-p", "earlier work", *fake(server)).code == 0
    code, _, err = terminated(cli, signal.SIGINT)
    newest = cli("sessions").stdout.split()[0]
    assert code == 130 and err == LINE.replace("-c -p", f"-r {newest} -p"), err


def test_continue_after_ctrl_c_during_the_request_says_plainly_the_user_stopped_it(cli):
    """As after Esc or Ctrl-C in the REPL: a note that the user stopped the turn, where `-c` warned
    that the message "got no answer before the last run ended", as after a run that died."""
    terminated(cli, signal.SIGINT)
    with FakeOpenAIServer(lambda req: Reply.text("ok")) as server:
        again = cli("-c", "-p", "go on", *fake(server))
    assert again.code == 0, again.stderr
    assert "got no answer" not in again.stderr and "warning" not in again.stderr, again.stderr
    assert "the last turn was stopped by you before an answer: your message is in the conversation, " \
        "unanswered" in again.stderr, again.stderr


def test_json_output_ends_with_a_result_that_says_the_run_was_interrupted(cli):
    code, lines, err = terminated(cli, signal.SIGINT, "--output-format", "json")
    assert code == 130 and err == LINE
    assert len(lines) == 1, lines
    result = json.loads(lines[0])
    [session] = cli.sessions()
    assert result["type"] == "result" and result["is_error"] is True and result["result"] is None
    assert result["subtype"] == "error_interrupted" and result["signal"] == "SIGINT"
    assert result["error"] == LINE.removeprefix("compact-agent: ").rstrip("\n")
    assert result["session_id"] == session.stem and isinstance(result["duration_ms"], int)
    # the held request counts once, as SIGTERM's result counts it: it was sent, though no answer came;
    # unwound by Ctrl-C, the usage ledger counts it, its input estimated from what was sent (/cost's)
    assert result["num_turns"] == 1 and result["usage"]["requests"] == 1 and result["compactions"] == []
    [entry] = [json.loads(line) for line in (session.parent / session.stem / "usage.jsonl").read_text().splitlines()]
    assert entry["unanswered"] is True and entry["estimated"] is True and entry["input"] > 0, entry
    assert result["usage"]["input_tokens"] == entry["input"]


def test_stream_json_ends_with_one_result_line(cli):
    code, lines, _ = terminated(cli, signal.SIGINT, "--output-format", "stream-json")
    objects = [json.loads(line) for line in lines]
    assert code == 130 and objects[0]["type"] == "init" and objects[-1]["type"] == "result"
    assert objects[-1]["subtype"] == "error_interrupted" and objects[-1]["session_id"] == objects[0]["session_id"]
    assert [o for o in objects if o["type"] == "result"] == [objects[-1]]


def test_ctrl_c_while_starting_says_it_too(cli):
    code, err = stopped_while_starting(cli, signal.SIGINT, "remember PELICAN", "--model", "m", "--base-url",
                                       "http://127.0.0.1:9/v1")
    assert code == 130 and err == LINE
