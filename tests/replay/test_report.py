"""Cost arithmetic, retention, the JSON and the chart; and our own session format rebuilt from archives."""

from __future__ import annotations

import json
import os
from pathlib import Path
from xml.etree import ElementTree

import pytest
from pydantic_ai.messages import (
    ModelRequest,
    ModelResponse,
    TextPart,
    ToolCallPart,
    ToolReturnPart,
    UserPromptPart,
)
from pydantic_ai.usage import RequestUsage

from compact_agent.context.compaction import summary
from compact_agent.models import PRICING
from compact_agent.replay import report
from compact_agent.replay.baselines import STRATEGIES
from compact_agent.replay.finding import find_files
from compact_agent.replay.importers import load_transcript
from compact_agent.replay.metrics import measure, request_cost
from compact_agent.replay.plot import COLORS, svg
from compact_agent.replay.retention import Truth, changed_paths, retention_of
from compact_agent.replay.simulate import Request, StrategyRun, view_text
from compact_agent.session.store import SessionStore

#: The strategies the analyzer runs, in its order, as the JSON and the chart give them.
NAMES = ["ours", "none", "seed000", "seed000-submit", "codex", "masking", "opencode", "gemini", "cline", "anthropic-clear"]


def strategy_list_problems(ran: list[str], colours: dict[str, str]) -> list[str]:
    """What a strategy added to or removed from the analyzer leaves to change, in words that say where:
    NAMES here, and a colour in replay/plot.py's COLORS for its line of the chart."""
    problems = []
    if ran != NAMES:
        problems.append(f"the analyzer ran {ran}, NAMES in tests/replay/test_report.py says {NAMES}: "
                        "a strategy added to baselines.STRATEGIES (src/compact_agent/replay/baselines.py) or taken "
                        "out of it goes in NAMES (or out of it) too, in the order STRATEGIES gives")
    if uncoloured := [n for n in ran if n not in colours]:
        problems.append(f"give {', '.join(uncoloured)} a colour of its own for its line of the chart: COLORS in "
                        "src/compact_agent/replay/plot.py (one no other line has, with 3:1 contrast on white)")
    return problems


# --- cost ------------------------------------------------------------------------------------------------


def test_cost_of_one_request_by_hand():
    r = Request("main", tokens=10_000, cached=8_000, output=100)
    # DeepSeek: 2,000 misses at $0.28/M, 8,000 hits at $0.028/M, 100 out at $0.42/M; no cache-write charge.
    assert request_cost(r, PRICING["deepseek"]) == pytest.approx((2_000 * 0.28 + 8_000 * 0.028 + 100 * 0.42) / 1e6)
    # Anthropic (Sonnet): the uncached 2,000 are written to the cache at $3.75/M.
    assert request_cost(r, PRICING["anthropic"]) == pytest.approx((8_000 * 0.30 + 2_000 * 3.75 + 100 * 15.0) / 1e6)


def test_totals_and_summary_share_by_hand():
    run = StrategyRun("x", "t", 10_000, requests=[
        Request("main", 1_000, 0, 10), Request("summary", 1_000, 900, 200), Request("main", 2_000, 1_000, 10, False),
        Request("main", 12_000, 2_000, 10, True)], series=[1_000, 2_000, 12_000], compaction_points=[1])
    m = measure([run], PRICING["deepseek"])
    assert (m.requests, m.peak, m.over_window, m.compactions, m.summary_calls) == (3, 12_000, 1, 1, 1)
    assert m.input_tokens == 16_000 and m.cached_tokens == 3_900 and m.output_tokens == 230
    summary_cost = (100 * 0.28 + 900 * 0.028 + 200 * 0.42) / 1e6
    assert m.summary_cost == pytest.approx(summary_cost)
    assert m.summary_share == pytest.approx(summary_cost / m.cost)
    assert m.mean == pytest.approx(5_000)


