"""What a conversation's manager saves beside its history, and takes back after a restart.

The layers' frozen decisions (`layers/frozen.py`) must come back exactly, or a resumed session sends
another prefix and loses the prompt cache. Beside them, under `LEARNED`, goes what the schedule
learned that a restart would otherwise measure again, each for a reason a test pins:

- `handler_instructs`: `before_compact` has answered with instructions (a record would not follow them);
- `window`: the server's own limit, where it refused a request below the window given (and which server:
  taken back only by a conversation given that window and sent to that server); `window_model`: the model
  it was learned for (`overflow.model_key`): the conversation is held to it on that model alone (it used
  to hold whichever model the first request went to);
- `report`: the latest usage report (a server that cuts prompts says so only in two reports in a row);
  `report_media`: of its estimate, the images at a flat size, which no growth judged a cut weighs
  (without it the next run's first comparison weighed them at 1,600 tokens each: a cut went unseen);
- `thinking`: what the provider counts of the model's thinking (plumbing/thinking.py: estimates leave out
  what it does not); it and `report` are of the server named in `measured_at`, and taken back only by a
  conversation sent to that server (another model counts otherwise: its first request went over the window);
- `savings`: what the layers' decisions keep out, which the next process counts from;
- `failures`: automatic compactions that failed in a row (a paused breaker stays paused until
  `breaker_retry_at`, the UTC time its cool-down ends, breaker_retry.py: saved without it, or damaged, it
  is tried at the first compaction the next run needs, as one an archive that could not be written paused
  is, `archive_paused`);
- `longest_answer` and `summary`: the output reserve, and so the threshold, follows them;
- `thrash`: the thrash guard's level and the latest compaction it goes by (compacting.py `thrash_state`):
  without it each `-c` run began with the guard at rest, and a small window compacted on every run;
- `thinking_left_out`: the model's earlier thinking is left out of the requests (decisions/thinking_out.py),
  before the layers shape them: a restart decided it again after the layers, which weighed it, on its first
  request.

`SavedState` is a part of `ManagerState` (state.py); `_Manager` says what it uses of the rest.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from datetime import datetime
from typing import Any, Protocol, cast

from pydantic_ai.exceptions import UserError

from . import breaker_retry
from .decisions.schedule import Schedule
from .layers import frozen
from .plumbing import tokens
from .plumbing.events import Event, one_line
from .plumbing.overflow import LearnedWindow, ModelWindows
from .plumbing.settings import Limits, kind
from .wiring import Layer

#: The key, beside the layers' names, of what the manager learned and saves with their decisions.
LEARNED = "learned"


class _Manager(Protocol):
    """What of the manager (`ManagerState`) the saved state reads and sets."""

    layers: list[Layer]
    limits: Limits
    schedule: Schedule
    calibration: tokens.Calibration
    output_caps: dict[str, int]
    handler_instructs: bool
    window_learned: LearnedWindow | None
    _windows: ModelWindows
    server: str | None
    failures: int
    archive_retry_at: int | None
    breaker_retry_at: datetime | None
    thinking_left_out: bool
    save_state: Callable[[dict[str, Any]], None] | None
    _prev_savings: dict[str, int]
    _rebaseline: bool
    _saved_state: str

    def set_window(self, window: int) -> None: ...
    def adapt_output_reserve(self, output_tokens: int) -> None: ...
    def emit(self, event: Event) -> None: ...
    def layer_state(self) -> dict[str, Any]: ...
    def thrash_state(self) -> list[int] | None: ...
    def recall_thrash(self, saved: object) -> None: ...


class SavedState:
    """Saving and re-applying the layers' decisions and what the schedule learned (module docstring)."""

    window_learned: LearnedWindow | None  # set here too: its type is the manager's, not the one set
    # When a pause of automatic compaction ends: a pause by an unwritten archive at this request
    # (`ARCHIVE_RETRY`), another at this time (both breaker_retry.py). Set on the instance, these are the defaults.
    archive_retry_at: int | None = None
    breaker_retry_at: datetime | None = None
    took_saved: bool = False  # it took a saved state given for its conversation (`taken_back`, unclaimed.py)

    def layer_state(self: _Manager) -> dict[str, Any]:
        """The layers' decisions, with what was learned under `LEARNED` (only what there is)."""
        state = frozen.layer_state(self.layers)
        learned: dict[str, Any] = {"handler_instructs": True} if self.handler_instructs else {}
        if self.window_learned is not None:
            learned["window"] = self.window_learned.to_json()
            if (model := self._windows.model or self._windows.restored) is not None:
                learned["window_model"] = model
        if (report := self.calibration.kept_report()) is not None:  # the next run's first is compared with it
            learned["report"] = list(report)
            if (media := _report_media(self.calibration)) > 0:
                learned["report_media"] = media
        if (thinking := self.calibration.thinking.to_json()) is not None:
            learned["thinking"] = thinking
        if self.server is not None and ("report" in learned or "thinking" in learned):
            learned["measured_at"] = self.server
        if savings := {name: n for name, n in self._prev_savings.items() if n}:
            learned["savings"] = savings
        if self.failures:
            learned["failures"] = self.failures
            if self.archive_retry_at is not None:  # paused by an archive not written (compacting.py)
                learned["archive_paused"] = True
            elif self.breaker_retry_at is not None:  # paused until its cool-down ends (breaker_retry.py)
                learned["breaker_retry_at"] = breaker_retry.to_json(self.breaker_retry_at)
        if self.schedule.max_output_seen:
            learned["longest_answer"] = self.schedule.max_output_seen
        if self.schedule.full_summaries:
            learned["summary"] = [self.schedule.summary_tokens, self.schedule.full_summaries]
        if self.schedule.summary_sent:
            learned["summary_cache"] = [self.schedule.summary_sent, self.schedule.summary_cached]
        if self.output_caps:  # what models write at most, as their refusals said (measuring.py)
            learned["output_caps"] = dict(self.output_caps)
        if self.thinking_left_out:
            learned["thinking_left_out"] = True
        if (thrash := self.thrash_state()) is not None:
            learned["thrash"] = thrash
        if learned:
            state[LEARNED] = learned
        return state

    def load_layer_state(self, state: dict[str, Any], conversation_id: str | None = None) -> None:
        """Re-apply frozen decisions after a restart, so a resumed session sends the same prefix.
        With `conversation_id`, to that conversation's state: now if this manager serves it, else
        held until its first run here (`taken_back`); without it, to the conversation this manager
        serves first, refused once it serves several (whose state it is could not be told)."""
        check_loaded(state, conversation_id)
        manager = cast(_Serving, self)
        if conversation_id is None:
            if manager._others:
                raise UserError(f"this ContextManager serves {len(manager._others) + 1} conversations: say whose "
                                "saved state this is, load_layer_state(state, conversation_id=...)")
            apply_state(cast(_Manager, self), state)
        elif manager._conversation == conversation_id:
            apply_state(cast(_Manager, self), state)
        elif (other := manager._others.get(conversation_id)) is not None:
            apply_state(cast(_Manager, other), state)
        else:
            waiting_states(self)[conversation_id] = state

    def thrash_state(self) -> list[int] | None:
        """The thrash guard's state to save (compacting.py, which keeps the guard, says it)."""
        return None

    def recall_thrash(self, saved: object) -> None:
        """Take back what `thrash_state` saved (compacting.py)."""

    def _reset_layer(self, layer: Any, error: BaseException) -> None:
        frozen.reset_layer(layer, error)

    def _save_layer_state(self: _Manager) -> None:
        """Save the decisions when this request changed them (`save_state`, wired in by the agent)."""
        if self.save_state is None:
            return
        state = self.layer_state()
        key = frozen.state_key(state)
        if key != getattr(self, "_saved_state", None):
            try:
                self.save_state(state)
                self._saved_state = key
            except OSError as e:
                self.emit(Event("state", "save_failed", detail={"error": one_line(e)}))


