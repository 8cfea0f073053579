"""What the provider's SDK does while it waits to send a failed request again, in words for the REPL.

The openai and anthropic SDKs retry a request the server refused for the moment (HTTP 408, 409,
429, 5xx, Anthropic's 529 "overloaded") or that never got an answer, waiting what `retry-after`
asks, up to two minutes, or backing off (retry.py says who retries what). Meanwhile the REPL's
spinner said `thinking… 40s`, as for a model at work: a person took a rate limit or an overloaded
server for a hung agent and stopped the turn. The transport (deadline.py) notes why each attempt
failed; the SDK's own log record of the wait ("Retrying request in 30.000000 seconds (retry 1 of 2)")
then reaches whoever listens in this context (`telling`), as one line:
`the server answered HTTP 429 (too many requests): sending the request again in 30s (retry 1 of 2)`.
"""

from __future__ import annotations

import contextlib
import http
import logging
from collections.abc import Callable, Iterator
from contextvars import ContextVar

#: The loggers the SDKs write their waits to (openai._base_client, anthropic._base_client).
SDK_LOGGERS = ("openai._base_client", "anthropic._base_client")
_RETRYING = "Retrying request"
#: Who is told, in this context: the REPL's turn (None: nobody, as in print mode).
_listener: ContextVar[Callable[[str], None] | None] = ContextVar("retry_listener", default=None)
#: Why the last attempt in this context failed, in words (None: it did not).
_failure: ContextVar[str | None] = ContextVar("retry_failure", default=None)
#: Names of the statuses Python's table leaves out.
_PHRASES = {529: "overloaded"}


def note_status(status: int) -> None:
    """An attempt's answer (the transport calls this for each): its status, when it is a failure."""
    if status < 400:
        _failure.set(None)
        return
    try:
        phrase = _PHRASES.get(status) or http.HTTPStatus(status).phrase.lower()
    except ValueError:
        phrase = ""
    _failure.set(f"the server answered HTTP {status}" + (f" ({phrase})" if phrase else ""))


def note_no_answer(timed_out: bool) -> None:
    """An attempt that got no answer: it timed out, or the connection failed or closed."""
    _failure.set("the request timed out" if timed_out else "the request got no answer (the connection failed)")


#: A summary request's forms (context/compaction/summarizer.py `SENDING`), as the wait names them.
_FORMS = {"shared": "the summary request", "separate": "the summary request as text (its second form)"}


def said(seconds: float, retry: int | None = None, of: int | None = None) -> str:
    """The line for a wait of `seconds` before retry `retry` of `of` (either may be unknown); a summary
    request's names its form: a failed one is sent in two, whose `retry 1 of 2` read alike."""
    from .context.compaction.summarizer import SENDING  # loaded already: a request is under way

    wait = f"{seconds:.0f}s" if seconds >= 1 else "a moment"
    count = f" (retry {retry} of {of})" if retry is not None and of is not None else ""
    form = _FORMS.get(SENDING.get() or "")
    return (f"{form}: " if form else "") + f"{_failure.get() or 'the request failed'}: sending it again in {wait}{count}"


class _SdkWaits(logging.Handler):
    """Hears the SDKs' "Retrying request …" records and tells the listener of this context."""

    def emit(self, record: logging.LogRecord) -> None:
        listener = _listener.get()
        if listener is None or not str(record.msg).startswith(_RETRYING):
            return
        args = record.args if isinstance(record.args, tuple) else ()
        try:  # openai: (seconds, retry, of); anthropic: (url, seconds)
            seconds = float(args[0] if len(args) == 3 else args[1])  # type: ignore[arg-type]
            retry, of = (int(args[1]), int(args[2])) if len(args) == 3 else (None, None)  # type: ignore[call-overload]
        except (IndexError, TypeError, ValueError):
            return
        with contextlib.suppress(Exception):  # a line not shown is no reason to fail the request
            listener(said(seconds, retry, of))


_handler = _SdkWaits(logging.INFO)


def _install() -> None:
    """Hear the SDKs' waits: their loggers let INFO through (a lower level set elsewhere stays)."""
    for name in SDK_LOGGERS:
        logger = logging.getLogger(name)
        if _handler not in logger.handlers:
            logger.addHandler(_handler)
        if logger.getEffectiveLevel() > logging.INFO:
            logger.setLevel(logging.INFO)


@contextlib.contextmanager
def telling(listener: Callable[[str], None]) -> Iterator[None]:
    """Within this block (and the tasks it starts), each wait before a retry is said to `listener`."""
    _install()
    token = _listener.set(listener)
    try:
        yield
    finally:
        _listener.reset(token)
