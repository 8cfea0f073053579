"""`-p --verbose` and stream-json show a tool call whose arguments are not JSON as the model wrote
them: the line in our words, the object with `args_raw` beside empty `args` (it had pydantic-ai's
`{"INVALID_JSON": "{not json"}` as the call's arguments)."""

from __future__ import annotations

import json

from tests.fakes.openai_server import FakeOpenAIServer, Reply


def answers(req) -> Reply:
    done = any(m.get("role") == "tool" for m in req.messages)
    return Reply.text("DONE") if done else Reply.tools([("read_file", "{not json")])


def test_verbose_and_stream_json_show_the_arguments_as_written(cli):
    with FakeOpenAIServer(answers) as server:
        flags = ("--model", "fake-model", "--base-url", server.base_url)
        verbose = cli("-p", "go", *flags, "--verbose")
        stream = cli("-p", "go", *flags, "--output-format", "stream-json")
    assert verbose.code == 0 and stream.code == 0, verbose.stderr + stream.stderr
    assert "● read_file(<arguments that are not JSON: {not json>)\n" in verbose.stderr, verbose.stderr
    calls = [e for e in map(json.loads, stream.stdout.splitlines()) if e["type"] == "tool_call"]
    assert [(c["args"], c["args_raw"]) for c in calls] == [({}, "{not json")]
    assert "INVALID_JSON" not in verbose.stderr + stream.stdout