def check_loaded(state: object, conversation_id: object) -> None:
    """`load_layer_state`'s arguments: the saved JSON text passed for the state it holds (`json.loads`
    forgotten) was only a warning that every layer starts afresh, a conversation id that is no text kept
    where no run's id matches it. Text that holds no JSON object is a damaged state, warned of (`frozen`)."""
    if isinstance(state, str | bytes | bytearray):
        try:
            holds_object = isinstance(json.loads(state), dict)
        except (ValueError, RecursionError):
            holds_object = False
        if holds_object:
            raise TypeError("load_layer_state takes the state layer_state() returned (a dict), not its JSON text "
                            f"({type(state).__name__}): pass json.loads(text)")
    if conversation_id is not None and not isinstance(conversation_id, str):
        raise TypeError("load_layer_state: conversation_id must be the conversation's id, a str (as the run's "
                        f"conversation_id), not {kind(conversation_id)}")


def apply_state(cm: _Manager, state: dict[str, Any]) -> None:
    """`load_layer_state` on the conversation's own state."""
    frozen.load_layer_state(cm.layers, state, besides=(LEARNED,))
    learned = state.get(LEARNED) if isinstance(state, dict) else None
    if learned is not None and not isinstance(learned, dict):
        frozen.log.warning("what the saved state learned is not a JSON object (%s); it is measured again",
                           type(learned).__name__)
    learned = usable(learned) if isinstance(learned, dict) else {}
    if learned.get("handler_instructs") is True:
        cm.handler_instructs = True
    if learned.get("measured_at") == cm.server:  # another server or model counts otherwise
        cm.calibration.recall_report(learned.get("report"), learned.get("thinking"))
        _recall_media(cm.calibration, learned.get("report"), learned.get("report_media"))
    _recall_answers(cm, learned)
    window = LearnedWindow.from_json(learned.get("window"))
    # Given another window, or sent to another server (or model), the conversation is not held to this
    # server's limit; a pair saved without the server is taken back only where none is named either.
    model = learned.get("window_model")  # the model it was learned for (None: saved without it)
    if window is not None and window.given == cm.limits.window and window.server == cm.server:
        if model is not None and cm._windows.model not in (None, model):  # the conversation is on another now
            cm._windows.learned[model] = window
        else:
            cm.set_window(window.window)
            cm.window_learned, cm._windows.restored = window, model  # until the first request (lifecycle.window_from)
    # The first request re-applies these decisions: what they keep out was counted (and said, in
    # an event's `freed`) by the process that made them, so this one counts from there (shaping.account).
    cm._prev_savings = savings_of(learned.get("savings"))
    failures = learned.get("failures")
    cm.failures = failures if type(failures) is int and failures > 0 else 0
    cm.archive_retry_at = 0 if cm.failures and learned.get("archive_paused") is True else None  # tried at once
    # Paused otherwise: until the saved time; at once where none was saved, or none can be read (`usable`).
    retry_at = breaker_retry.from_json(learned.get("breaker_retry_at"))
    paused = cm.failures >= cm.limits.max_consecutive_failures and cm.archive_retry_at is None
    cm.breaker_retry_at = (retry_at or breaker_retry.DUE_NOW) if paused else None
    cm.thinking_left_out = learned.get("thinking_left_out") is True
    cm.recall_thrash(learned.get("thrash"))
    cm._rebaseline = True
    cm._saved_state = frozen.state_key(cm.layer_state())


