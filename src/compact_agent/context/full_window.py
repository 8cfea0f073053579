"""A compaction where the window is full: a refusal no compaction can answer.

A provider that refuses a request as too long is answered by a compaction (reactive: compacting.py
`_auto`). Where the instructions and tool definitions, as the provider counts them, leave no room
for the least a record written without a model keeps (its framing and the first words of the user's
newest message), none can help: one was tried, its summary request longer still and the record no
smaller, said in a line of its own ("auto-compaction failed"), and the run ended on the provider's
refusal ("too long … could not be shrunk"), naming neither figure. `no_record_fits` says so instead,
in one line (`refusal.fixed_refusal`), before anything is tried.
"""

from __future__ import annotations

from collections.abc import Sequence

from pydantic_ai.messages import ModelMessage

from .compaction import summary
from .plumbing import tokens
from .plumbing.events import Event
from .plumbing.refusal import NoRoomForConversation, fixed_refusal
from .state import ManagerState


def no_record_fits(cm: ManagerState, messages: Sequence[ModelMessage], refused: int | None
                   ) -> NoRoomForConversation | None:
    """The error a refused request of `messages` (`refused` tokens, as the provider counted it) ends the
    run with where no compaction can make room (module docstring), emitted as a `window` / `refused`
    event; None where a record could. The instructions and tool definitions are the calibrated
    estimate, or the provider's count of the whole request less its messages', if larger."""
    assert cm.compactor is not None
    window = cm.limits.window
    room = min(window - window // 50, window - cm.answer_asked)
    fixed = cm.calibration.tokens(cm.overhead)
    if refused:
        fixed = max(fixed, refused - cm.calibration.tokens(cm.estimate(messages)))
    newest = [u[:summary.USER_HEAD_CHARS] for u in cm.compactor.user_texts(messages)[-1:]]
    least = cm.calibration.tokens(tokens.estimate([summary.summary_message("", None, newest, "record")]))
    if fixed + least <= room:
        return None
    size = max(refused or 0, fixed + least)
    cm.emit(Event("window", "refused", size, size, detail={"window": window, "fixed": fixed,
                                                          "max_tokens": cm.answer_asked}))
    model = cm.run_model.model_name if cm.run_model is not None else ""
    return NoRoomForConversation(model, fixed_refusal(fixed, window, answer=cm.answer_asked, least=least,
                                                      counted=fixed > cm.overhead_estimate * 11 // 10))

