"""A prompt over the window, in each server's words: read as an overflow, with what it says.

pydantic-ai classifies OpenAI's `context_length_exceeded` (and a few hosted APIs' words) as a
`ModelContextWindowExceededError`; llama.cpp server, vLLM's engine and LM Studio send a plain 400.
`as_overflow` reads those too, and `figures` takes the refused prompt's size and the window from
each wording; anything else stays what it was."""

from __future__ import annotations

import pytest
from pydantic_ai.exceptions import ModelAPIError, ModelContextWindowExceededError, ModelHTTPError

from compact_agent.context.compaction.compactor import Compactor
from compact_agent.context.plumbing.overflow import as_overflow, figures
from compact_agent.context.plumbing.settings import Limits
from tests.context.test_compactor import history

WORDS = [
    ("request (8625 tokens) exceeds the available context size (8000 tokens), try increasing it", 8625, 8000),
    ("The decoder prompt (length 9000) is longer than the maximum model length of 8000. Make sure that", 9000, 8000),
    ("Prompt length of 5016 is longer than the maximum model length of 4096", 5016, 4096),
    ("This model's maximum context length is 8192 tokens. However, you requested 9000 tokens (8000 in the "
     "messages, 1000 in the completion).", 8000, 8192),
    ("This model's maximum context length is 4096 tokens. However, your request has 5,000 input tokens.", 5000, 4096),
    ("prompt is too long: 210000 tokens > 200000 maximum", 210000, 200000),
    ("The input token count (1200000) exceeds the maximum number of tokens allowed (1048576).", 1200000, 1048576),
    ("Prompt contains 40000 tokens and 0 draft tokens, too large for model with 32768 maximum context length",
     40000, 32768),
    ("Trying to keep the first 9000 tokens when context the overflows. However, the model is loaded with context "
     "length of only 8192 tokens", None, 8192),
    # SGLang (tokenizer_manager.py; its scheduler, managers/utils.py), TGI (router/src/validation.rs) and TabbyAPI
    # (common/errors.py; backends/exllamav2/model.py before June 2026), as their sources write them
    ("The input (8631 tokens) is longer than the model's context length (8192 tokens).", 8631, 8192),
    ("Requested token count exceeds the model's maximum context length of 8192 tokens. You requested a total of "
     "9000 tokens: 8000 tokens from the input messages and 1000 tokens for the completion. Please reduce the "
     "number of tokens in the input messages or the completion to fit within the limit.", 8000, 8192),
    ("Input length (8200 tokens) exceeds the maximum allowed length (8191 tokens). Use a shorter input or enable "
     "--allow-auto-truncate.", 8200, 8191),
    ("Input validation error: `inputs` tokens + `max_new_tokens` must be <= 8192. Given: 8629 `inputs` tokens and "
     "0 `max_new_tokens`", 8629, 8192),
    ("Input validation error: `inputs` must have less than 4095 tokens. Given: 4100", 4100, 4095),
    ("Prompt length 8630 exceeds the available context size of 8192 tokens", 8630, 8192),
    ("Prompt length 8630 is greater than max_seq_len 8192", 8630, 8192),
]


@pytest.mark.parametrize(("text", "used", "window"), WORDS)
def test_each_servers_words_give_the_prompt_and_the_window(text: str, used: int | None, window: int) -> None:
    assert figures(text) == (used, window)


def http(status: int, message: str, **extra: object) -> ModelHTTPError:
    return ModelHTTPError(status, "local", body={"error": {"message": message, "code": status, **extra}})


@pytest.mark.parametrize(("text", "_used", "_window"), WORDS)
def test_a_plain_400_in_any_servers_words_is_an_overflow(text: str, _used: object, _window: object) -> None:
    raw = http(400, text)
    overflow = as_overflow(raw)
    assert isinstance(overflow, ModelContextWindowExceededError) and isinstance(overflow, ModelHTTPError)
    assert overflow.status_code == 400 and overflow.body == raw.body and overflow.__cause__ is raw


