"""Layer 4: context collapse. Old rounds become a short digest, committed once, projected every time.

Near the auto-compact threshold (above `budget.collapse_commit`, ~90%) the oldest completed API
rounds are replaced in the view by a deterministic digest: what was asked, which tools ran with
which key arguments and how they ended, which files were read or changed. One commit takes enough
rounds to bring the view to `collapse_target_fraction` of the threshold (half, by default; the
newest `collapse_keep_recent_rounds` rounds stay), so it happens rarely and the new prefix then
stays cache-stable for many requests. A commit that would free less than
`collapse_min_gain_fraction` of the threshold (a quarter) is not made, and with the model's prices
known it must also pay for the prompt it re-sends and the look-agains for what it folds
(`Budget.rewrite_pays`). Compared with a model-written summary it costs nothing and
loses the detail of only the oldest work, which is why auto-compact holds off while the collapsed
view is under `budget.collapse_blocking` (~95%).

Commits are a log, not a rewrite: the persisted history keeps every message, and each request
re-applies the commits to it. A commit names its range by the keys of its first and last message
(kind, timestamp, response id, tool ids), which earlier layers never change, and stores its digest
text, so re-applying it gives the same bytes even after other layers changed covered content.
The log is append-only JSON lines (fsync, mode 0600) so a restart re-applies the same commits.
A commit whose boundary messages are gone (a full compaction rewrote the history) is skipped.
"""

from __future__ import annotations

import copy
import hashlib
import logging
from dataclasses import replace
from datetime import datetime
from pathlib import Path
from typing import Any

from pydantic_ai.messages import (
    ModelMessage,
    ModelRequest,
    ModelResponse,
    SystemPromptPart,
    UserPromptPart,
)

from ..plumbing.events import Budget, Event, LayerResult, Stopwatch
from ..plumbing.identity_memo import IdentityMemo
from ..plumbing.markers import is_compaction_message, mark, write_private
from ..plumbing.rounds import api_rounds, call_ids, return_ids, safe_cuts
from ..plumbing.settings import CompactionSettings as Settings
from .collapse_log import Commit, append_log, from_state, line_of, read_log
from .digest import DIGEST_HEADER, Digest, asks, default_digest, is_digest, plan_note

log = logging.getLogger(__name__)

LAYER = "collapse"




def _timestamp(m: ModelMessage) -> datetime | None:
    """The message's own timestamp, else its last part's (prepending a digest never changes that)."""
    if m.timestamp is not None:
        return m.timestamp
    return next((t for p in reversed(m.parts) if (t := getattr(p, "timestamp", None)) is not None), None)


_key_memo: IdentityMemo[str] = IdentityMemo()


def message_key(m: ModelMessage) -> str:
    """Identity of a message that survives layers 1-3 (they change content, not these fields).

    Memoised by object identity (as token estimates are): every commit is re-projected on every
    request, so without it a long session spends most of its pipeline time formatting timestamps.
    """
    hit = _key_memo.get(m)
    if hit is not None:
        return hit
    ts = _timestamp(m)
    ids = call_ids(m) if isinstance(m, ModelResponse) else return_ids(m)
    rid = m.provider_response_id if isinstance(m, ModelResponse) else None
    return _key_memo.put(m, f"{m.kind}|{ts.isoformat() if ts else '-'}|{rid or ''}|{','.join(ids)}")