#: What `layer_state` saves under `LEARNED`, by the JSON type each is saved as.
_LEARNED_TYPES: dict[str, type] = {
    "handler_instructs": bool, "window": list, "window_model": str, "report": list, "report_media": int, "thinking": dict,
    "measured_at": str, "savings": dict, "failures": int, "archive_paused": bool, "breaker_retry_at": str,
    "longest_answer": int, "summary": list, "summary_cache": list, "output_caps": dict, "thinking_left_out": bool,
    "thrash": list}


def usable(learned: dict[str, Any]) -> dict[str, Any]:
    """What was learned, less what a damaged (or hand-edited) state holds that cannot be used: each such
    part named in a warning, as the layers' are (layers/frozen.py). It is measured again, which costs
    some cache or an early compaction, never a message."""
    kept: dict[str, Any] = {}
    for key, value in learned.items():
        kind = _LEARNED_TYPES.get(key)
        if kind is None:
            frozen.log.warning("the saved state learned %r, which is not known here; it is left out", key)
        elif type(value) is not kind or (key == "window" and LearnedWindow.from_json(value) is None) or (
                key == "breaker_retry_at" and breaker_retry.from_json(value) is None):
            frozen.log.warning("what the saved state learned of %r is unusable (%s); it is measured again",
                               key, one_line_value(value))
        else:
            kept[key] = value
    return kept


