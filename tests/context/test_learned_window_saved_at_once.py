"""A window the server taught is saved beside the history the moment it is learned, not after the
next answer: a run that failed after the refusal that taught it (the request sent again refused for
another reason, the network gone) left the next `-c` run to send its first request at the old window,
refused again the same way."""

from __future__ import annotations

import json
from typing import Any

from compact_agent.context import ContextManager
from compact_agent.context.wiring import Internals


def test_the_window_learned_is_saved_before_the_run_goes_on() -> None:
    saved: list[dict[str, Any]] = []
    cm = ContextManager.wired(Internals(save_state=saved.append), window=8_000)
    cm.learn_from_overflow("This model's maximum context length is 3900 tokens. However, your messages "
                           "resulted in 4500 tokens. Please reduce the length of the messages.")
    assert cm.limits.window == 3_900
    assert saved, "nothing saved when the window was learned"
    state = json.loads(json.dumps(saved[-1]))  # as the agent writes it beside the session
    again = ContextManager.wired(Internals(), window=8_000)
    again.load_layer_state(state)
    assert again.limits.window == 3_900  # the next run starts within the window learned
