"""An HTTP error whose body holds no message of the provider's (a list, a nested table, a page, a
FastAPI server's 422) is said as the server wrote it, never as Python writes it: the line was the
SDK's `status_code: 400, model_name: fake-model, body: ['a', 'b']`."""

from __future__ import annotations

import re
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st
from pydantic_ai.exceptions import ModelHTTPError

from compact_agent.error_text import describe_error
from tests.fakes.anthropic_server import AnthropicReply, FakeAnthropicServer
from tests.fakes.openai_server import FakeOpenAIServer, Fault, Reply

#: What Python's repr of a body looks like, and the SDK's own frame of it.
PYTHON = re.compile(r"\{'|\['|'\]|'\}|\bNone\b|\bTrue\b|\bFalse\b|status_code:|model_name:")

json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.text(alphabet="abc xyz", max_size=8),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.sampled_from(["error", "message", "detail", "code",
                                                                                  "x"]), inner, max_size=3),
    max_leaves=8,
)


@settings(max_examples=300, deadline=None)
@given(status=st.sampled_from([400, 404, 422, 429, 500, 502]), body=json_values)
def test_any_body_is_one_line_without_python(status: int, body: Any) -> None:
    line = describe_error(ModelHTTPError(status, "fake-model", body))
    assert "\n" not in line and not PYTHON.search(line), line


def test_a_fastapi_422_names_each_field_and_what_is_wrong() -> None:
    body = {"detail": [{"loc": ["body", "messages"], "msg": "field required", "type": "value_error.missing"},
                       {"loc": ["body", "model"], "msg": "str type expected", "type": "type_error.str"}]}
    line = describe_error(ModelHTTPError(422, "m", body))
    assert "HTTP 422: body.messages: field required; body.model: str type expected" in line, line


def test_over_the_wire(cli) -> None:
    with FakeOpenAIServer(lambda req: Reply.text("ok"),
                          faults=lambda req, attempt: Fault.http(400, {"error": ["a", "b"]})) as server:
        res = cli("-p", "hi", "--model", "fake-model", "--base-url", server.base_url, "--api-key", "k")
    assert res.code == 1 and res.stdout == ""
    [line] = res.stderr.splitlines()
    assert 'HTTP 400: ["a", "b"]' in line and not PYTHON.search(line), line


def test_an_error_event_in_a_stream_whose_body_is_no_api_error(cli) -> None:
    """Anthropic's SDK makes an error event's data its message: the line said it as Python writes
    it, `{'type': 'error', 'error': ['x']}`."""
    def weird(data: dict[str, Any]) -> object:
        return {"type": "error", "error": ["x"]} if data.get("type") == "message_start" else data

    with FakeAnthropicServer(lambda req: AnthropicReply("fine"), reshaped=weird) as server:
        res = cli("-p", "hi", "--model", "claude-sonnet-4-5",
                  env={"ANTHROPIC_BASE_URL": server.base_url, "ANTHROPIC_API_KEY": "sk-ant-test"})
    assert res.code == 1 and res.stdout == ""
    [line] = res.stderr.splitlines()
    # JSON as the SDK kept it: its own text (an SDK that keeps the raw event) or a table written as JSON
    assert '{"type":"error","error":["x"]}' in line.replace(" ", "") and not PYTHON.search(line), line
