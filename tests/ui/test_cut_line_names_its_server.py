"""The line said when a server is found cutting prompts to its window without a word names that
server, and Ollama's setting only for an address that is Ollama's: it said "(an Ollama server
does, at its context length: OLLAMA_CONTEXT_LENGTH)" of a vLLM server and of DeepSeek's API alike."""

from __future__ import annotations

from types import SimpleNamespace

from compact_agent.agent.run.stream_events import WindowChoice, window_choice, window_line
from compact_agent.context.plumbing.events import Event

CUT = Event("window", "learned", 9_000, 5_000, trigger="cut", detail={"given": 64_000})


def test_the_cut_line_names_the_server_and_ollama_only_for_ollama() -> None:
    vllm = window_line(CUT, WindowChoice("local", given=True, server="http://10.0.0.5:8000/v1"))
    assert vllm.startswith("the server at http://10.0.0.5:8000/v1 cut requests of about 9,000 tokens to 5,000 "
                           "without saying so: its window is 5,000"), vllm
    assert "Ollama" not in vllm and "OLLAMA" not in vllm
    ollama = window_line(CUT, WindowChoice("qwen3", given=True, server="http://localhost:11434/v1"))
    assert "without saying so (an Ollama server does, at its context length: OLLAMA_CONTEXT_LENGTH)" in ollama
    deepseek = window_line(CUT, WindowChoice("deepseek-chat", server="deepseek"))
    assert deepseek.startswith("DeepSeek's API cut requests") and "Ollama" not in deepseek, deepseek
    assert window_line(CUT, WindowChoice(given=True)).startswith("the server cut requests")  # none known


def test_a_session_s_server_is_its_address_or_its_provider() -> None:
    def session(base_url: str | None, provider: str) -> SimpleNamespace:
        return SimpleNamespace(opts=SimpleNamespace(context_window=None, base_url=base_url, config=None), window_minimum=4_096,
                               settings=SimpleNamespace(context_window=None),
                               info=SimpleNamespace(name="m", window=32_768, provider=provider))

    assert window_choice(session("http://u:secret@host:8000/v1/", "openai")).server == "http://u:***@host:8000/v1"
    assert window_choice(session(None, "anthropic")).named() == "Anthropic's API"


def test_without_base_url_the_server_is_where_the_client_s_variable_sends(monkeypatch) -> None:
    """Without --base-url the OpenAI (or Anthropic) client sends to OPENAI_BASE_URL (ANTHROPIC_BASE_URL):
    an Ollama's address was named "OpenAI's API", and its line lost Ollama's setting."""
    def session(base_url: str | None, provider: str) -> SimpleNamespace:
        return SimpleNamespace(opts=SimpleNamespace(context_window=None, base_url=base_url, config=None), window_minimum=4_096,
                               settings=SimpleNamespace(context_window=None),
                               info=SimpleNamespace(name="qwen3:8b", window=32_768, provider=provider))

    monkeypatch.setenv("OPENAI_BASE_URL", "http://localhost:11434/v1/")
    monkeypatch.setenv("ANTHROPIC_BASE_URL", "http://u:secret@proxy:8080")
    line = window_line(CUT, window_choice(session(None, "openai")))
    assert line.startswith("the server at http://localhost:11434/v1 cut requests of about 9,000 tokens"), line
    assert "(an Ollama server does, at its context length: OLLAMA_CONTEXT_LENGTH)" in line
    assert window_choice(session(None, "anthropic")).named() == "the server at http://u:***@proxy:8080"
    assert window_choice(session("http://10.0.0.5:8000/v1", "openai")).server == "http://10.0.0.5:8000/v1"  # given
    assert window_choice(session(None, "deepseek")).named() == "DeepSeek's API"  # its client reads neither
    monkeypatch.delenv("OPENAI_BASE_URL")
    assert window_choice(session(None, "openai")).named() == "OpenAI's API"