def test_cost_parts_by_hand_sum_to_the_cost_and_rebuild_misses_are_counted():
    run = StrategyRun("x", "t", 50_000, requests=[
        Request("main", 10_000, 0, 100), Request("summary", 10_000, 9_000, 500), Request("notes", 4_000, 3_000, 300),
        Request("main", 3_000, 1_000, 100, rebuild=True), Request("main", 4_000, 3_000, 100)],
        series=[10_000, 3_000, 4_000], compaction_points=[1])
    for pricing in ("deepseek", "anthropic"):
        price = PRICING[pricing]
        m = measure([run], price)
        miss = price.cache_write or price.input
        assert m.cost_parts["hit"] == pytest.approx(4_000 * price.cache_read / 1e6)
        assert m.cost_parts["miss"] == pytest.approx(13_000 * miss / 1e6)
        assert m.cost_parts["output"] == pytest.approx(300 * price.output / 1e6)
        assert m.cost_parts["summary"] == pytest.approx(request_cost(run.requests[1], price))
        assert m.cost_parts["notes"] == pytest.approx(request_cost(run.requests[2], price))
        assert sum(m.cost_parts.values()) == pytest.approx(m.cost)
        assert (m.miss_tokens, m.rebuild_miss_tokens) == (13_000, 2_000)
        assert m.to_json()["cost_parts"].keys() == {"hit", "miss", "output", "summary", "notes", "reread"}


# --- retention -------------------------------------------------------------------------------------------


def test_retention_on_a_hand_made_example():
    history = [
        ModelRequest(parts=[UserPromptPart("Port the parser to Rust.   Keep the tests green.")]),
        ModelResponse(parts=[ToolCallPart("Edit", {"file_path": "src/parse.rs"}, tool_call_id="a"),
                             ToolCallPart("write_file", {"path": "tests/t.rs"}, tool_call_id="b"),
                             ToolCallPart("apply_patch", {"input": "*** Update File: Cargo.toml\n@@"}, tool_call_id="c")]),
        ModelRequest(parts=[ToolReturnPart("Edit", "ok", tool_call_id="a"), ToolReturnPart("write_file", "ok", tool_call_id="b"),
                            ToolReturnPart("apply_patch", "ok", tool_call_id="c"),
                            UserPromptPart("Also add a benchmark " + "with many details " * 20)]),
    ]
    assert changed_paths(history) == ["src/parse.rs", "tests/t.rs", "Cargo.toml"]
    truth = Truth()
    truth.add(history)
    # What a strategy sent after compacting: the first message verbatim (whitespace aside), one path,
    # and the last request cut after 200 characters (still counts: the first 200 are compared).
    sent = [ModelRequest(parts=[UserPromptPart("Summary. Port the parser to Rust. Keep the tests green. "
                                               "Changed src/parse.rs. Also add a benchmark " + "with many details " * 11)])]
    r = retention_of(truth, view_text(sent))
    assert r.users == 1.0 and r.last_request
    assert r.files == pytest.approx(1 / 3)
    r2 = retention_of(truth, view_text([ModelRequest(parts=[UserPromptPart("Also add a benchmark")])]))
    assert r2.users == 0.0 and not r2.last_request and r2.files == 0.0


# --- JSON and chart ----------------------------------------------------------------------------------------


async def test_json_has_every_figure_per_strategy_and_totals(tmp_path: Path):
    path = tmp_path / "chat.json"
    chat: list[dict] = [{"role": "user", "content": "go"}]
    for i in range(15):
        chat.append({"role": "assistant", "content": f"step {i}", "tool_calls": [
            {"id": f"c{i}", "type": "function", "function": {"name": "bash", "arguments": json.dumps({"command": "ls"})}}]})
        chat.append({"role": "tool", "tool_call_id": f"c{i}", "content": "x" * 3_000})
    chat.append({"role": "assistant", "content": "done"})
    path.write_text(json.dumps(chat))
    analysis = await report.analyze([path], window=8_000)
    data = report.to_json(analysis)
    json.dumps(data)
    names = [r["strategy"] for r in data["transcripts"][0]["results"]]
    problems = strategy_list_problems(names, COLORS)
    assert not problems, "; ".join(problems)
    ours = data["transcripts"][0]["results"][0]
    for key in ("requests", "peak", "mean", "over_window", "compactions", "input_tokens", "cached_tokens",
                "output_tokens", "cost", "summary_share", "freed_per_request", "compaction_freed",
                "retention_users", "retention_files", "retention_last"):
        assert key in ours
    assert ours["over_window"] == 0
    assert [r["strategy"] for r in data["totals"]] == names
    for entry in [*data["totals"], *data["transcripts"][0]["results"]]:
        assert sum(entry["cost_parts"].values()) == pytest.approx(entry["cost"], abs=1e-5)
        assert 0 <= entry["rebuild_miss_tokens"] <= entry["miss_tokens"]
        assert (entry["rebuild_miss_tokens"] > 0) == (entry["compactions"] > 0)
    doc = ElementTree.fromstring(svg(analysis.runs, analysis.window, ["chat.json"]))
    lines = doc.findall(".//{http://www.w3.org/2000/svg}polyline")
    assert len(lines) == len(names)


