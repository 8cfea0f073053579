"""A local server that renders requests with the model's chat template (vLLM, llama.cpp with
--jinja) refuses two user messages in a row for models whose template wants user and assistant
turns to alternate (Mistral's, Gemma's). Context collapse's digest went out as a second user message
after the one it follows, so in a small window the session stopped at its first digest and could not
go on: the digest is in every later request. Refused so, the request goes again at once with adjacent
user messages joined into one, and so does every later request; a server that takes separate user
messages gets them as before."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.e2e.conftest import Cli
from tests.e2e.scripted import FileTaskAgent, make_project, task_text
from tests.fakes._wire import ROLES_MUST_ALTERNATE, message_text
from tests.fakes.openai_server import ChatRequest, FakeOpenAIServer, Reply

N = 14


def test_a_session_with_collapsed_rounds_goes_on_at_a_server_whose_roles_must_alternate(cli: Cli) -> None:
    make_project(cli.cwd, N)
    agent = FileTaskAgent(n=N)
    with FakeOpenAIServer(agent, window=8_000, model="local", alternating_roles=True) as server:
        run = cli("-p", task_text(N), "-y", "-m", "local", "--base-url", server.base_url, "--api-key", "k",
                  "--context-window", "8000")
    assert run.code == 0, run.stderr
    assert run.stdout.strip().startswith("FINAL SUM:"), run.stdout
    assert [(status, body["message"]) for _, status, body in server.rejected] == [(400, ROLES_MUST_ALTERNATE)]
    refused = server.rejected[0][0]
    again = server.requests[server.requests.index(refused) + 1]
    assert [m for m in again.messages if m["role"] != "user"] == [m for m in refused.messages if m["role"] != "user"]
    assert "\n\n".join(message_text(m) for m in refused.messages if m["role"] == "user") == "\n\n".join(
        message_text(m) for m in again.messages if m["role"] == "user")  # the same words, in the same order
    later = server.requests[server.requests.index(refused) + 1:]
    digests = [r for r in later if "Collapsed history digest" in "".join(message_text(m) for m in r.messages)]
    assert digests, "no request carried a digest: the case is not exercised"
    for r in later:  # every request after the refusal, joined
        roles = [m.get("role") for m in r.messages]
        assert all(not (a == b == "user") for a, b in zip(roles, roles[1:], strict=False)), roles


def test_a_server_that_takes_separate_user_messages_gets_them_as_before(cli: Cli) -> None:
    make_project(cli.cwd, N)
    with FakeOpenAIServer(FileTaskAgent(n=N), window=8_000, model="local") as server:
        run = cli("-p", task_text(N), "-y", "-m", "local", "--base-url", server.base_url, "--api-key", "k",
                  "--context-window", "8000")
    assert run.code == 0 and not server.rejected, run.stderr
    assert any([m["role"] for m in r.messages][1:3] == ["user", "user"] for r in server.requests)


async def test_a_request_that_is_not_streamed_learns_it_too() -> None:
    from pydantic_ai.messages import ModelRequest, UserPromptPart
    from pydantic_ai.models import ModelRequestParameters

    from compact_agent.models import build_model

    with FakeOpenAIServer(lambda req: Reply.text(message_text(req.messages[-1])), model="local",
                          alternating_roles=True) as server:
        model = build_model("local", base_url=server.base_url, api_key="k")
        asked = [ModelRequest(parts=[UserPromptPart("the task"), UserPromptPart("a digest")])]
        first = await model.request(asked, None, ModelRequestParameters())
        second = await model.request(asked, None, ModelRequestParameters())
    assert [p.content for r in (first, second) for p in r.parts] == ["the task\n\na digest"] * 2
    assert len(server.rejected) == 1 and len(server.requests) == 3  # refused once, then joined from the start


async def test_llama_cpps_refusal_as_a_server_error_is_learned_too_and_a_request_with_nothing_to_join_is_not_sent_again(
) -> None:
    """llama.cpp's server with --jinja (and Ollama) answers a template's exception as HTTP 500, in
    the template's words; a request whose user messages are apart already is not sent again joined."""
    from pydantic_ai.exceptions import ModelHTTPError
    from pydantic_ai.messages import ModelRequest, UserPromptPart
    from pydantic_ai.models import ModelRequestParameters

    from compact_agent.models import build_model

    def template(req):
        roles = [m["role"] for m in req.messages]
        if any(a == b == "user" for a, b in zip(roles, roles[1:], strict=False)) or "refuse me" in message_text(
                req.messages[-1]):
            return Reply.error(500, {"error": {"code": 500, "type": "server_error", "message": (
                "Conversation roles must alternate user/assistant/user/assistant/...")}})
        return Reply.text(message_text(req.messages[-1]))

    with FakeOpenAIServer(template, model="local") as server:
        model = build_model("local", base_url=server.base_url, api_key="k", max_retries=0)
        asked = [ModelRequest(parts=[UserPromptPart("the task"), UserPromptPart("a digest")])]
        answered = await model.request(asked, None, ModelRequestParameters())
        assert [p.content for p in answered.parts] == ["the task\n\na digest"]
        assert len(server.requests) == 2
        fresh = build_model("local", base_url=server.base_url, api_key="k", max_retries=0)
        with pytest.raises(ModelHTTPError):
            await fresh.request([ModelRequest(parts=[UserPromptPart("refuse me")])], None, ModelRequestParameters())
        assert len(server.requests) == 3  # refused once, not sent again: joining changes nothing in it


