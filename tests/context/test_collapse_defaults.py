"""A `ContextCollapse` built directly decides as the one `default_layers` builds from the same
settings: its target, least gain and recent rounds kept are the settings' (one place for every
number). Its own defaults were 0.70 and 0.05 against the settings' 0.50 and 0.25, so a layer built
with only the settings committed smaller, more frequent collapses than the pipeline's: the drip of
prompt-cache rewrites the settings' values exist to avoid."""

from __future__ import annotations

from compact_agent.context import CompactionSettings, default_layers
from compact_agent.context.layers.collapse import ContextCollapse
from compact_agent.context.plumbing.tokens import estimate
from tests.context.strategies import dump
from tests.context.test_collapse import budget, long_conv


def pipelines(settings: CompactionSettings) -> ContextCollapse:
    [layer] = [la for la in default_layers(settings, None) if isinstance(la, ContextCollapse)]
    return layer


def test_a_directly_built_layer_takes_the_settings_numbers() -> None:
    for settings in (CompactionSettings(), CompactionSettings(collapse_target_fraction=0.6,
                                                              collapse_min_gain_fraction=0.1,
                                                              collapse_keep_recent_rounds=5)):
        layer = ContextCollapse(settings, None)
        assert (layer.target_fraction, layer.min_gain_fraction, layer.keep_recent_rounds) == (
            settings.collapse_target_fraction, settings.collapse_min_gain_fraction,
            settings.collapse_keep_recent_rounds)
        assert ContextCollapse(settings, None, target_fraction=0.4).target_fraction == 0.4  # still its to say


def test_a_directly_built_layer_commits_what_the_pipelines_commits() -> None:
    conv = long_conv(turns=10)
    threshold = estimate(conv.messages)
    settings = CompactionSettings()
    direct = ContextCollapse(settings, None).apply(conv.messages, budget(conv.messages, threshold))
    piped = pipelines(settings).apply(conv.messages, budget(conv.messages, threshold))
    assert [e.action for e in piped.events] == ["commit"]
    assert dump(direct.messages) == dump(piped.messages)
    assert estimate(direct.messages) <= 0.5 * threshold  # the settings' target, not 0.70