def one_line_value(value: object) -> str:
    """A saved value as a warning names it: short, on one line."""
    said = repr(value).replace("\n", " ")
    return said if len(said) <= 60 else said[:57] + "..."


class _Serving(Protocol):
    """What of the manager says which conversations it serves (lifecycle.py)."""

    _conversation: str | None
    _others: dict[str, SavedState]


def waiting_states(cm: object) -> dict[str, dict[str, Any]]:
    """The saved states given for conversations this manager has not served yet, by their id."""
    return cast(dict[str, dict[str, Any]], vars(cm).setdefault("_waiting_states", {}))


def taken_back(cm: SavedState, conversation_id: str, state: SavedState) -> None:
    """`state` now serves `conversation_id` (its first run on `cm`): the saved state given for it, if any."""
    saved = waiting_states(cm).pop(conversation_id, None)
    if saved is not None:
        apply_state(cast(_Manager, state), saved)
        state.took_saved = True  # it is that conversation's now (unclaimed.py)


def _report_media(calibration: tokens.Calibration) -> int:
    """Of the kept report's estimate, the media at a flat size (`Calibration.observe`'s `flat`, kept
    with the thinking as what the provider may count otherwise): what is neither thinking."""
    c = calibration
    return 0 if c.kept_report() is None else max(0, c._last_unsure - c._last_earlier - c._last_current)


def _recall_media(calibration: tokens.Calibration, report: object, media: object) -> None:
    """`report_media` taken back with the report it is of (`recall_report` took it: this process had
    none of its own), so the first report here is compared with the one before less its images."""
    c = calibration
    kept = c.kept_report()
    if (isinstance(media, int) and not isinstance(media, bool) and media > 0 and kept is not None
            and isinstance(report, list) and list(kept) == report and c._last_unsure + media <= kept[1]):
        c._last_unsure += media


def _recall_answers(cm: _Manager, learned: dict[str, Any]) -> None:
    """The longest answer, the summaries' size and their cache reads a restart would otherwise
    measure again (the longest answer: until
    then its threshold sat at the configured reserve's, lower than the one the run before had
    reached, and the session resumed with `-c` compacted earlier than it would have run on."""
    summary = learned.get("summary")
    if (isinstance(summary, list) and len(summary) == 2
            and all(type(n) is int and n > 0 for n in summary)):
        cm.schedule.summary_tokens, cm.schedule.full_summaries = summary
    cache = learned.get("summary_cache")
    if (isinstance(cache, list) and len(cache) == 2 and all(type(n) is int for n in cache)
            and 0 <= cache[1] <= cache[0] and cache[0] > 0):
        cm.schedule.summary_sent, cm.schedule.summary_cached = cache
        cm.schedule.caches_reported = True
    longest = learned.get("longest_answer")
    if type(longest) is int and longest > 0:
        cm.schedule.max_output_seen = max(cm.schedule.max_output_seen, longest)
        cm.adapt_output_reserve(0)
    caps = learned.get("output_caps")
    if isinstance(caps, dict):  # a run of one of these models asks for no more (pipeline.py)
        cm.output_caps.update({k: v for k, v in caps.items() if isinstance(k, str) and type(v) is int and v > 0})


def savings_of(saved: object) -> dict[str, int]:
    """The savings per layer a saved state counts from (`layer_state`'s "savings"); a damaged
    entry counts from nothing, as a session saved before they were kept does."""
    if not isinstance(saved, dict):
        return {}
    return {k: v for k, v in saved.items() if isinstance(k, str) and type(v) is int}
