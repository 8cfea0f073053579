"""The fake server as vLLM, llama.cpp's server and Ollama: where each says its window, and how llama.cpp's refuses
a prompt (on the prompt alone, at its window and over it: tools/server/server-context.cpp, `n_tokens() >= n_ctx`)."""

from __future__ import annotations

import json
import urllib.error
import urllib.request
from typing import Any

from tests.fakes import ChatRequest, FakeOpenAIServer, Reply, count_tokens


def hello(req: ChatRequest) -> Reply:
    return Reply.text("hello")


def send(server: FakeOpenAIServer, path: str, payload: Any = None) -> tuple[int, Any]:
    """GET `path` under the server's root (POST `payload` as JSON where given): (status, the JSON answered)."""
    root = server.base_url.removesuffix("/v1")
    data = None if payload is None else json.dumps(payload).encode()
    request = urllib.request.Request(root + path, data=data, headers={"authorization": "Bearer k",
                                                                      "content-type": "application/json"})
    try:
        with urllib.request.urlopen(request, timeout=5) as response:
            return response.status, json.load(response)
    except urllib.error.HTTPError as error:
        return error.code, json.loads(error.read() or b"null")


def chat(text: str, max_tokens: int | None = None) -> dict[str, Any]:
    extra = {} if max_tokens is None else {"max_tokens": max_tokens}
    return {"model": "local", "messages": [{"role": "user", "content": text}], **extra}


def test_llama_cpp_refuses_on_the_prompt_alone_from_its_window_up() -> None:
    fits = "x" * 4 * 95  # 95 tokens and the message's 4: one under the window
    with FakeOpenAIServer(hello, window=100, model="local", overflow="llama.cpp") as server:
        assert count_tokens(chat(fits)) == 99
        assert send(server, "/v1/chat/completions", chat(fits, max_tokens=4_000))[0] == 200  # the room asked: no matter
        status, said = send(server, "/v1/chat/completions", chat(fits + "xxxx"))  # 100 tokens: the window, refused
    assert status == 400 and said["error"]["type"] == "exceed_context_size_error", said
    assert said["error"]["n_prompt_tokens"] == 100 and said["error"]["n_ctx"] == 100


def test_other_servers_count_the_room_asked_and_take_a_prompt_of_their_window() -> None:
    with FakeOpenAIServer(hello, window=100, model="local", overflow="vllm") as server:
        whole = "x" * 4 * 96  # 100 tokens: the window, taken
        assert send(server, "/v1/chat/completions", chat(whole))[0] == 200
        assert send(server, "/v1/chat/completions", chat("hi", max_tokens=98))[0] == 400


def test_vllm_lists_each_model_with_its_max_model_len() -> None:
    with FakeOpenAIServer(hello, window=8_192, model="local", serves=["other"], reports="vllm") as server:
        status, listed = send(server, "/v1/models")
        assert send(server, "/props")[0] == 404 and send(server, "/api/show", {"model": "local"})[0] == 404
    assert status == 200 and [(m["id"], m["max_model_len"], m["owned_by"]) for m in listed["data"]] == [
        ("local", 8_192, "vllm"), ("other", 8_192, "vllm")]


def test_llama_cpp_says_its_slot_context_at_props_and_its_trained_one_in_its_list() -> None:
    with FakeOpenAIServer(hello, window=8_192, model="local", reports="llama.cpp", trained=32_768) as server:
        status, props = send(server, "/props")
        listed = send(server, "/v1/models")[1]["data"]
    assert status == 200 and props["default_generation_settings"]["n_ctx"] == 8_192 and props["total_slots"] == 1
    assert "n_ctx" not in props and listed[0]["meta"]["n_ctx_train"] == 32_768 and "max_model_len" not in listed[0]


def test_ollama_shows_num_ctx_where_the_modelfile_sets_it_and_ps_the_context_loaded() -> None:
    with FakeOpenAIServer(hello, window=6_000, model="qwen:7b", reports="ollama", trained=32_768) as server:
        status, shown = send(server, "/api/show", {"model": "qwen:7b"})
        missing = send(server, "/api/show", {"model": "nope"})
        before = send(server, "/api/ps")[1]["models"]
        send(server, "/v1/chat/completions", {**chat("hi"), "model": "qwen:7b"})  # loads it
        after = send(server, "/api/ps")[1]["models"]
    assert status == 200 and "num_ctx                        6000" in shown["parameters"].splitlines()
    assert shown["model_info"]["general.architecture"] == "qwen2" and shown["model_info"]["qwen2.context_length"] == 32_768
    assert missing == (404, {"error": "model 'nope' not found"})
    assert before == [] and [(m["model"], m["context_length"]) for m in after] == [("qwen:7b", 6_000)]


def test_ollama_without_num_ctx_in_its_modelfile_shows_none() -> None:
    with FakeOpenAIServer(hello, window=4_096, model="qwen:7b", reports="ollama", num_ctx_set=False) as server:
        shown = send(server, "/api/show", {"name": "qwen:7b"})[1]
    assert "num_ctx" not in shown["parameters"] and "stop" in shown["parameters"]