class ContextCollapse:
    """L4: commit old rounds to digests near the threshold; project all commits on every request.

    State: `commits`, the list of `Commit` records (also the lines of `log_path`).
    """

    name = LAYER

    def __init__(self, settings: Settings, log_path: Path | None, digest: Digest | None = None, *,
                 target_fraction: float | None = None, keep_recent_rounds: int | None = None,
                 min_gain_fraction: float | None = None) -> None:
        """The target, least gain and recent rounds kept are `settings`' (`collapse_target_fraction`,
        `collapse_min_gain_fraction`, `collapse_keep_recent_rounds`) unless given: one place for every
        number, so a layer built here decides as the one `default_layers` builds."""
        self.settings = settings
        self.log_path = log_path
        self.digest = digest
        self.target_fraction = settings.collapse_target_fraction if target_fraction is None else target_fraction
        # A commit rewrites the prompt from its first message on: below this share of the threshold
        # the cache it throws away is worth more than the tokens it frees.
        self.min_gain_fraction = settings.collapse_min_gain_fraction if min_gain_fraction is None else min_gain_fraction
        kept = settings.collapse_keep_recent_rounds if keep_recent_rounds is None else keep_recent_rounds
        self.keep_recent_rounds = max(1, kept)
        self.commits: list[Commit] = read_log(log_path) if log_path is not None else []
        self._logs = True  # False in a scratch copy, which commits without logging

    def state_to_json(self) -> dict[str, Any]:
        return {"commits": [c.to_json() for c in self.commits]}

    def load_state(self, d: dict[str, Any]) -> None:
        """Adopt persisted commits, merged with the log: either may hold one the other missed
        (state saved before the last commit, or a log write that failed). What cannot be used is
        said in one line (collapse_log.py)."""
        commits = from_state(d, read_log(self.log_path) if self.log_path is not None else [])
        # Creation order matters: a later commit starts at the digest an earlier one left.
        self.commits = sorted(commits, key=lambda c: c.time)

    def scratch(self) -> ContextCollapse:
        """A copy that decides as this layer would and keeps what it decides to itself, logging no
        commit: a look at the next request's view (/context, the toolbar) must not commit for it."""
        twin = copy.copy(self)
        twin.commits, twin._logs = list(self.commits), False
        return twin

    def adopt(self, twin: ContextCollapse) -> None:
        """Take over what a scratch copy decided (a shaping committed once the compaction it was for
        went ahead), logging the commits it made."""
        known = {c.id for c in self.commits}
        self.commits = list(twin.commits)
        for commit in self.commits:
            if commit.id not in known:
                self._persist(commit)

    def suppresses_autocompact(self, tokens_after: int, budget: Budget) -> bool:
        """Collapse owns the band up to `collapse_blocking`; a summary there would undo its work."""
        return budget.collapse_blocking > 0 and tokens_after < budget.collapse_blocking

    def forget_absent(self, messages: list[ModelMessage]) -> None:
        """After a compaction: drop commits whose range is gone from the history for good.

        Commits are re-projected on every request and saved with the layer state, so without this
        both grow with the session's length (80 commits, 90 KB re-saved per request after 1,000
        requests in the soak). A commit is kept when it still projects (in order, as `apply` does)
        or its first message is still there. The log is rewritten with those kept (`write_private`):
        a restart read every commit ever made back from it, each tried on every request.
        """
        view, present = list(messages), {message_key(m) for m in messages}
        kept: list[Commit] = []
        for c in self.commits:
            new = self._project(view, c)
            if new is not None or c.first in present:
                kept.append(c)
                view = new or view
        dropped, self.commits = len(self.commits) - len(kept), kept
        if dropped and self.log_path is not None and self._logs:
            try:
                write_private(self.log_path, "".join(line_of(c) for c in kept), "collapse.trim")
            except OSError as e:  # those dropped come back at a restart, and are dropped again
                log.warning("cannot rewrite collapse log %s: %s", self.log_path, e.strerror or "cannot write it")

    def apply(self, messages: list[ModelMessage], budget: Budget) -> LayerResult:
        watch = Stopwatch()
        before = budget.size(messages)
        view = list(messages)
        for c in self.commits:
            view = self._project(view, c) or view
        projected = budget.size(view)
        tokens_now = budget.tokens - max(0, before - projected)
        events: list[Event] = []
        if budget.collapse_commit > 0 and tokens_now > budget.collapse_commit:
            commit = self._new_commit(view, budget, tokens_now)
            new_view = self._project(view, commit) if commit else None
            gain = projected - budget.size(new_view) if new_view is not None else 0
            if (commit and new_view is not None and gain > 0 and gain >= self.min_gain_fraction * budget.threshold
                    and self._pays(view, commit, gain, budget)):
                commit.tokens_before, commit.tokens_after = projected, budget.size(new_view)
                self.commits.append(commit)
                self._persist(commit)
                view = new_view
                events.append(
                    Event(layer=LAYER, action="commit", tokens_before=projected,
                          tokens_after=commit.tokens_after, ids=commit.ids, trigger="threshold",
                          duration_ms=watch.ms(), time=budget.now.isoformat(),
                          detail={"commit": commit.id, "messages": commit.count,
                                  "log": str(self.log_path) if self.log_path else None})
                )
        after = budget.size(view)
        return LayerResult(messages=view, tokens_freed=max(0, before - after), events=events)

    @staticmethod
    def _pays(view: list[ModelMessage], commit: Commit, gain: int, budget: Budget) -> bool:
        """A commit must earn back the prompt it re-sends from its first message on, and the
        look-agains for what the model will still want from the folded rounds, before the next
        compaction; unpriced, the batching rule alone decides."""
        keys = [message_key(m) for m in view]
        start = keys.index(commit.first) if commit.first in keys else 0
        end = keys.index(commit.last) + 1 if commit.last in keys else start
        return budget.rewrite_pays(budget.size(view[start:]), gain, depth_est=budget.size(view[end:]))

    def _persist(self, commit: Commit) -> None:
        if self.log_path is None or not self._logs:
            return
        try:
            append_log(self.log_path, commit)
        except OSError as e:  # the commit still holds for this process; state_to_json carries it
            log.warning("cannot append to collapse log %s: %s", self.log_path, e.strerror or "cannot write it")

    def _new_commit(self, view: list[ModelMessage], budget: Budget, tokens_now: int) -> Commit | None:
        """The oldest rounds that bring the view to ~target_fraction of the threshold, in one batch.
        A compaction's first message (the user's words and the file ledger) is never folded."""
        lead = 1 if view and is_compaction_message(view[0]) else 0
        view = view[lead:]
        rounds = api_rounds(view)
        newest_ask = max(
            (i for i, m in enumerate(view) if isinstance(m, ModelRequest)
             and any(isinstance(p, UserPromptPart) and not is_digest(p) for p in m.parts)),
            default=len(view),
        )
        older = rounds[: len(rounds) - self.keep_recent_rounds]
        eligible = [r for r in older if r[1] <= newest_ask]
        if not eligible or eligible[0][0] != 0:
            # One long turn (print mode, a big agentic task): nothing precedes the newest ask, so
            # commit the oldest finished rounds of this turn instead, keeping the ask itself
            # verbatim — the digest joins the ask's request, right after the user's words.
            eligible = [r for r in older if r[0] > newest_ask]
            if not eligible or eligible[0][0] != newest_ask + 1:
                return None
        target_free = tokens_now - int(self.target_fraction * budget.threshold)
        max_chars = max(600, min(6_000, budget.threshold * 4 // 10))
        end, covered = 0, 0
        for k, (a, b) in enumerate(eligible, 1):
            covered += budget.size(view[a:b])
            end = b
            # A digest costs roughly a line per step; stop once what goes clearly exceeds what we need.
            if covered - min(max_chars // 4, 40 * k) >= target_free:
                break
        part = view[eligible[0][0]: end]
        # The user's asks stay whole, beside the steps' room, while they and those the view's digests
        # hold fit the typed messages' own budget (an eighth of the window at most, as in a compaction
        # message): cut to their first 300 characters, an instruction lost its end from requests with
        # half the window free.
        asked = [len(t) for t in asks(part)]
        held = sum(len(line) for m in view for p in m.parts if isinstance(p, UserPromptPart) and is_digest(p)
                   for line in str(p.content).splitlines() if line.startswith("- User: "))
        whole = held + sum(asked) <= min(self.settings.user_messages_budget, budget.window // 8) * 4
        extra, longest = (sum(asked) + 40 * len(asked) + 30, max(asked, default=0)) if whole else (0, 300)
        text = (self.digest or (lambda ms: default_digest(ms, max_chars + extra, user_chars=max(300, longest))))(part)
        if not text.startswith(DIGEST_HEADER):
            text = f"{DIGEST_HEADER}\n{text}"
        if (plan := plan_note(part, view[end:])) is not None:
            text = f"{text}\n{plan}"
        ts = _timestamp(part[-1])
        stamp = (ts or budget.now).isoformat()
        first, last = message_key(part[0]), message_key(part[-1])
        cid = "c-" + hashlib.sha256(f"{first}\n{last}\n{text}".encode()).hexdigest()[:12]
        ids = [i for m in part for i in (call_ids(m) or return_ids(m)) if i]
        return Commit(id=cid, first=first, last=last, digest=text, timestamp=stamp, count=len(part),
                      ids=list(dict.fromkeys(ids)), time=budget.now.isoformat())

    @staticmethod
    def _project(view: list[ModelMessage], c: Commit) -> list[ModelMessage] | None:
        """`view` with the commit's range replaced by its digest, or None when the range is gone."""
        keys = [message_key(m) for m in view]
        try:
            a = keys.index(c.first)
            b = keys.index(c.last, a) + 1
        except ValueError:
            return None
        if b >= len(view):
            return None  # never the newest messages: the model has not acted on them
        prev = view[a - 1] if a > 0 else None
        first, nxt = view[a], view[b]
        safe = safe_cuts(view)
        if not (safe[a] and safe[b]):
            return None
        if isinstance(prev, ModelRequest):
            # Within a turn: the digest is appended to the request before the range (the ask, or
            # an earlier digest), and a request after the range joins it too.
            if isinstance(first, ModelRequest):
                return None
            before = ((prev.metadata or {}).get("compact_agent") or {}).get(LAYER) if isinstance(prev.metadata, dict) else None
            info = {"commits": [*((before or {}).get("commits") or []), c.id], "digest": True}
            digest = UserPromptPart(content=c.digest, timestamp=datetime.fromisoformat(c.timestamp))
            tail = list(nxt.parts) if isinstance(nxt, ModelRequest) else []
            merged_prev: ModelMessage = replace(prev, parts=[*prev.parts, digest, *tail],
                                                metadata=mark(prev.metadata, LAYER, info))
            rest = view[b + 1:] if isinstance(nxt, ModelRequest) else view[b:]
            return [*view[: a - 1], merged_prev, *rest]
        carried: list[Any] = []
        for p in first.parts if isinstance(first, ModelRequest) else []:
            if not (isinstance(p, SystemPromptPart) or is_digest(p)):
                break
            carried.append(p)
        prior = ((first.metadata or {}).get("compact_agent") or {}).get(LAYER) if isinstance(first.metadata, dict) else None
        info = {"commits": [*((prior or {}).get("commits") or []), c.id], "digest": True}
        ts = datetime.fromisoformat(c.timestamp)
        digest = UserPromptPart(content=c.digest, timestamp=ts)
        if isinstance(nxt, ModelRequest):
            merged: ModelMessage = replace(nxt, parts=[*carried, digest, *nxt.parts], metadata=mark(nxt.metadata, LAYER, info))
            return [*view[:a], merged, *view[b + 1 :]]
        request = ModelRequest(parts=[*carried, digest], timestamp=ts, metadata=mark(None, LAYER, info))
        return [*view[:a], request, *view[b:]]
