"""Fuzz every loader of persisted state: whatever bytes are on disk, loading never raises, the
history it yields is one a provider accepts, and warnings stay one line.

Session files (raw bytes, and line-level damage to a real file), the collapse commit log, the
notes file, and the frozen layer state (layers.json) — the last one also through a request, since
a state that loads but breaks the next request would end every turn.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from compact_agent.config import Limits, Settings
from compact_agent.context.compaction.notes_state import read_notes as _read_notes
from compact_agent.context.layers.collapse import read_log
from compact_agent.context.layers.order import default_layers
from compact_agent.context.pipeline import ContextManager
from compact_agent.context.plumbing import rounds
from compact_agent.context.wiring import Internals
from compact_agent.session.entries import _dump_message
from compact_agent.session.loading import _broken_pairs
from compact_agent.session.store import SessionStore, load_session_file

from .common import pairs_history

FUZZ = settings(max_examples=int(os.environ.get("FUZZ_EXAMPLES", "30")), deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture,
                                                                         HealthCheck.too_slow])

json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=20),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner, max_size=4),
    max_leaves=12,
)


def _check(loaded: Any) -> None:
    assert not _broken_pairs(loaded.messages)
    assert len(loaded.warnings) <= 1 and all("\n" not in w for w in loaded.warnings)


@FUZZ
@given(data=st.binary(max_size=3_000))
def test_session_loader_survives_any_bytes(tmp_path: Path, data: bytes) -> None:
    p = tmp_path / "s.jsonl"
    p.write_bytes(data)
    _check(load_session_file(p))


@FUZZ
@given(entries=st.lists(st.dictionaries(st.sampled_from(["v", "id", "parent", "kind", "message", "boundary",
                                                          "meta", "time"]), json_values, max_size=6), max_size=8),
       kinds=st.lists(st.sampled_from(["message", "boundary", "meta", "other"]), min_size=8, max_size=8))
def test_session_loader_survives_wrongly_typed_entries(tmp_path: Path, entries: list[dict[str, Any]],
                                                       kinds: list[str]) -> None:
    for e, k in zip(entries, kinds, strict=False):
        e.setdefault("kind", k)
    p = tmp_path / "s.jsonl"
    p.write_text("".join(json.dumps(e) + "\n" for e in entries))
    _check(load_session_file(p))


def _ops_of(*names: str) -> st.SearchStrategy[list[tuple[str, int, int, int]]]:
    return st.lists(st.tuples(st.sampled_from(names), st.integers(0, 40), st.integers(0, 40), st.integers(0, 500)),
                    max_size=6)


# Damage that loses or repeats whole lines, or cuts one: what crashes and copies do. A flipped byte
# inside valid JSON can change content undetectably (there is no checksum), so it is only checked
# for never raising.
_ops = _ops_of("drop", "dup", "swap", "cut", "garbage")
_any_ops = _ops_of("drop", "dup", "swap", "cut", "garbage", "flip")


def _damage(lines: list[bytes], ops: list[tuple[str, int, int, int]]) -> list[bytes]:
    out = list(lines)
    for op, i, j, k in ops:
        if not out:
            break
        i, j = i % len(out), j % len(out)
        if op == "drop":
            del out[i]
        elif op == "dup":
            out.insert(j, out[i])
        elif op == "swap":
            out[i], out[j] = out[j], out[i]
        elif op == "cut":
            out[i] = out[i][: k % max(1, len(out[i]))]
        elif op == "garbage":
            out.insert(i, bytes([k % 256]) * (k % 7 + 1) + b"\n")
        elif op == "flip" and out[i]:
            b = bytearray(out[i])
            b[k % len(b)] ^= 0x55
            out[i] = bytes(b)
    return out


def _real_file(tmp_path: Path) -> bytes:
    s = SessionStore(tmp_path / "r", "s1")
    if not s.path.exists():
        s.append(pairs_history(4))
        s.rewrite({"trigger": "auto", "strategy": "full", "tokens_before": 9, "tokens_after": 1, "archive": "a",
                   "time": "t"}, pairs_history(3))
    return s.path.read_bytes()


@FUZZ
@given(ops=_any_ops)
def test_any_damage_to_a_real_session_loads_valid(tmp_path: Path, ops: list[tuple[str, int, int, int]]) -> None:
    damaged = tmp_path / "d.jsonl"
    damaged.write_bytes(b"".join(_damage(_real_file(tmp_path).splitlines(keepends=True), ops)))
    _check(load_session_file(damaged))


@FUZZ
@given(ops=_ops)
def test_damaged_real_session_loads_valid_and_invents_nothing(tmp_path: Path, ops: list[tuple[str, int, int, int]]
                                                              ) -> None:
    original = _real_file(tmp_path)
    known = {json.dumps(json.loads(line)["message"], sort_keys=True) for line in original.splitlines()
             if json.loads(line)["kind"] == "message"}
    damaged = tmp_path / "d.jsonl"
    damaged.write_bytes(b"".join(_damage(original.splitlines(keepends=True), ops)))
    loaded = load_session_file(damaged)
    _check(loaded)
    for m in loaded.messages:
        synthesized = any((getattr(p, "metadata", None) or {}).get("pydantic_ai_synthesized_tool_return")
                          for p in m.parts)
        merged = len(m.parts) > 1  # the repair may merge neighbours: check part by part then
        if not synthesized and not merged:
            assert json.dumps(_dump_message(m), sort_keys=True) in known


def _commit_line(i: int) -> bytes:
    return json.dumps({"v": 1, "id": f"c-{i}", "first": "a", "last": "b", "digest": "d", "count": 2,
                       "timestamp": "2026-01-01T00:00:00+00:00", "ids": [], "time": f"2026-01-01T00:00:0{i}"}
                      ).encode() + b"\n"


@FUZZ
@given(data=st.binary(max_size=2_000), ops=_any_ops)
def test_collapse_log_loader_survives_anything(tmp_path: Path, data: bytes, ops: list[tuple[str, int, int, int]]
                                               ) -> None:
    p = tmp_path / "commits.jsonl"
    p.write_bytes(data)
    read_log(p)
    p.write_bytes(b"".join(_damage([_commit_line(i) for i in range(5)], ops)))
    commits = read_log(p)
    assert len({c.id for c in commits}) == len(commits)


@FUZZ
@given(data=st.binary(max_size=2_000) | st.text(max_size=500).map(str.encode))
def test_notes_loader_survives_anything(tmp_path: Path, data: bytes) -> None:
    p = tmp_path / "notes.md"
    p.write_bytes(data)
    notes = _read_notes(p)
    assert notes is None or isinstance(notes, str)


layer_state = st.fixed_dictionaries({}, optional={
    "budget": st.fixed_dictionaries({}, optional={"seen": json_values, "replacements": json_values,
                                                  "actions": json_values}),
    "snip": st.fixed_dictionaries({}, optional={"snipped": json_values}),
    "microcompact": st.fixed_dictionaries({}, optional={"cleared": json_values}),
    "collapse": st.fixed_dictionaries({}, optional={"commits": json_values}),
    "learned": st.fixed_dictionaries({}, optional={"report": json_values | st.lists(st.integers(), max_size=3),
                                                   "window": json_values}),
})


@FUZZ
@given(state=layer_state | json_values, ids=st.lists(st.sampled_from([f"call_{i}" for i in range(6)]), max_size=4))
def test_corrupt_layer_state_never_breaks_a_request(tmp_path: Path, state: Any, ids: list[str]) -> None:
    """layers.json is read on every start; a damaged one may cost re-deciding, never a failed request."""
    for body in state.values() if isinstance(state, dict) else ():  # aim garbage at ids in the history
        for key, value in list(body.items()) if isinstance(body, dict) else ():
            if isinstance(value, dict) and ids:
                body[key] = {i: value for i in ids}
    s = Settings(tool_result_max_chars=1_000, microcompact_trigger=2)
    cm = ContextManager.wired(Internals(limits=Limits.for_window(8_000, 2_000, s), summarizer=lambda _cm: None,  # type: ignore[arg-type,return-value]
                                        layers=default_layers(s, None)), settings=s)
    cm.load_layer_state(json.loads(json.dumps(state)))
    history = pairs_history(6, big=3_000)
    view, _ = cm.shape(list(history))
    assert rounds.unpaired(view) == (set(), set())
