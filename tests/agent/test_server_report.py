"""Asking a server for its window (server_report.py), against real servers on 127.0.0.1: the key goes to the
endpoint's own origin and nowhere else (a redirect is not followed), a server that does not answer costs no more
than the wait, whatever it sends, and a provider's own API is never asked."""

from __future__ import annotations

import time

import pytest

from compact_agent.agent.run import server_report
from tests.fakes.openai_server import ChatRequest, FakeOpenAIServer, Fault, Reply

WAIT = 0.3  # the wait in these tests (2 s in use): the fake's hang is cut short by its stop()


def hello(req: ChatRequest) -> Reply:
    return Reply.text("hello")


def test_the_key_goes_to_the_endpoints_own_origin_and_a_redirect_elsewhere_is_not_followed() -> None:
    with FakeOpenAIServer(hello, model="local", reports="vllm", window=9_000) as elsewhere:
        other = elsewhere.base_url.replace("127.0.0.1", "localhost")  # another host: the same machine
        moved = Fault.http(302, {}, {"location": f"{other}/models"})
        with FakeOpenAIServer(hello, model="local", reports="llama.cpp", window=8_000, models_fault=moved) as server:
            report = server_report.ask(server.base_url, "local", "secret-key", wait=WAIT)
            asked = [(method, path, headers.get("authorization")) for method, path, headers in server.asked]
    assert report == server_report.Report(8_000, "n_ctx")  # the list moved: /props answered
    assert elsewhere.asked == []  # never asked: neither the key nor the question went there
    assert asked == [("GET", "/v1/models", "Bearer secret-key"), ("GET", "/props", "Bearer secret-key")]


def test_no_key_given_sends_none() -> None:
    with FakeOpenAIServer(hello, model="local", reports="vllm", window=8_000, require_auth=False) as server:
        assert server_report.ask(server.base_url, "local", "none", wait=WAIT) == server_report.Report(8_000, "max_model_len")
        assert [headers.get("authorization") for _, _, headers in server.asked] == [None]


@pytest.mark.parametrize("fault", [Fault.slow(60), Fault.trickle(every=0.05, seconds=60)], ids=["hangs", "trickles"])
def test_a_server_that_never_finishes_answering_costs_the_wait_and_no_more(fault: Fault) -> None:
    with FakeOpenAIServer(hello, model="local", reports="llama.cpp", models_fault=fault) as server:
        began = time.monotonic()
        report = server_report.ask(server.base_url, "local", "k", wait=WAIT)
        took = time.monotonic() - began
        asked = [path for _, path, _ in server.asked]
    assert report is None and took < WAIT + 1.0, took
    assert asked == ["/v1/models"]  # the time was up: nothing more was asked


def test_nothing_listening_is_nothing_reported_at_once() -> None:
    with FakeOpenAIServer(hello) as server:
        url = server.base_url
    began = time.monotonic()
    assert server_report.ask(url, "local", "k", wait=5.0) is None
    assert time.monotonic() - began < 2.0


def test_a_model_the_list_does_not_name_is_not_given_another_models_window() -> None:
    with FakeOpenAIServer(hello, model="other", reports="vllm", window=8_000) as server:
        assert server_report.ask(server.base_url, "local", "k", wait=WAIT) is None


def test_llama_cpp_in_router_mode_says_no_window_at_props() -> None:
    with FakeOpenAIServer(hello, model="local", reports="llama.cpp", window=8_000) as server:
        server.window = 0  # a router's /props holds a placeholder slot of 0
        assert server_report.ask(server.base_url, "local", "k", wait=WAIT) is None


@pytest.mark.parametrize(("url", "hosted"), [
    ("https://api.openai.com/v1", True), ("https://openrouter.ai/api/v1", True),
    ("https://my-resource.openai.azure.com/openai", True), ("https://api.deepseek.com", True),
    ("http://127.0.0.1:8000/v1", False), ("http://gpu-box.lan:11434/v1", False),
    ("https://notapi.openai.com.example.org/v1", False),
])
def test_a_providers_own_api_is_never_asked(url: str, hosted: bool) -> None:
    assert server_report.hosted(url) is hosted
    if hosted:
        assert server_report.ask(url, "gpt-4o", "k", wait=WAIT) is None


async def test_a_session_against_a_server_that_hangs_starts_after_the_wait_as_before(
        tmp_path, monkeypatch: pytest.MonkeyPatch) -> None:
    from compact_agent.agent.run.options import SessionOptions
    from compact_agent.agent.run.runner import AgentSession

    monkeypatch.setattr(server_report, "WAIT_S", WAIT)

    def started(server: FakeOpenAIServer, name: str) -> tuple[AgentSession, float]:
        (tmp_path / name).mkdir()
        began = time.monotonic()
        s = AgentSession(SessionOptions(cwd=tmp_path / name, model="local", base_url=server.base_url, api_key="k",
                                        home=tmp_path / "h"))
        took = time.monotonic() - began
        s.close()
        return s, took

    with FakeOpenAIServer(hello, model="local", require_auth=False) as plain:
        started(plain, "warm")  # the first session of the process imports what every later one uses
        _, baseline = started(plain, "p0")  # one that reports nothing, at once
    with FakeOpenAIServer(hello, model="local", reports="vllm", window=8_000, models_fault=Fault.slow(60)) as server:
        s, took = started(server, "p1")
    assert took < baseline + WAIT + 1.0, (took, baseline)  # the wait, no more
    assert s.info.window == 32_768 and s.reported is None and s.notices == []  # as before: nothing said


def test_an_http_endpoint_is_asked_without_loading_a_trust_store(monkeypatch: pytest.MonkeyPatch) -> None:
    """A local server on http:// never speaks TLS (every URL asked is on its origin, no redirect is
    followed): asking it loads no certificates, which took 20 ms of each start with the usual bundle."""
    import ssl

    loaded: list[object] = []
    real = ssl.SSLContext.load_verify_locations

    def counted(self: ssl.SSLContext, *args: object, **kwargs: object) -> None:
        loaded.append(args or kwargs)
        real(self, *args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(ssl.SSLContext, "load_verify_locations", counted)
    with FakeOpenAIServer(hello, model="local", reports="vllm", window=8_000) as server:
        assert server_report.ask(server.base_url, "local", "k", wait=WAIT) == server_report.Report(8_000, "max_model_len")
    assert loaded == []
    with server_report._Asker("https://models.example.invalid/v1", "k", WAIT):  # https: verified as ever
        assert len(loaded) == 1