# --- our own session format -------------------------------------------------------------------------------


def _exchange(i: int, size: int = 200) -> list:
    return [ModelResponse(parts=[TextPart(f"step {i}"), ToolCallPart("read_file", {"path": f"f{i}"}, tool_call_id=f"c{i}")],
                          usage=RequestUsage(input_tokens=100 * i + 50, output_tokens=10), model_name="m"),
            ModelRequest(parts=[ToolReturnPart("read_file", "y" * size, tool_call_id=f"c{i}")])]


def test_compact_agent_sessions_are_rebuilt_across_compactions(tmp_path: Path):
    store = SessionStore(tmp_path, "s1")
    first = [ModelRequest(parts=[UserPromptPart("survey the code")]), *[m for i in range(4) for m in _exchange(i)]]
    store.append(first)
    # A compaction: archive, then summary + restored read + the kept tail (the last exchange again).
    archive = store.archive()
    meta = {"compact_agent": {"synthetic": "restore"}}
    restored = [ModelResponse(parts=[ToolCallPart("read_file", {"path": "f1"}, tool_call_id="restore_1")], metadata=meta),
                ModelRequest(parts=[ToolReturnPart("read_file", "y" * 200, tool_call_id="restore_1", metadata=meta)],
                             metadata=meta)]
    head = summary.summary_message("they surveyed f0..f3", archive, ["survey the code"])
    store.rewrite({"trigger": "auto", "strategy": "full", "tokens_before": 900, "tokens_after": 300,
                   "archive": str(archive), "time": ""}, [head, *restored, *first[-2:]])
    store.append([m for i in range(4, 6) for m in _exchange(i)])
    # A second compaction on top of the first.
    archive2 = store.archive()
    store.rewrite({"trigger": "auto", "strategy": "full", "tokens_before": 800, "tokens_after": 200,
                   "archive": str(archive2), "time": ""},
                  [summary.summary_message("more", archive2, []), *store.load().messages[-2:]])
    store.append(_exchange(6))
    t = load_transcript(store.path)
    assert t.format == "compact-agent"
    calls = [p.tool_call_id for m in t.messages for p in m.parts if isinstance(p, ToolCallPart)]
    assert calls == [f"c{i}" for i in range(7)]  # every call once: no summary, no restored read, no duplicate tail
    assert not any(summary.is_summary(m) for m in t.messages)
    assert [c["message_index"] for c in t.recorded_compactions] == [9, 13]
    assert len(t.recorded_compactions) == 2
    # Pointed at the project folder: the session once; its archives and side files are not transcripts.
    store.event_log.append({"layer": "budget", "action": "spill"})
    (store.side_dir("tool-results") / "call.txt").write_text("spilled output")
    found, notes, skipped = find_files([tmp_path])
    assert found == [store.path] and skipped == 2
    assert notes == ["skipped 2 compaction archives in compact-history/: each session file is replayed in full from them"]


def _calls(messages: list) -> list[str]:
    return [p.tool_call_id for m in messages for p in m.parts if isinstance(p, ToolCallPart)]


def _prompts(messages: list) -> list[object]:
    return [p.content for m in messages for p in m.parts if isinstance(p, UserPromptPart)]


