"""Known models (window, output limit, prices incl. cache) and provider construction.

Prices are USD per million tokens as published by the providers; `cache_read` is what a
prompt-cache hit costs, `cache_write` what writing a cache entry costs (Anthropic charges extra,
DeepSeek and OpenAI do not). The cache TTL drives time-based microcompact: once it has passed, the
cached prefix is gone anyway, so clearing old tool results costs nothing extra.
"""

from __future__ import annotations

import difflib
import os
from contextvars import ContextVar
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING

from . import secrets
from .context.decisions.economics import Prices
from .deadline import deadline_client
from .words import quoted

if TYPE_CHECKING:  # the model registry is read before pydantic-ai is imported (the REPL's banner)
    from pydantic_ai.models import Model

    from .price_setting import ModelPrices


class ConfigError(RuntimeError):
    """A configuration problem with a one-line explanation for the user."""


class UsageError(ConfigError):
    """A value the user gave (a flag, a setting) that cannot work, such as a window too small for
    the tools: bad usage, exit 2, where a missing key or an unreachable endpoint is exit 1."""


@dataclass(frozen=True)
class ModelInfo:
    name: str
    provider: str  # "deepseek" | "openai" | "anthropic"
    window: int
    max_output: int
    input: float
    output: float
    cache_read: float
    cache_write: float
    cache_ttl_s: float = 3600.0
    images: bool = False  # takes images in a request (read_file of a PNG/JPEG/GIF/WEBP sends it)
    # Whether the prices above are the model's: True when given (the `prices` setting, 0 for free);
    # None: as the registry has them, known when not 0 (a model it does not know has 0s).
    prices_known: bool | None = None

    @property
    def has_prices(self) -> bool:
        """Whether its cost is known (else it is shown as unknown, not $0, and not priced)."""
        return self.prices_known if self.prices_known is not None else self.input > 0 and self.cache_read > 0

    def cost(self, input_tokens: int, cached: int, output_tokens: int, cache_write: int = 0) -> float:
        """Cost of one request; `input_tokens` includes cached and cache-write tokens."""
        miss = max(0, input_tokens - cached - cache_write)
        return (
            miss * self.input + cached * self.cache_read + cache_write * self.cache_write
            + output_tokens * self.output
        ) / 1e6


def prices_of(info: ModelInfo) -> Prices:
    """The prices the pipeline's cost decisions use. A model we know no price for (a local server)
    is marked unknown: its decisions go by thresholds and counts, where the arithmetic of prices it
    does not have would forget for nothing; the `prices` setting gives them (model_info)."""
    if not info.has_prices:
        return Prices(ttl_s=info.cache_ttl_s, known=False)
    return Prices(miss=info.input, hit=info.cache_read, output=info.output, write=info.cache_write,
                  ttl_s=info.cache_ttl_s)


REGISTRY: dict[str, ModelInfo] = {
    m.name: m
    for m in [
        ModelInfo("deepseek-chat", "deepseek", 128_000, 8_192, 0.28, 0.42, 0.028, 0.0),
        ModelInfo("deepseek-reasoner", "deepseek", 128_000, 64_000, 0.28, 0.42, 0.028, 0.0),
        # DeepSeek's chat API takes text only; Claude and GPT-4.1 / 4o take images (their vision docs).
        ModelInfo("claude-sonnet-4-5", "anthropic", 200_000, 64_000, 3.0, 15.0, 0.30, 3.75, 300.0, images=True),
        ModelInfo("claude-opus-4-6", "anthropic", 200_000, 32_000, 5.0, 25.0, 0.50, 6.25, 300.0, images=True),
        ModelInfo("claude-haiku-4-5", "anthropic", 200_000, 64_000, 1.0, 5.0, 0.10, 1.25, 300.0, images=True),
        ModelInfo("gpt-4.1", "openai", 1_047_576, 32_768, 2.0, 8.0, 0.50, 0.0, images=True),
        ModelInfo("gpt-4.1-mini", "openai", 1_047_576, 32_768, 0.40, 1.60, 0.10, 0.0, images=True),
        ModelInfo("gpt-4o", "openai", 128_000, 16_384, 2.50, 10.0, 1.25, 0.0, images=True),
        ModelInfo("gpt-4o-mini", "openai", 128_000, 16_384, 0.15, 0.60, 0.075, 0.0, images=True),
    ]
}

PRICING = {"deepseek": REGISTRY["deepseek-chat"], "anthropic": REGISTRY["claude-sonnet-4-5"]}

