"""A compaction never folds the document the model is asked about while the request fits the window.

With no older part to take (a first message attaching a 12,000-token file in a 16K window, past the
hard limit that keeps room for the answer), a compaction folded the newest message itself into a
record, which names a document and leaves it out: the model answered "summarise this" without it,
and nothing was said. Such a request goes as it is, the answer's room what the window leaves; one
whose document cannot fit at all is refused before any compaction (full_window.document_over_window).
A compaction that keeps the newest message (it takes older rounds) goes ahead as before.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from pydantic_ai.messages import ModelMessage

from ..plumbing.media_size import document_asked_at
from ..plumbing.settings import sendable
from .view import ManagerView

if TYPE_CHECKING:
    from ..compaction.keep import KeepPlan


def folds_asked_document(cm: ManagerView, messages: list[ModelMessage], tokens_now: int,
                         keeps: Callable[[ManagerView, list[ModelMessage]], KeepPlan]) -> bool:
    """Whether the only compaction there is (`keeps`: what one would keep) would take the user's
    newest message, which attaches a document, while the request of `tokens_now` fits the window
    less the answer's `max_tokens` and the estimate's margin (`sendable`)."""
    at = document_asked_at(messages)
    return (at is not None and cm.compactor is not None
            and tokens_now <= sendable(cm.limits.window, cm.answer_asked)
            and keeps(cm, messages).cut > at)
