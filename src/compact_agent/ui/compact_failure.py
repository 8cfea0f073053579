"""What a /compact that failed says: that it did not compact, why, that nothing was changed, and,
where trying again may help, how.

Its summary request failing (an HTTP 500, a timeout) was said as a failed turn is, with a turn's
advice: 'the session is saved with your message: send it again (↑ Enter) to retry', or 'send "go on"
to continue' after a turn whose tools ran. A /compact sends no message and, failed, leaves the
session as it was; the advice to use a larger --context-window '(or /compact in the REPL)' came
right after the user had typed /compact. Now: 'not compacted: the summary request failed: the
provider failed (HTTP 500): …; nothing was changed; /compact again to retry'. A failure of no request
(a path the agent could not follow) is said as itself: 'not compacted: …; nothing was changed'.
"""

from __future__ import annotations

#: The mark of a failure that trying again may get past: where a turn's line advises sending it again.
_PASSING = "\0passing"


class CompactFailed(Exception):
    """A /compact that changed nothing: its message is the whole line, in our words (raised by the
    command where the REPL and print mode say a failure, which show its one line as it is, and
    print mode exits 1)."""


def compact_failed(e: BaseException, again: str) -> CompactFailed:
    """The line for a /compact that failed with `e`; `again`: how to run it again (`/compact`, or a
    print mode's command line). Raise it outside the handler of `e`: the words found under an error
    (a reply cut off, one that is no JSON) are of `e`, said here, not of the line."""
    from pydantic_ai.exceptions import ModelContextWindowExceededError

    from ..context import CompactionError
    from ..context.plumbing.overflow import as_overflow, figures, refusal_text
    from ..error_text import describe_error

    overflow = e if isinstance(e, ModelContextWindowExceededError) else as_overflow(e)
    if overflow is not None:  # the server's window, learned from it already, holds not even a summary request
        _, window = figures(refusal_text(overflow))
        its = f"the server's window of {window:,} tokens" if window else "the server's window"
        return CompactFailed(f"not compacted: the summary request is too long for {its} even with the oldest "
                             "messages left out; nothing was changed (a model or server with a larger window takes it)")
    why = describe_error(e, "", "").rstrip().removesuffix(".")
    if not isinstance(e, CompactionError) and _of_a_request(e):  # the library's own words say what failed
        why = f"the summary request failed: {why}" + _second_form(e, why)
    passing = _PASSING in describe_error(e, "; " + _PASSING, "")
    return CompactFailed(f"not compacted: {why}; nothing was changed" + (f"; {again} again to retry" if passing else ""))


def _of_a_request(e: BaseException) -> bool:
    """Whether `e` is what a model request failed with: pydantic-ai's error for one (`AgentRunError`:
    an HTTP error, a connection, a reply it could not use, a request limit), or the transport's under
    it, or a reply the SDK could not read; or one after which the second form was sent. Not any other:
    a compaction that failed before it asked for a summary (a path the agent could not follow, named
    by a callback) said 'the summary request failed' where none had been sent."""
    import httpx2
    from pydantic_ai.exceptions import AgentRunError

    from ..context.compaction.summarizer import fallback_error
    from ..error_causes import chain, reply_unreadable

    return (any(isinstance(c, AgentRunError | httpx2.HTTPError) for c in chain(e)) or reply_unreadable(e) is not None
            or fallback_error(e) is not None)


def _second_form(e: BaseException, first: str) -> str:
    """What the summary request's second form (the conversation as text) did after the first failed
    with `e` (said as `first`), and the requests of both: the line said `after 2 retries` of the
    first alone, where six requests had failed."""
    from ..context.compaction.summarizer import fallback_error
    from ..error_causes import retries
    from ..error_text import describe_error

    second = fallback_error(e)
    if second is None:
        return ""
    said = describe_error(second, "", "").rstrip().removesuffix(".")
    out = "; sent again as text (its second form), it failed " + ("the same way" if said == first else f"too: {said}")
    counts = (retries(e), retries(second))
    return out + (f" ({counts[0] + counts[1] + 2} requests in all)" if counts[0] is not None and counts[1] is not None
                  else "")
