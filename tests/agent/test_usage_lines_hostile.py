"""The usage a session recorded (usage.jsonl) is read back on resume and summed by `/cost`: a line
whose fields are of the wrong type (edited by hand, written by another version, torn) is skipped
when read, never a cost that fails to add up when `/cost` sums it ("can only concatenate str (not
"float") to str")."""

from __future__ import annotations

import io
import json
import os
from dataclasses import asdict
from pathlib import Path
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from pydantic_ai.usage import RequestUsage
from rich.console import Console

from compact_agent.agent.accounting.costs import UsageLedger, _entry, load_entries, report
from compact_agent.models import REGISTRY
from compact_agent.ui.session_views import render_cost

INFO = REGISTRY["deepseek-chat"]
GOOD = {"kind": "main", "model": asdict(INFO), "input": 1000, "read": 600, "write": 0, "output": 50, "avoided": 10}

json_values = st.recursive(
    st.none() | st.booleans() | st.integers(-(10**30), 10**30) | st.floats(allow_nan=False) | st.text(max_size=8),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=6), inner, max_size=3),
    max_leaves=6,
)
FIELDS = [*(k for k in GOOD if k != "model"), *(f"model.{k}" for k in asdict(INFO))]


def _with(field: str, value: Any) -> dict[str, Any]:
    line = json.loads(json.dumps(GOOD))
    *outer, last = field.split(".")
    (line[outer[0]] if outer else line)[last] = value
    return line


def _cost_text(path: Path) -> str:
    r = report(load_entries(path))
    console = Console(width=120, record=True, file=io.StringIO())
    console.print(render_cost(r, compactions=0))
    return console.export_text()


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(field=st.sampled_from(FIELDS), value=json_values)
def test_a_line_of_wrong_types_is_skipped_and_cost_still_adds_up(tmp_path: Path, field: str, value: Any) -> None:
    path = tmp_path / "usage.jsonl"
    path.write_text(json.dumps(GOOD) + "\n" + json.dumps(_with(field, value)) + "\n")
    entries = load_entries(path)
    assert entries[0].input_tokens == 1000 and len(entries) in (1, 2)
    assert "$" in _cost_text(path)


def test_a_price_given_as_a_string_or_infinity_is_skipped(tmp_path: Path) -> None:
    """The two a hand edit most likely writes: a price in quotes, and JSON's Infinity (which Python
    reads: a count of it failed with an overflow, a price of it made the cost infinite)."""
    lines = [json.dumps(_with("model.input", "0.27")), json.dumps(GOOD).replace("1000", "Infinity"),
             json.dumps(_with("model.output", float("inf"))), json.dumps(GOOD)]
    path = tmp_path / "usage.jsonl"
    path.write_text("\n".join(lines) + "\n")
    assert [e.input_tokens for e in load_entries(path)] == [1000]
    assert "$inf" not in _cost_text(path)


def test_what_the_ledger_writes_it_reads_back(tmp_path: Path) -> None:
    path = tmp_path / "usage.jsonl"
    ledger = UsageLedger(info=lambda: INFO, path=path)
    ledger._add(_entry("main", INFO, RequestUsage(input_tokens=500, cache_read_tokens=100, output_tokens=7), 3))
    [e] = load_entries(path)
    assert (e.info, e.input_tokens, e.cache_read, e.output_tokens, e.avoided) == (INFO, 500, 100, 7, 3)


def test_a_line_torn_by_a_crash_does_not_swallow_the_next_runs_request(tmp_path: Path) -> None:
    """A run killed mid-append leaves a line without its newline: the next run's first request was
    appended to it, one unreadable line, and `/cost` lost that request with the torn one."""
    path = tmp_path / "usage.jsonl"
    path.write_text(json.dumps(GOOD) + "\n" + json.dumps(GOOD)[:40])
    ledger = UsageLedger(info=lambda: INFO, path=path)
    for n in (500, 700):
        ledger._add(_entry("main", INFO, RequestUsage(input_tokens=n, output_tokens=7)))
    assert [e.input_tokens for e in load_entries(path)] == [1000, 500, 700]
    assert [e.input_tokens for e in UsageLedger(info=lambda: INFO, path=path).earlier] == [1000, 500, 700]


def test_a_short_write_to_a_full_disk_does_not_swallow_the_next_request(tmp_path: Path, monkeypatch) -> None:
    path = tmp_path / "usage.jsonl"
    ledger = UsageLedger(info=lambda: INFO, path=path)
    write = os.write
    monkeypatch.setattr(os, "write", lambda fd, data: write(fd, data[:25]))  # the disk took 25 bytes
    ledger._add(_entry("main", INFO, RequestUsage(input_tokens=500, output_tokens=7)))
    monkeypatch.setattr(os, "write", write)  # room again
    ledger._add(_entry("main", INFO, RequestUsage(input_tokens=700, output_tokens=7)))
    assert [e.input_tokens for e in load_entries(path)] == [700]
