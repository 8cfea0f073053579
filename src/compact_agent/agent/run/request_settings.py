"""The model settings a session's requests carry: Anthropic's prompt-cache mark and, when
`anthropic_server_clearing` asks for it, Anthropic's server-side clearing of old tool results; and
the `max_tokens` an Anthropic request asks for (`answer_settings`, `answer_asked`).

Anthropic's API requires `max_tokens`; a request that sets none gets pydantic-ai's: the model's
maximum output (64,000 for Claude Sonnet 4.5), or 4,096 for a model that refuses a request whose
prompt and `max_tokens` together exceed its window (Claude 3, Claude Sonnet 4 and Opus 4.1 and
before). For the first kind a large `max_tokens` costs nothing: Anthropic ends an answer at the
window instead of refusing the request, and bills only what is written, so the requests leave it
large and an answer is never cut short at the room the threshold keeps (which follows the answers
written, 1,024 tokens at least): /context says it. For the second kind the 4,096 is held against
the window with the prompt, so it is set here, in the model's own settings, where the pipeline
reads it (`answer_asked` in pipeline.py): the room kept for the answer is never less, and no request
goes out whose prompt and `max_tokens` exceed the window. Sent unset, the pipeline knew nothing of
it and kept 1,024 to 2,000 tokens for the answer, and a prompt near the threshold went out over.

Server-side clearing is opt-in. Microcompact (L3) clears old results locally, priced, with every
provider; the server's clearing instead is not reported back (pydantic-ai does not surface the
response's `context_management.applied_edits`), so the sizes the pipeline works with stay those of
the uncleared request and a report after a clearing is refused by the calibration. Replayed over
the recorded sessions at Anthropic's prices, the local layer cost less at 32K-128K and kept more of
what the next step used at 64K-200K (docs/configuration.md).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, cast

from ...context.layers.microcompact import ANTHROPIC_BETA, anthropic_context_management

if TYPE_CHECKING:
    from anthropic.types.beta import BetaContextManagementConfigParam
    from pydantic_ai.models.anthropic import AnthropicModelSettings
    from pydantic_ai.settings import ModelSettings

    from ...context import CompactionSettings


def model_settings(provider: str, server_clearing: bool, settings: CompactionSettings,
                   threshold: int) -> AnthropicModelSettings | None:
    """What every main request is sent with (None: nothing beyond the model's own). `threshold`: the
    auto-compact threshold, which the server's clearing starts at three fifths of."""
    if provider != "anthropic":
        return None
    cache: AnthropicModelSettings = {"anthropic_cache_messages": True}  # Anthropic caches only what is marked
    if not server_clearing:  # (the newest message: each request reads the one before it)
        return cache
    body = anthropic_context_management(settings, threshold=threshold, trigger_tokens=max(10_000, threshold * 3 // 5))
    # The library builds the body without the SDK; its shape is the SDK's context-management config. Its
    # beta is context editing's: pydantic-ai adds only compaction's (compact-2026-01-12) for the field.
    return {**cache, "anthropic_betas": [ANTHROPIC_BETA],
            "anthropic_context_management": cast("BetaContextManagementConfigParam", body)}


#: The `max_tokens` pydantic-ai sends an Anthropic model that refuses prompt + max_tokens over its
#: window, where a request sets none; set here instead, so the pipeline holds it against the window.
COUNTED_ANSWER = 4_096
#: The `max_tokens` pydantic-ai sends another Anthropic model whose maximum output it does not know.
UNKNOWN_MOST = 16_384
_COUNTS = "anthropic_rejects_max_tokens_beyond_context_window"


def answer_settings(name: str) -> ModelSettings | None:
    """The model settings of Anthropic model `name`: `max_tokens` where the model counts it against
    its window with the prompt (pydantic-ai's profile says which), None where it does not."""
    from pydantic_ai.profiles.anthropic import anthropic_model_profile

    profile = anthropic_model_profile(name) or {}
    return {"max_tokens": COUNTED_ANSWER} if profile.get(_COUNTS, False) else None


@dataclass(frozen=True)
class AnswerAsked:
    """The `max_tokens` a session's requests ask for (`tokens`, 0: none is sent), and whether the
    provider holds it against the window with the prompt (`counted`: the room kept for the answer
    is at least that)."""

    tokens: int
    counted: bool


def answer_asked(model: Any, settings: Any) -> AnswerAsked:
    """What `model`'s requests ask for with the merged `settings` (first_request.settings): the
    `max_tokens` set, which the pipeline counts against the window, or, for an Anthropic model that
    sets none, the one pydantic-ai sends (the model's maximum output), which Anthropic does not."""
    asked = settings.get("max_tokens") if isinstance(settings, dict) else None
    if isinstance(asked, int) and not isinstance(asked, bool) and asked > 0:
        return AnswerAsked(asked, True)
    if getattr(model, "system", "") != "anthropic":
        return AnswerAsked(0, False)
    profile = getattr(model, "profile", None) or {}
    if _COUNTS not in profile and "anthropic_max_output_tokens" not in profile:
        return AnswerAsked(0, False)  # a pydantic-ai whose profile does not say what it sends: not guessed
    if profile.get(_COUNTS, False):
        return AnswerAsked(COUNTED_ANSWER, True)
    most = profile.get("anthropic_max_output_tokens")
    return AnswerAsked(most if isinstance(most, int) and most > 0 else UNKNOWN_MOST, False)
