"""/context and /cost add up to what the provider reported; /model re-derives the window (compacting first)."""

from __future__ import annotations

import io
import math
import re
from pathlib import Path

import pytest
from rich.console import Console

from compact_agent.agent.accounting.context_report import cost_report, picture
from compact_agent.agent.run.model_switch import switch_model
from compact_agent.agent.run.options import SessionOptions
from compact_agent.agent.run.runner import AgentSession
from compact_agent.config import Settings
from compact_agent.models import REGISTRY
from compact_agent.ui.commands import dispatch
from tests.fakes.openai_server import FakeOpenAIServer

from .scripted import FileTaskAgent, is_notes_request, is_summary_request, make_project, task_text

MODEL = "deepseek-chat"  # a registry model, so the money is not zero (served by the fake under that name)
N = 12


def recording(server: FakeOpenAIServer) -> list[tuple[object, dict]]:
    """(request, usage) of every answered request, as the provider reported it."""
    seen: list[tuple[object, dict]] = []
    original = server._complete

    def complete(req):
        out = original(req)
        seen.append((req, out["usage"]))
        return out

    server._complete = complete  # type: ignore[method-assign]
    return seen


async def test_context_and_cost_add_up_to_the_provider_usage(tmp_path: Path):
    cwd = tmp_path / "project"
    make_project(cwd, N, filler_chars=3_000)
    agent = FileTaskAgent(N)
    settings = Settings(memory_update_tokens=1_000, memory_min_tokens=500, collapse_enabled=False)
    with FakeOpenAIServer(agent, model=MODEL) as server:
        usages = recording(server)
        opts = SessionOptions(cwd=cwd, model=MODEL, base_url=server.base_url, api_key="k", context_window=12_000,
                              permission_mode="yes", home=tmp_path / "home", settings=settings)
        s = AgentSession(opts)
        try:
            out = await s.run_turn(task_text(N))
            if s.memory is not None:
                await s.memory.drain(5)
            report = cost_report(s)
            pic = picture(s)
            console = Console(record=True, width=140)
            for line in ("/context", "/cost", "/model", "/plan"):
                await dispatch(s, line, console)  # the REPL's path
        finally:
            await s.aclose()
    assert out.output.startswith("FINAL SUM"), out.output
    assert s.cm.compactions, "the task must compact to be a test of anything"

    # /cost: every request the provider answered, split hit / miss / write, nothing counted twice.
    assert sum(report.requests.values()) == len(usages)
    assert report.total.input_tokens == sum(u["prompt_tokens"] for _, u in usages)
    assert report.total.cache_read == sum(u["prompt_tokens_details"]["cached_tokens"] for _, u in usages)
    assert report.total.output_tokens == sum(u["completion_tokens"] for _, u in usages)
    assert report.total.miss == report.total.input_tokens - report.total.cache_read
    kinds = {k.split(" · ")[0]: n for k, n in report.requests.items()}
    side = [r for r, _ in usages if is_summary_request(r) or is_notes_request(r)]
    assert kinds.get("summary", 0) + kinds.get("notes", 0) == len(side)
    info = REGISTRY[MODEL]
    expected = sum(info.cost(u["prompt_tokens"], u["prompt_tokens_details"]["cached_tokens"], u["completion_tokens"])
                   for _, u in usages)
    assert math.isclose(report.total_cost, expected, rel_tol=1e-9) and expected > 0
    assert report.avoided_tokens > 0 and report.over_window > 0  # without compaction it would not have fit

    # /context: the categories add up to the provider's count of the last request plus its answer.
    last_main = [u for r, u in usages if not (is_summary_request(r) or is_notes_request(r))][-1]
    assert pic.anchored and pic.used == last_main["prompt_tokens"] + last_main["completion_tokens"]
    assert sum(pic.rows.values()) == pic.used
    assert pic.rows["system"] > 0 and pic.rows["tools"] > 0 and pic.rows["summary"] > 0
    # The task only reads files: they are named in the summary, not restored (only changed files are).
    assert pic.rows.get("files", 0) == 0
    assert pic.free == max(0, pic.threshold - pic.used) and pic.reserved == pic.window - pic.threshold

    text = console.export_text()
    assert "free until auto-compaction" in text and "compaction summary" in text and f"main · {MODEL}" in text
    assert f"{MODEL} (OpenAI-compatible) · window 12,000" in text and "no plan yet" in text