def test_llama_cpps_error_type_alone_is_enough() -> None:
    assert as_overflow(http(400, "too many tokens", type="exceed_context_size_error")) is not None


def test_tgis_refusal_inside_a_stream_is_an_overflow_of_the_status_it_names() -> None:
    """TGI checks a streamed request once the stream is open: an error event after the 200, which
    pydantic-ai raises with no status (router/src/infer/mod.rs, `into_openai_event`)."""
    said = "Input validation error: `inputs` tokens + `max_new_tokens` must be <= 8192. Given: 9000 `inputs` tokens"
    raw = ModelAPIError("local", said, body={"message": said, "http_status_code": 422}, in_stream=True)
    overflow = as_overflow(raw)
    assert isinstance(overflow, ModelContextWindowExceededError) and isinstance(overflow, ModelHTTPError)
    assert overflow.status_code == 422 and overflow.__cause__ is raw
    assert as_overflow(ModelAPIError("local", said)) is None  # not from a stream: not a refusal we know


def test_what_is_not_an_overflow_stays_what_it_was() -> None:
    assert as_overflow(http(400, "messages[2].content must be a string")) is None
    assert as_overflow(http(422, "Input validation error: `max_new_tokens` must be <= 2048. Given: 4000")) is None
    assert as_overflow(http(429, "maximum context length is 8192 tokens: slow down")) is None  # a rate limit
    assert as_overflow(http(500, "request (9 tokens) exceeds the available context size (8 tokens)")) is None
    assert as_overflow(ValueError("maximum context length is 8192 tokens")) is None
    already = ModelContextWindowExceededError("local", "too long")
    assert as_overflow(already) is already


async def test_a_summary_request_a_local_server_refuses_drops_the_oldest_rounds(tmp_path) -> None:
    comp = Compactor(Limits.for_window(32_000, 4_000))
    sizes: list[int] = []

    async def local_server(messages, prompt):
        sizes.append(len(messages))
        if len(sizes) < 3:
            raise http(400, "request (40000 tokens) exceeds the available context size (32000 tokens)",
                       type="exceed_context_size_error")
        return "<summary>fine summary of the remaining conversation</summary>"

    result = await comp.compact(history(20, size=100), summarize=local_server, archive=lambda: tmp_path / "a")
    assert sizes[0] > sizes[1] > sizes[2]
    assert result.event.detail["dropped_rounds"] > 0


async def test_a_summary_request_refused_for_another_reason_is_not_retried(tmp_path) -> None:
    comp = Compactor(Limits.for_window(32_000, 4_000))
    calls: list[int] = []

    async def broken(messages, prompt):
        calls.append(1)
        raise http(400, "messages[2].content must be a string")

    with pytest.raises(ModelHTTPError):
        await comp.compact(history(20, size=100), summarize=broken, archive=lambda: tmp_path / "a")
    assert calls == [1]


async def test_the_summarizer_says_a_local_servers_refusal_is_an_overflow_without_trying_again() -> None:
    """The shared-prefix summary request refused in llama.cpp's words is an overflow at once: the
    separate request (the same conversation as text) would only be refused again, and the caller
    (`summarize_fitting`) shortens only on an overflow."""
    from pydantic_ai.messages import ModelRequest, UserPromptPart
    from pydantic_ai.models.function import FunctionModel

    from compact_agent.context.compaction import summary_prompt
    from compact_agent.context.compaction.summarizer import SharedPrefixSummarizer

    calls: list[int] = []

    def refuses(messages, info):
        calls.append(1)
        raise http(400, "request (40000 tokens) exceeds the available context size (32000 tokens)")

    with pytest.raises(ModelContextWindowExceededError):
        await SharedPrefixSummarizer(FunctionModel(refuses))([ModelRequest(parts=[UserPromptPart("hi")])],
                                                             summary_prompt.compact_prompt())
    assert calls == [1]
