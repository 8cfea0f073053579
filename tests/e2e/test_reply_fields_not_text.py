"""A server that names its model, or its reply, with a number or an object (a proxy, a local server):
the answer was printed, then saved as a line pydantic would not write as its type says, which the
next `-c` set aside as unreadable: the conversation lost the answer, and the run said pydantic-ai's
failure to price it with a Python exception's name. Now the names are kept as text, the answer goes
with the next request, and nothing is said of it."""

from __future__ import annotations

import pytest

from tests.fakes.openai_server import FakeOpenAIServer, Fault, Reply, message_text

from .test_print_commands import fake


@pytest.mark.parametrize("model", [5, {"name": "m"}, ["a", "b"]], ids=["number", "object", "list"])
def test_an_answer_whose_model_and_id_are_not_text_is_kept_and_sent_again(cli, model: object) -> None:
    def odd(chunk: dict) -> dict:
        return {**chunk, "model": model, "id": 7}

    answers = iter(["FIRST-ANSWER", "second answer"])
    with FakeOpenAIServer(lambda req: Reply.text(next(answers)), faults=lambda r, a: Fault.reshaped(odd)) as server:
        first = cli("-p", "hi", *fake(server))
        again = cli("-c", "-p", "and then?", *fake(server))
    assert first.code == 0 and first.stdout.strip() == "FIRST-ANSWER" and first.stderr == "", first.stderr
    assert again.code == 0 and again.stderr == "", again.stderr  # no line set aside, nothing unanswered
    sent = [message_text(m) for m in server.requests[-1].messages if m.get("role") == "assistant"]
    assert sent == ["FIRST-ANSWER"], sent