def test_a_message_typed_after_a_compaction_that_repeats_an_earlier_one_is_replayed(tmp_path: Path):
    """What follows the kept tail is new, even where the same words were typed before it."""
    store = SessionStore(tmp_path, "s4")
    done = ModelResponse(parts=[TextPart("done")], model_name="m")
    first = [ModelRequest(parts=[UserPromptPart("go on")]), *_exchange(0), *_exchange(1), done]
    store.append(first)
    archive = store.archive()
    store.rewrite({"trigger": "auto", "strategy": "full", "tokens_before": 900, "tokens_after": 300,
                   "archive": str(archive), "time": ""},
                  [summary.summary_message("they read f0, f1", archive, ["go on"]), *first[-3:]])
    store.append([ModelRequest(parts=[UserPromptPart("go on")]), *_exchange(2), done])
    t = load_transcript(store.path)
    assert _prompts(t.messages) == ["go on", "go on"]
    assert _calls(t.messages) == ["c0", "c1", "c2"]
    assert [c["message_index"] for c in t.recorded_compactions] == [6]


def test_results_a_compaction_kept_apart_are_replayed_once_where_they_first_came(tmp_path: Path):
    """A compaction keeps a result still in use as its own call and result (marked `kept`): the same
    exchange the archive holds inside a larger response, so it is no new step. The plan it gives
    back is no step either, nor does it hide the tail after it."""
    store = SessionStore(tmp_path, "s5")
    first = [ModelRequest(parts=[UserPromptPart("survey the code")]), *[m for i in range(4) for m in _exchange(i)]]
    store.append(first)
    archive = store.archive()
    kept_meta = {"compact_agent": {"synthetic": "kept"}}
    call = next(p for p in first[3].parts if isinstance(p, ToolCallPart))
    kept = [ModelResponse(parts=[call], metadata=kept_meta), ModelRequest(parts=[first[4].parts[0]], metadata=kept_meta)]
    head = summary.summary_message("they surveyed f0..f3", archive, ["survey the code"])
    plan = ModelRequest(parts=[UserPromptPart("[compact-agent: plan]\n- [ ] read f4")])  # given back after it
    store.rewrite({"trigger": "auto", "strategy": "full", "tokens_before": 900, "tokens_after": 300,
                   "archive": str(archive), "time": ""}, [head, plan, *kept, *first[-2:]])
    store.append(_exchange(4))
    t = load_transcript(store.path)
    assert _calls(t.messages) == [f"c{i}" for i in range(5)]
    assert [c["message_index"] for c in t.recorded_compactions] == [9]


def test_an_input_cut_to_the_servers_window_is_replayed_as_sent_and_is_no_compaction(tmp_path: Path):
    """A refusal that taught a smaller window rewrote the newest prompt cut (trigger input_cut): the
    model saw the cut one, so the replay sends it once, in its place, and counts no compaction."""
    store = SessionStore(tmp_path, "s3")
    store.append([m for i in range(2) for m in _exchange(i)])
    whole = ModelRequest(parts=[UserPromptPart("log line\n" * 2_000 + "why does it fail?")])
    store.append([whole])
    archive = store.archive()
    cut = ModelRequest(parts=[UserPromptPart("log line\n[... cut ...]\nwhy does it fail?")])
    store.rewrite({"trigger": "input_cut", "strategy": "replace", "tokens_before": 0, "tokens_after": 0,
                   "archive": str(archive), "time": ""}, [*store.load().messages[:-1], cut])
    store.append(_exchange(2))
    t = load_transcript(store.path)
    prompts = [p.content for m in t.messages for p in m.parts if isinstance(p, UserPromptPart)]
    assert cut.parts[0].content in prompts and whole.parts[0].content not in prompts
    assert [p.tool_call_id for m in t.messages for p in m.parts if isinstance(p, ToolCallPart)] == ["c0", "c1", "c2"]
    assert t.recorded_compactions == []


