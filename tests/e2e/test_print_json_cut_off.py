"""The JSON result says whether the answer stopped at the model's output limit (`cut_off`): only
stderr said it, so a script reading stdout took half an answer for a whole one. Every result object
has the field, false where no answer was cut (a run that failed, a slash command)."""

from __future__ import annotations

import json

from tests.fakes.openai_server import FakeOpenAIServer
from tests.ui.test_answer_cut_at_output_limit import cut_then_whole


def test_the_result_says_the_answer_is_cut(cli):
    with FakeOpenAIServer(cut_then_whole) as server:
        args = ("-p", "--model", "fake-model", "--base-url", server.base_url, "--api-key", "k")
        cut = cli(*args, "first", "--output-format", "json")
        whole = cli(*args, "second", "--output-format", "json")
        streamed = cli(*args, "first", "--output-format", "stream-json")
        command = cli(*args, "/status", "--output-format", "json")
    failed = cli("-p", "hi", "--output-format", "json")  # no key: no session
    assert cut.code == 0 and cut.json()["cut_off"] is True and cut.json()["result"] == "The fix is to change the"
    assert whole.json()["cut_off"] is False
    assert json.loads(streamed.stdout.splitlines()[-1])["cut_off"] is True
    assert command.json()["cut_off"] is False
    assert failed.code == 1 and failed.json()["cut_off"] is False
