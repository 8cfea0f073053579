"""The model settings a session's requests carry: Anthropic's prompt-cache mark and, when
`anthropic_server_clearing` asks for it, Anthropic's server-side clearing of old tool results.

Server-side clearing is opt-in. Microcompact (L3) clears old results locally, priced, with every
provider; the server's clearing instead is not reported back (pydantic-ai does not surface the
response's `context_management.applied_edits`), so the sizes the pipeline works with stay those of
the uncleared request and a report after a clearing is refused by the calibration. Replayed over
the recorded sessions at Anthropic's prices, the local layer cost less at 32K-128K and kept more of
what the next step used at 64K-200K (docs/configuration.md).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, cast

from ...context.layers.microcompact import ANTHROPIC_BETA, anthropic_context_management

if TYPE_CHECKING:
    from anthropic.types.beta import BetaContextManagementConfigParam
    from pydantic_ai.models.anthropic import AnthropicModelSettings

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
