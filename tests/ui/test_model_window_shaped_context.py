"""`/model --window N` compacts only where the context, as the view layers shape it within the new
window, is over its threshold, says how they shape it, and keeps what the reports taught of the same
model at the same server (model_switch.py).

`/model --window 8k` after /context had said 8.9k compacted "2,172 → 1,617": within 8K the layers
had shaped the context to 2,172, under the new threshold, so the compaction was not needed, and its
figures did not follow from the one shown before; /context then said 2.5k, estimated afresh, where
the server counted 1,620: the calibration was thrown away as for another model.
"""

from __future__ import annotations

from pathlib import Path

from tests.fakes.openai_server import FakeOpenAIServer

from .test_command_edges import show
from .test_commands_terminal import answer, session


async def test_a_smaller_window_whose_layers_bring_the_context_under_it_compacts_nothing(tmp_path: Path) -> None:
    with FakeOpenAIServer(answer) as server:
        s = session(tmp_path, server)
        try:
            for i in range(6):
                await s.run_turn(f"turn {i}")
            before, calibration = s.context_tokens(), s.cm.calibration
            assert before > 7_000
            out = await show(s, "/model --window 10240")
            assert not s.cm.compactions and "compacted" not in out, out
            shaped = s.context_tokens()
            assert shaped < s.cm.limits.threshold < before  # as the next request is shaped: under it
            assert (f"window 32,768 → 10,240 · model fake-model, as it was · context {before:,} → {shaped:,} tokens "
                    "as the view layers shape it for this window · auto-compaction at") in out, out
            assert s.cm.calibration is calibration  # the same model at the same server
            await s.run_turn("and on")
            assert not s.cm.compactions and not server.rejected
        finally:
            s.close()


async def test_another_model_starts_its_calibration_afresh(tmp_path: Path) -> None:
    with FakeOpenAIServer(answer, serves=["fake-model", "other-model"]) as server:
        s = session(tmp_path, server)
        try:
            await s.run_turn("turn 0")
            calibration = s.cm.calibration
            await show(s, "/model other-model --window 32768")
            assert s.cm.calibration is not calibration and s.cm.calibration.last_report() is None
        finally:
            s.close()
