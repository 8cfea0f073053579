"""A model the registry knows has the registry's window, which the library keeps its side requests in.

The library sends a summary or notes model of its own requests that fit that model's window, as
pydantic-ai says it (`Model.context_window`, from the model's profile). For a model it has no
profile for, pydantic-ai guesses it from its price list, which can be older than the model:
deepseek-chat 64,000, where it takes 128K. With deepseek-reasoner writing the session and
deepseek-chat the summaries (configuration.md's example), every summary request would have been cut
to half the window. The session builds the models the registry knows with the registry's window.
"""

from __future__ import annotations

from compact_agent.models import REGISTRY, build_model


def test_a_known_model_has_the_registrys_window() -> None:
    for name in ("deepseek-chat", "deepseek-reasoner"):
        assert build_model(name, api_key="k").context_window == REGISTRY[name].window == 128_000


def test_a_model_the_registry_does_not_know_keeps_what_pydantic_ai_says() -> None:
    assert build_model("my-local-model", base_url="http://127.0.0.1:9/v1", api_key="k").context_window is None
