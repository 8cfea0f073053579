"""A compaction's span, without importing OpenTelemetry.

The library imports only pydantic-ai and the standard library. Its spans go to the tracer
pydantic-ai hands every run (`RunContext.tracer`, a no-op unless instrumentation is on), so the
library needs no tracer of its own: before a run's first request (and for `compact_now` outside a
run) it uses `NO_TRACER`, which records nothing. The one OpenTelemetry name a failed span needs,
its error status, is imported where it is used, from the API pydantic-ai's tracer came with; if
that import fails the exception is still recorded on the span.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from typing import TYPE_CHECKING, Any

from .events import one_line

if TYPE_CHECKING:  # for type checkers only: pydantic-ai's run context carries an OpenTelemetry tracer
    from opentelemetry.trace import Span

__all__ = ["NO_TRACER", "NoSpan", "NoTracer", "failed"]


class NoSpan:
    """A span that records nothing (what `NoTracer` opens)."""

    def set_attribute(self, key: str, value: Any) -> None:
        """Kept nowhere: no run has handed over a tracer."""

    def set_attributes(self, attributes: Mapping[str, Any]) -> None:
        """Kept nowhere, as `set_attribute`."""

    def record_exception(self, exception: BaseException) -> None:
        """Kept nowhere: the caller raises the exception on, which is how it is seen."""


class NoTracer:
    """The tracer until a run hands over pydantic-ai's."""

    @contextmanager
    def start_as_current_span(self, name: str, attributes: Mapping[str, Any] | None = None) -> Iterator[NoSpan]:
        yield NoSpan()


NO_TRACER = NoTracer()


def failed(span: Span | NoSpan, error: BaseException) -> None:
    """Mark `span` as failed with `error`: the exception recorded, the status an error."""
    span.record_exception(error)
    if isinstance(span, NoSpan):
        return
    try:
        from opentelemetry.trace import Status, StatusCode
    except ImportError:  # pragma: no cover - pydantic-ai's tracer came from this very package
        return
    span.set_status(Status(StatusCode.ERROR, one_line(error)))
