"""Each part of a saved state that cannot be used is named in a warning, not dropped in silence.

`load_layer_state("garbage")` warned, but `{"budget": "x", "learned": []}` or
`{"budget": {"replaced": {"a": 5}}, "snip": [1]}` were taken with their bad parts dropped and no word:
a service whose saved states were damaged had no way to know. A damaged part still costs only what it
held (the layer re-decides, what was learned is measured again): no error is raised."""

from __future__ import annotations

import json
import logging

import pytest

from compact_agent.context import ContextManager


def warnings_for(state: object, caplog: pytest.LogCaptureFixture) -> list[str]:
    cm = ContextManager(window=64_000)
    caplog.clear()
    with caplog.at_level(logging.WARNING, logger="compact_agent.context"):
        cm.load_layer_state(state)  # type: ignore[arg-type]
    return [r.getMessage() for r in caplog.records]


def test_each_part_that_cannot_be_used_is_named(caplog: pytest.LogCaptureFixture) -> None:
    assert warnings_for({"budget": "x", "learned": []}, caplog) == [
        "the saved decisions of the budget layer are unusable (not a JSON object: str); it starts afresh",
        "what the saved state learned is not a JSON object (list); it is measured again"]
    assert warnings_for({"budget": {"replaced": {"a": 5}}, "snip": [1]}, caplog) == [
        "the saved decisions of the budget layer hold 'replaced', which it does not know; it is left out",
        "the saved decisions of the snip layer are unusable (not a JSON object: list); it starts afresh"]
    assert warnings_for({"snp": {}, "learned": {"failures": "3", "window": [1], "speed": 2, "longest_answer": 900}},
                        caplog) == [
        "the saved state holds 'snp', which is no layer's here; it is left out",
        "what the saved state learned of 'failures' is unusable ('3'); it is measured again",
        "what the saved state learned of 'window' is unusable ([1]); it is measured again",
        "the saved state learned 'speed', which is not known here; it is left out"]
    assert warnings_for("garbage", caplog) == [
        "the saved layer decisions are not a JSON object; every layer starts afresh"]


def test_what_it_can_use_is_taken_and_a_whole_state_warns_nothing(caplog: pytest.LogCaptureFixture) -> None:
    cm = ContextManager(window=64_000)
    cm.load_layer_state({"learned": {"failures": "x", "longest_answer": 900}})
    assert cm.failures == 0 and cm.schedule.max_output_seen == 900
    cm.load_layer_state({"learned": {"failures": 2}})
    saved = json.loads(json.dumps(cm.layer_state()))
    assert warnings_for(saved, caplog) == []
    assert warnings_for({}, caplog) == []
