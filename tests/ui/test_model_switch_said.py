"""What `/model` says it changed: `/model --window 9k` (the same model, a new window) said
`model fake-model → fake-model`, as if the model had changed and not the window."""

from __future__ import annotations

import re

from tests.fakes.openai_server import Reply

from .repl_driver import drive


async def test_a_new_window_for_the_same_model_is_said_as_the_window_changed(tmp_path):
    run = await drive(tmp_path, lambda req: Reply.text("ok"),
                      ["/model --window 9k\r", "/model fake-model --window 9k\r"])
    said = [line for line in run.out.splitlines() if "auto-compaction at" in line]
    assert said[0].startswith("window 32,768 → 9,000 · model fake-model, as it was · auto-compaction at "), said
    assert said[1].startswith("model fake-model and window 9,000, as they were · auto-compaction at "), said
    assert len(said) == 2 and not re.search(r"model (\S+) → \1\b", run.out), run.out