async def test_two_requests_out_at_once_each_decide_for_themselves() -> None:
    """A request with user messages to join is refused while another, with none, is prepared: the
    refused one is still sent again joined (the decision is each request's, not the model's last)."""
    import asyncio
    import threading

    from pydantic_ai.messages import ModelRequest, UserPromptPart
    from pydantic_ai.models import ModelRequestParameters

    from compact_agent.models import build_model

    second_asked = threading.Event()

    def template(req):
        roles = [m["role"] for m in req.messages]
        if any(a == b == "user" for a, b in zip(roles, roles[1:], strict=False)):
            second_asked.wait(10)  # refused only once the other request has been prepared and sent
            return Reply.error(400, {"object": "error", "code": 400, "message": ROLES_MUST_ALTERNATE})
        if "other" in message_text(req.messages[-1]):
            second_asked.set()
        return Reply.text(message_text(req.messages[-1]))

    with FakeOpenAIServer(template, model="local") as server:
        model = build_model("local", base_url=server.base_url, api_key="k", max_retries=0)
        joined = model.request([ModelRequest(parts=[UserPromptPart("task"), UserPromptPart("digest")])], None,
                               ModelRequestParameters())
        other = model.request([ModelRequest(parts=[UserPromptPart("the other")])], None, ModelRequestParameters())
        first, second = await asyncio.gather(joined, other)
    assert [p.content for p in first.parts] == ["task\n\ndigest"]
    assert [p.content for p in second.parts] == ["the other"]


async def test_llama_cpps_refusal_is_sent_once_not_retried_then_sent_joined() -> None:
    """A template's refusal is the same every time: llama.cpp's 500 in its words is not sent twice
    more with the SDK's backoff (its default two retries) before it is learned from, streamed or not."""
    from pydantic_ai.messages import ModelMessage, ModelRequest, TextPart, UserPromptPart
    from pydantic_ai.models import ModelRequestParameters

    from compact_agent.models import build_model

    asked: list[ModelMessage] = [ModelRequest(parts=[UserPromptPart("the task"), UserPromptPart("a digest")])]
    with FakeOpenAIServer(lambda req: Reply.text(message_text(req.messages[-1])), model="local",
                          alternating_roles="llama.cpp") as server:
        answered = await build_model("local", base_url=server.base_url, api_key="k").request(
            asked, None, ModelRequestParameters())
        assert [p.content for p in answered.parts if isinstance(p, TextPart)] == ["the task\n\na digest"]
        assert [status for _, status, _ in server.rejected] == [500] and len(server.requests) == 2
        async with build_model("local", base_url=server.base_url, api_key="k").request_stream(
                asked, None, ModelRequestParameters()) as streamed:
            assert [_ async for _ in streamed]  # the streamed reply read to its end
        assert [p.content for p in streamed.get().parts if isinstance(p, TextPart)] == ["the task\n\na digest"]
        assert [status for _, status, _ in server.rejected] == [500, 500] and len(server.requests) == 4
        assert [r.stream for r in server.requests] == [False, False, True, True]


async def test_a_server_error_in_other_words_is_still_retried() -> None:
    from pydantic_ai.exceptions import ModelHTTPError
    from pydantic_ai.messages import ModelMessage, ModelRequest, UserPromptPart
    from pydantic_ai.models import ModelRequestParameters

    from compact_agent.models import build_model

    def failing(req: ChatRequest) -> Reply:
        return Reply.error(500, {"error": {"code": 500, "type": "server_error", "message": (
            "the roles of this request could not be loaded")}}, {"retry-after-ms": "1"})

    with FakeOpenAIServer(failing, model="local") as server:
        model = build_model("local", base_url=server.base_url, api_key="k")
        with pytest.raises(ModelHTTPError) as raised:
            asked: list[ModelMessage] = [ModelRequest(parts=[UserPromptPart("the task")])]
            await model.request(asked, None, ModelRequestParameters())
    assert raised.value.status_code == 500 and "could not be loaded" in str(raised.value.body)
    assert len(server.requests) == 3  # sent, then its two retries, as before


async def test_a_later_run_to_the_same_server_and_model_joins_from_its_first_request(tmp_path: Path) -> None:
    """What one run learned is kept per endpoint and model (agent/run/server_turns.py): the next run's
    model, wired as a session wires it, sends its first request joined, not refused again."""
    from types import SimpleNamespace
    from typing import Any

    from pydantic_ai.messages import ModelMessage, ModelRequest, TextPart, UserPromptPart
    from pydantic_ai.models import ModelRequestParameters

    from compact_agent.agent.run import server_turns
    from compact_agent.agent.run.server_keys import endpoint
    from compact_agent.models import build_model, model_info

    asked: list[ModelMessage] = [ModelRequest(parts=[UserPromptPart("the task"), UserPromptPart("a digest")])]
    with FakeOpenAIServer(lambda req: Reply.text(message_text(req.messages[-1])), model="local",
                          alternating_roles="llama.cpp") as server:
        def run(name: str) -> Any:
            opts = SimpleNamespace(model_override=None, home=tmp_path, base_url=server.base_url)
            model = build_model(name, base_url=server.base_url, api_key="k")
            server_turns.wire(model, opts, model_info(name, provider="openai"))
            return model

        for _ in range(2):
            answered = await run("local").request(asked, None, ModelRequestParameters())
            assert [p.content for p in answered.parts if isinstance(p, TextPart)] == ["the task\n\na digest"]
        assert len(server.rejected) == 1 and len(server.requests) == 3  # refused in the first run only
        assert not server_turns.joins(tmp_path, endpoint(server.base_url, "openai"), "other")
