"""When a paused circuit breaker lets automatic compaction try again.

After `max_consecutive_failures` automatic compactions in a row fail, automatic compaction pauses
(compacting.py `_auto`, which asks `pause` when it is tried again). One paused by an archive the store
could not write is tried again `ARCHIVE_RETRY` requests later. One paused by any other failure (a summary request
the provider failed, a summary that would not shrink the context) used to stay paused for good, until
`close_breaker()` or a compaction asked for: a short provider outage left a conversation that lives on
uncompacted, every request leaving its older rounds out. It is now tried again once the cool-down
`cool_down_s` gives has passed by the manager's clock: one attempt, which closes the breaker if it
succeeds and pauses it again for twice as long if it fails. The time it is due is saved with the
layers' state (saved_state.py, `learned["breaker_retry_at"]`, an ISO 8601 UTC timestamp): a new
manager that loads it keeps the pause until then; one saved without it, or damaged, is due at once.
"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Protocol

#: The first cool-down, in seconds, and the longest. A provider's outage most often lasts minutes: a
#: minute's wait costs at most one summary request that fails while it lasts, and doubling the wait
#: after each retry that fails again (60 s, 120 s, 240 s, ... 1,920 s) bounds a long outage's wasted
#: summary requests to about two an hour, while a provider back after a long outage is used again
#: within about half an hour (the cap: 32 minutes).
COOL_DOWN_S = 60
COOL_DOWN_CAP_S = COOL_DOWN_S << 5

#: Requests after which automatic compaction paused by archives the store could not write (a full disk)
#: is tried again, doubled after each try that still cannot, up to eight times: freed space resumes it.
ARCHIVE_RETRY = 8

#: Due at once: a saved time that is missing or cannot be read (compared with any clock's time).
DUE_NOW = datetime.min.replace(tzinfo=UTC)


class _Paused(Protocol):
    """What of the manager a pause reads and sets (compacting.py's `CompactingState`)."""

    failures: int
    requests: int
    archive_retry_at: int | None
    breaker_retry_at: datetime | None

    def clock(self) -> datetime: ...


def cool_down_s(failures: int, limit: int) -> int:
    """The wait after the `failures`-th failure in a row, `limit` of them opening the breaker."""
    return min(COOL_DOWN_S << min(max(0, failures - limit), 5), COOL_DOWN_CAP_S)


def _utc(when: datetime) -> datetime:
    """`when` as an aware UTC time (a clock that gives naive times gives them in UTC, as `utcnow`)."""
    return when.replace(tzinfo=UTC) if when.tzinfo is None else when.astimezone(UTC)


def due(cm: _Paused) -> bool:
    """A retry of the paused breaker is due: the archive's (`ARCHIVE_RETRY` requests on), or the
    cool-down's (its time reached by the manager's clock)."""
    if cm.archive_retry_at is not None:
        return cm.requests >= cm.archive_retry_at
    return cm.breaker_retry_at is not None and _utc(cm.clock()) >= _utc(cm.breaker_retry_at)


def pause(cm: _Paused, limit: int, unwritten: bool) -> tuple[int | None, int | None]:
    """After a failure counted in `cm.failures`: when the breaker, open now, is tried again, as (requests,
    seconds), with the request or time set on `cm`: an archive not written (`unwritten`) `ARCHIVE_RETRY`
    requests on, doubled while it still cannot; any other failure once its cool-down has passed by the
    clock. (None, None) while the breaker is shut."""
    cm.archive_retry_at = cm.breaker_retry_at = None
    if cm.failures < limit:
        return None, None
    if unwritten:
        wait = ARCHIVE_RETRY << min(cm.failures - limit, 3)
        cm.archive_retry_at = cm.requests + wait
        return wait, None
    cool = cool_down_s(cm.failures, limit)
    cm.breaker_retry_at = _utc(cm.clock()) + timedelta(seconds=cool)
    return None, cool


def closed(cm: _Paused) -> None:
    """An automatic compaction succeeded: no failures in a row, and no pause of either kind."""
    cm.failures, cm.archive_retry_at, cm.breaker_retry_at = 0, None, None


def retry_in_s(cm: _Paused) -> float | None:
    """Seconds until the paused breaker is tried again by the cool-down (0: at the next compaction
    needed), None where no such retry is set (closed, or waiting on an unwritten archive)."""
    if cm.breaker_retry_at is None or cm.archive_retry_at is not None:
        return None
    return max(0.0, (_utc(cm.breaker_retry_at) - _utc(cm.clock())).total_seconds())


def to_json(when: datetime) -> str:
    """The retry's time as saved: ISO 8601 in UTC."""
    return _utc(when).isoformat()


def from_json(value: object) -> datetime | None:
    """A saved retry time, None where it cannot be read (a string that is not an ISO 8601 time)."""
    if not isinstance(value, str):
        return None
    try:
        return _utc(datetime.fromisoformat(value))
    except ValueError:
        return None