async def test_model_switch_to_a_smaller_window_compacts_first(tmp_path: Path):
    cwd = tmp_path / "project"
    make_project(cwd, 6, filler_chars=3_000)
    agent = FileTaskAgent(6)
    with FakeOpenAIServer(agent, serves=["small-model"]) as server:
        opts = SessionOptions(cwd=cwd, model="fake-model", base_url=server.base_url, api_key="k", context_window=64_000,
                              permission_mode="yes", home=tmp_path / "home", settings=Settings(memory_enabled=False, collapse_enabled=False))
        s = AgentSession(opts)
        try:
            await s.run_turn(task_text(6))
            before = s.context_tokens()
            sw = await switch_model(s, "small-model", window=before + 1_000)
        finally:
            await s.aclose()
    assert sw.compaction is not None and sw.compaction.tokens_after < before
    assert s.info.name == "small-model" and s.cm.limits.window == before + 1_000
    assert s.cm.limits.threshold < before and s.agent.model is s.model
    assert s.context_tokens() < s.cm.limits.threshold


async def test_context_after_a_manual_compact_is_not_anchored_to_the_old_usage(tmp_path: Path):
    cwd = tmp_path / "project"
    make_project(cwd, 4, filler_chars=3_000)
    agent = FileTaskAgent(4)
    with FakeOpenAIServer(agent, model=MODEL, lists_models=False) as server:  # a 404 only once asked
        opts = SessionOptions(cwd=cwd, model=MODEL, base_url=server.base_url, api_key="k", context_window=64_000,
                              permission_mode="yes", home=tmp_path / "home",
                              settings=Settings(memory_enabled=False, collapse_enabled=False,
                                                restore_max_files=1))
        s = AgentSession(opts)
        try:
            await s.run_turn(task_text(4))
            before = picture(s)
            await s.compact()
            after = picture(s)
            # A request after it that got no answer (a model the server does not have) is a request
            # all the same: the newest report is still the one of the context before the compaction.
            # With the calibration another model starts afresh, /context showed that as
            # provider-reported, 2.5x the context's size.
            await switch_model(s, "no-such-model", window=64_000)
            with pytest.raises(Exception, match="404|not exist|not found"):
                await s.run_turn("one more")
            unanswered = picture(s)
        finally:
            await s.aclose()
    assert before.anchored and not after.anchored
    assert after.used < before.used
    assert not unanswered.anchored and unanswered.used < before.used


def test_past_the_threshold_the_picture_still_adds_up_to_the_window():
    """A small window waits past the threshold for the hard limit; /context showed the whole reserve
    as well as the context using part of it (shares adding up to 127%)."""
    from compact_agent.agent.accounting.context_report import ContextPicture
    from compact_agent.ui.session_views import RESERVED, grid_cells, render_context

    p = ContextPicture({"system": 3_000, "results_spilled": 5_300}, 8_300, 9_000, 5_850, True)
    assert p.free == 0 and p.reserved == 700 and sum(p.rows.values()) + p.free + p.reserved == p.window
    cells = grid_cells(p)
    assert sum(1 for sym, _ in cells if sym == RESERVED) == round(700 / (9_000 / len(cells)))
    console = Console(file=io.StringIO(), width=140, record=True)
    console.print(render_context(p, 140))
    text = console.export_text()
    shares = [float(x) for x in re.findall(r"(\d+\.\d)%", text)]
    assert abs(sum(shares) - 100) < 0.5, (shares, text)
    assert "reserved (output + auto-compact buffer) left" in text
    under = ContextPicture({"system": 3_000}, 3_000, 9_000, 5_850, True)  # under it: the whole reserve
    assert under.reserved == 3_150 and under.free == 2_850
