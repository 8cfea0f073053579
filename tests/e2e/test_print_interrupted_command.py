"""A `-p` run stopped by Ctrl-C (SIGINT) while its bash tool runs a command keeps the model's answer
with the tool call, and a result for it saying the user stopped it, as a SIGTERM keeps it
(test_print_terminated_command.py). The turn went back to what was saved before its request: the
answer was lost, `-c` warned that the message "got no answer before the last run ended", and the
next request went on as if the model had never called a tool."""

from __future__ import annotations

import signal

from tests.fakes.openai_server import FakeOpenAIServer

from .test_print_interrupted import LINE
from .test_print_prompt_saved_early import fake
from .test_print_terminated_command import answer, signalled_once_running


def test_ctrl_c_during_a_command_kills_it_and_keeps_the_call(cli):
    with FakeOpenAIServer(answer) as server:
        code, err = signalled_once_running(cli, signal.SIGINT, "-p", "run the command", "--yes", *fake(server))
        assert code == 130 and err.decode() == LINE
        again = cli("-c", "-p", "go on", *fake(server))
    assert again.code == 0, again.stderr
    assert "got no answer" not in again.stderr and "warning" not in again.stderr, again.stderr
    assert "the last turn was stopped by you while the model's tool calls ran: bash did not finish (its command " \
        "was killed with the processes it started), as their saved results say; your next " \
        "message goes on from there" in again.stderr
    sent = server.requests[-1].messages
    [call] = [c for m in sent for c in m.get("tool_calls") or []]
    [result] = [m for m in sent if m["role"] == "tool"]
    assert call["function"]["name"] == "bash" and result["tool_call_id"] == call["id"]
    assert result["content"] == "[stopped by the user before this call finished: its command " \
        "was killed with the processes it started]"
    assert not server.rejected and len(server.requests) == 2