def test_a_missing_archive_replays_what_the_file_holds(tmp_path: Path):
    store = SessionStore(tmp_path, "s2")
    gone = store.archive_dir / "s2-20261201-120000-000000.jsonl"  # named as the agent names it, deleted since
    store.rewrite({"trigger": "auto", "strategy": "full", "tokens_before": 1, "tokens_after": 1,
                   "archive": str(gone), "time": ""},
                  [summary.summary_message("s", None, []), *_exchange(1)[:1], _exchange(1)[1]])
    t = load_transcript(store.path)
    assert (f"s2.jsonl: the archive before a full compaction is missing: no {gone.name} in "
            f"{os.path.realpath(gone.parent)}/; replaying from the compacted history") in t.warnings
    assert [p.tool_call_id for m in t.messages for p in m.parts if isinstance(p, ToolCallPart)] == ["c1"]


async def test_a_real_model_makes_every_summary_and_notes_call(tmp_path: Path):
    """`--model`: the summarizer (and our session notes) go through a model; FunctionModel stands in."""
    from pydantic_ai.models.function import FunctionModel

    from compact_agent.context.compaction.summarizer import SharedPrefixSummarizer

    seen: list[int] = []

    def model(messages, info):
        seen.append(len(messages))
        body = "\n".join(f"# {s}\n- noted" for s in ("Task and intent", "User instructions and constraints (verbatim)",
                                                       "Files read and changed (current state)", "Decisions",
                                                       "Errors and fixes", "Current state", "Next steps"))
        return ModelResponse(parts=[TextPart(f"<summary>the work so far, in short</summary>\n<notes>\n{body}\n</notes>")])

    chat: list[dict] = [{"role": "user", "content": "go"}]
    for i in range(40):
        chat.append({"role": "assistant", "content": f"step {i}", "tool_calls": [
            {"id": f"c{i}", "type": "function", "function": {"name": "lookup", "arguments": "{}"}}]})
        chat.append({"role": "tool", "tool_call_id": f"c{i}", "content": f"result {i} " + "z" * 2_000})
    chat.append({"role": "assistant", "content": "done"})
    path = tmp_path / "chat.json"
    path.write_text(json.dumps(chat))
    analysis = await report.analyze([path], window=12_000, summarize=SharedPrefixSummarizer(FunctionModel(model)))
    rows = {m.strategy: m for m in analysis.metrics(analysis.runs[0])}
    side_calls = sum(m.summary_calls for m in rows.values())
    assert seen and len(seen) >= side_calls > 0
    assert rows["ours"].over_window == 0


def test_every_strategy_has_its_own_colour_readable_on_white():
    def luminance(hex_colour: str) -> float:
        channels = [int(hex_colour[i:i + 2], 16) / 255 for i in (1, 3, 5)]
        lin = [c / 12.92 if c <= 0.03928 else ((c + 0.055) / 1.055) ** 2.4 for c in channels]
        return 0.2126 * lin[0] + 0.7152 * lin[1] + 0.0722 * lin[2]

    problems = strategy_list_problems(list(STRATEGIES), COLORS)
    assert not problems, "; ".join(problems)
    alike = sorted(s for s in STRATEGIES if [COLORS[t] for t in STRATEGIES].count(COLORS[s]) > 1)
    assert not alike, f"{', '.join(alike)} share a colour (COLORS in src/compact_agent/replay/plot.py): no two lines alike"
    for name in STRATEGIES:  # WCAG's 3:1 for the lines of a chart against its white background
        assert 1.05 / (luminance(COLORS[name]) + 0.05) >= 3.0, (
            f"{name}'s colour {COLORS[name]} is too light on white (under 3:1): a darker one in COLORS, "
            "src/compact_agent/replay/plot.py")


def test_a_strategy_added_is_said_with_the_places_to_change():
    ran = [*NAMES[:3], "newcomer", *NAMES[3:]]
    said = " ".join(strategy_list_problems(ran, COLORS))
    assert "NAMES in tests/replay/test_report.py" in said and "baselines.STRATEGIES" in said
    assert "give newcomer a colour" in said and "COLORS in src/compact_agent/replay/plot.py" in said
    assert strategy_list_problems(NAMES, COLORS) == []