# An unknown model on an OpenAI-compatible server (vLLM, Ollama, llama.cpp): assume a modest
# window so compaction starts early rather than never; --context-window sets the real one.
UNKNOWN_WINDOW = 32_768


def model_info(name: str, *, provider: str | None = None, window: int | None = None,
               prices: ModelPrices | None = None, cache_ttl_minutes: float | None = None) -> ModelInfo:
    """The registry's entry for `name` (or one assumed for a model it does not know), with the
    window, the prices and the prompt cache's lifetime given instead of its own."""
    info = REGISTRY.get(name)
    if info is None:
        prov = provider or ("anthropic" if name.startswith("claude") else "openai")
        info = ModelInfo(name, prov, UNKNOWN_WINDOW, 4_096, 0.0, 0.0, 0.0, 0.0)
    if provider and provider != info.provider:
        info = replace(info, provider=provider)
    if window:
        info = replace(info, window=window, max_output=min(info.max_output, max(256, window // 4)))
    if prices is not None:
        info = replace(info, input=prices.input, cache_read=prices.cached_input, output=prices.output,
                       cache_write=prices.cache_write, prices_known=True)
    if cache_ttl_minutes:
        info = replace(info, cache_ttl_s=60.0 * cache_ttl_minutes)
    return info


def takes_images(info: ModelInfo, setting: bool | None) -> bool:
    """Whether requests may carry images: the `images` setting when given, else the registry's flag
    (a model we do not know is taken as text-only: an image it cannot take fails the request)."""
    return info.images if setting is None else setting


def routing_note(name: str, base_url: str | None, window: int | None,
                 window_flag: str = "--context-window") -> str | None:
    """What we assumed about a model we do not know, in one line (None for a known model);
    `window_flag` is how the real window is given where the note is said (`/model NAME --window N`).

    Routing: with --base-url every model goes to that OpenAI-compatible server; otherwise a name
    starting with `claude` goes to Anthropic, `deepseek` to DeepSeek, anything else to OpenAI, each
    at the address its client reads from OPENAI_BASE_URL (ANTHROPIC_BASE_URL) where that is set (a
    local server's, said as one given with --base-url is). A typo of a known name gets the known name
    suggested.
    """
    if name in REGISTRY:
        return None
    from .agent.run.server_keys import SDK_BASE_URL, sent_to

    close = difflib.get_close_matches(name, list(REGISTRY), n=1, cutoff=0.75)
    hint = f"; did you mean {close[0]}?" if close else ""
    size = "" if window else (f" with an assumed {UNKNOWN_WINDOW:,}-token window (set the real one with "
                              f"{window_flag})")
    provider = provider_for(name, base_url)
    if (url := sent_to(base_url, provider)) is not None:  # a local server's own model: the usual case, worth
        whence = "" if base_url else f" ({SDK_BASE_URL[provider]})"  # a line only for a likely typo
        return f"model {quoted(name)} goes to {secrets.hide_url_passwords(url)}{whence}{size}{hint}" if hint else None
    where = {"anthropic": "Anthropic (the name starts with claude)",
             "deepseek": "DeepSeek (the name starts with deepseek)",
             "openai": "OpenAI (use --base-url for another OpenAI-compatible server)"}[provider]
    return f"model {quoted(name)} is not a known model; it goes to {where}{size}{hint}"


def provider_for(name: str, base_url: str | None) -> str:
    if base_url:
        return "openai"
    if name.startswith("claude"):
        return "anthropic"
    if name.startswith("deepseek"):
        return "deepseek"
    return "openai"


DEEPSEEK_BASE_URL = "https://api.deepseek.com"

#: The variable each provider's key is read from when --api-key is not given (with --base-url the
#: provider is "openai", whatever the model's name).
KEY_VARIABLE = {"anthropic": "ANTHROPIC_API_KEY", "deepseek": "DEEPSEEK_API_KEY", "openai": "OPENAI_API_KEY"}

#: What the requests to a --base-url server carry when no key was given: the SDK wants one, and a
#: local server without keys takes any. A server that wants a key refuses it, and the error line
#: says no key was sent (error_causes.sent_no_key), not that the key was wrong.
NO_KEY = "none"


def api_key_for(name: str, base_url: str | None, api_key: str | None) -> str:
    """The key a model's requests carry: `api_key`, else the provider's variable; ConfigError when
    there is none. Cheap (no provider SDK is imported), so a missing key stops the REPL before its
    prompt is up rather than after."""
    provider = provider_for(name, base_url)
    variable = KEY_VARIABLE[provider]
    key = api_key or os.environ.get(variable) or (NO_KEY if base_url else None)
    if not key:
        other = ", or --base-url for another server" if provider == "deepseek" else ""
        raise ConfigError(f"{variable} is not set (or pass --api-key{other}){_base_url_without_key(provider)}"
                          f"{_key_set_elsewhere(provider)}")
    if (held := unsendable(key)) is not None:  # the client's own words quoted the header, key and all
        hint = " (a key file saved with Windows line ends?)" if held == "a line break" else ""
        raise ConfigError(f"{'--api-key' if api_key else variable} holds {held}, which the request header the key "
                          f"goes in cannot carry{hint}: give the key alone")
    return key


def _base_url_without_key(provider: str) -> str:
    """`; OPENAI_BASE_URL is set: for a server there that needs no key, pass --base-url URL
    instead`: the address read from the variable wants OpenAI's key, as OpenAI's own does, while the
    same address given with --base-url needs none (NO_KEY). A user who pointed the agent at a local
    server through the variable was told only that OPENAI_API_KEY was not set."""
    url = os.environ.get("OPENAI_BASE_URL", "").strip() if provider == "openai" else ""
    if not url:
        return ""
    return (f"; OPENAI_BASE_URL is set: for a server there that needs no key, pass --base-url "
            f"{secrets.shown_url(url)} instead")


def _key_set_elsewhere(provider: str) -> str:
    """Where another provider's key is set, how to use it: `; ANTHROPIC_API_KEY is set: -m
    claude-sonnet-4-5 uses it` (the first model the registry lists for that provider); "" else.
    A user whose only key is Anthropic's was told DeepSeek's was missing, and nothing more."""
    for other, variable in KEY_VARIABLE.items():
        if other != provider and os.environ.get(variable):
            model = next(m.name for m in REGISTRY.values() if m.provider == other)
            return f"; {variable} is set: -m {model} uses it"
    return ""


def unsendable(key: str) -> str | None:
    """What of `key` an HTTP header cannot carry, in words: a line break (`$(cat key.txt)` of a file
    with Windows line ends keeps its carriage return), another control character, a letter that is
    not ASCII, a space at its end; None for a key that can be sent."""
    if any(c in "\r\n" for c in key):
        return "a line break"
    if any(ord(c) < 0x20 or ord(c) == 0x7F for c in key):
        return "a control character"
    if not key.isascii():
        return "a character that is not ASCII"
    return "a space at its end" if key != key.rstrip() else None


def preload(name: str, base_url: str | None) -> None:
    """Import what `build_model` will need for this model (the slow part of building it), so a
    caller can do it in a worker thread while the user types."""
    if provider_for(name, base_url) == "anthropic":
        import pydantic_ai.models.anthropic  # noqa: F401
        import pydantic_ai.providers.anthropic  # noqa: F401
    else:
        import pydantic_ai.models.openai  # noqa: F401
        import pydantic_ai.providers.deepseek  # noqa: F401
        import pydantic_ai.providers.openai  # noqa: F401


def build_model(name: str, *, base_url: str | None = None, api_key: str | None = None,
                max_retries: int = 2, timeout_s: float = 600.0) -> Model:
    """Construct the pydantic-ai model; raises ConfigError with a one-line message on bad setup.

    `timeout_s` is a deadline for each attempt (see deadline.py), not only a per-read timeout. A
    model the registry knows has its window there, not pydantic-ai's guess from its price list
    (deepseek-chat: 64,000, where it takes 128K): the library keeps a summary or notes model's
    requests within the window the model says (`context_window`), and read that one.
    """
    secrets.register(api_key)  # whichever key is used, nothing we write may contain it
    secrets.register_url(base_url)  # and no password written into the endpoint's URL
    secrets.register_environment()
    provider = provider_for(name, base_url)
    try:
        key = api_key_for(name, base_url, api_key)
    except ConfigError as missing:
        if not KEY_WHEN_SENT.get() or api_key or os.environ.get(KEY_VARIABLE[provider]):  # one that cannot be sent: now
            raise
        return _key_when_sent(_model(name, provider, base_url, NO_KEY, max_retries, timeout_s), str(missing))
    return _model(name, provider, base_url, key, max_retries, timeout_s)


#: Set by print mode for a built-in slash command (`-c -p /cost`): a model whose key is not set is
#: built all the same, and says the key is missing when a request is about to be made, so that the
#: commands that send none (`/cost`, `/history`, `/status`) run without it, as `sessions` does.
KEY_WHEN_SENT: ContextVar[bool] = ContextVar("compact_agent_key_when_sent", default=False)


def _key_when_sent(model: Model, missing: str) -> Model:
    """`model`, whose every request (and count of tokens) raises ConfigError(`missing`) before
    anything is sent: it was built without a key."""
    from collections.abc import AsyncIterator
    from contextlib import asynccontextmanager
    from typing import Any

    from pydantic_ai.models import StreamedResponse
    from pydantic_ai.models.wrapper import WrapperModel

    class KeyWhenSent(WrapperModel):
        async def request(self, *args: Any, **kwargs: Any) -> Any:
            raise ConfigError(missing)

        @asynccontextmanager
        async def request_stream(self, *args: Any, **kwargs: Any) -> AsyncIterator[StreamedResponse]:
            raise ConfigError(missing)
            yield  # an async generator, as the context manager wants

        async def count_tokens(self, *args: Any, **kwargs: Any) -> Any:
            raise ConfigError(missing)

    return KeyWhenSent(model)


def _model(name: str, provider: str, base_url: str | None, key: str, max_retries: int, timeout_s: float) -> Model:
    """The provider's model for `name`, its requests carrying `key` (`build_model`)."""
    from pydantic_ai.profiles import ModelProfile

    profile = ModelProfile(context_window=REGISTRY[name].window) if name in REGISTRY else None
    if provider == "anthropic":
        from anthropic import AsyncAnthropic, DefaultAsyncHttpxClient
        from pydantic_ai.models.anthropic import AnthropicModel
        from pydantic_ai.providers.anthropic import AnthropicProvider

        from .agent.run.request_settings import answer_settings

        anthropic_client = AsyncAnthropic(api_key=key, max_retries=max_retries, timeout=timeout_s,
                                          http_client=deadline_client(timeout_s, DefaultAsyncHttpxClient))
        # A model that holds max_tokens against its window gets it set, where the pipeline counts it.
        return AnthropicModel(name, provider=AnthropicProvider(anthropic_client=anthropic_client), profile=profile,
                              settings=answer_settings(name))

    from openai import AsyncOpenAI, DefaultAsyncHttpxClient
    from pydantic_ai.models.openai import OpenAIChatModel

    if provider == "deepseek":
        from pydantic_ai.providers.deepseek import DeepSeekProvider

        client = AsyncOpenAI(base_url=DEEPSEEK_BASE_URL, api_key=key, max_retries=max_retries, timeout=timeout_s,
                         http_client=deadline_client(timeout_s, DefaultAsyncHttpxClient))
        return OpenAIChatModel(name, provider=DeepSeekProvider(openai_client=client), profile=profile)

    from pydantic_ai.providers.openai import OpenAIProvider

    from .context.decisions.thinking_out import named_to_ask_reasoning_back
    from .user_turns import AlternatingChatModel, FinalRefusals  # a chat template may want turns to alternate

    client = AsyncOpenAI(base_url=base_url, api_key=key, max_retries=max_retries, timeout=timeout_s,
                         http_client=deadline_client(timeout_s, DefaultAsyncHttpxClient, FinalRefusals))
    if "/" not in name and named_to_ask_reasoning_back(name):
        # DeepSeek's thinking models by DeepSeek's own names elsewhere (a proxy of its API) are sent back
        # their reasoning as DeepSeek's provider sends it: in `reasoning_content` (not as <think> text, as
        # another provider's thinking went), and that field empty on every tool-call message of a request,
        # the agent's own (an @-mention's read, the files restored after a compaction) and those whose
        # reasoning is left out included; thinking by default, so from the first request. A server that
        # refuses a tool call without it (DeepSeek's thinking mode, 400) took those without. A router's
        # `deepseek/...` names its own field, learned from its answers as before.
        from pydantic_ai.profiles.openai import OpenAIModelProfile

        asked = OpenAIModelProfile(openai_chat_thinking_field="reasoning_content",
                                   openai_chat_send_back_thinking_parts="field",
                                   openai_chat_thinking_requires_field_on_tool_calls=True,
                                   thinking_enabled_by_default=True)
        if profile is not None and "context_window" in profile:
            asked["context_window"] = profile["context_window"]
        profile = asked
    return AlternatingChatModel(name, provider=OpenAIProvider(openai_client=client), profile=profile)
