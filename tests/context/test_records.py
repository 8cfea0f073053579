"""Compaction where the window is tight: the record written without a model and its price, the
summary request that is the request last sent, the hard limit from what a compaction keeps, no
summary paid for a window the fixed prompt alone overflows, and collapse that never folds the
compaction's own message."""

from __future__ import annotations

import re
from pathlib import Path
from types import SimpleNamespace
from typing import Any

from pydantic_ai.messages import (
    ModelRequest,
    ModelResponse,
    TextPart,
    ToolCallPart,
    ToolReturnPart,
    UserPromptPart,
)

from compact_agent.agent.run.summary_wording import CODING
from compact_agent.config import Settings
from compact_agent.context.compaction import summary, summary_prompt
from compact_agent.context.decisions.economics import Growth, Prices, record_pays, summary_cost
from compact_agent.context.decisions.schedule import Schedule
from compact_agent.context.layers.collapse import ContextCollapse
from compact_agent.context.layers.digest import DIGEST_HEADER
from compact_agent.context.plumbing.events import Event
from compact_agent.context.plumbing.markers import is_compaction_message
from compact_agent.context.plumbing.tokens import estimate
from compact_agent.replay.ours import Ours
from compact_agent.replay.simulate import replay
from tests.context import keeps
from tests.context.test_collapse import budget, long_conv
from tests.replay.synthetic import session, sim


def made(strategy: str) -> Any:
    """A compaction of `strategy` as the schedule reads it (`Schedule.after_compaction`)."""
    return SimpleNamespace(summary="", strategy=strategy, event=Event("compact", strategy))


# -- the price of a record -------------------------------------------------------------------------


def test_a_record_pays_when_holding_its_extra_tokens_costs_less_than_the_summary_request():
    # Summary request: 30,000 x 0.028 + 700 x 0.28 + 1,000 x 0.42 = 840 + 196 + 420 = 1,456 (1e-6 $).
    cost = summary_cost(prefix=30_000, summary_tokens=1_000, prices=Prices())
    assert round(cost * 1e6) == 1_456
    # 500 extra tokens: sent once uncached (140) and held for 5 requests (70): 210 < 1,456.
    assert record_pays(extra=500, requests=5, summary=cost, prices=Prices())
    # 3,000 extra tokens held for 10 requests: 840 + 840 = 1,680 > 1,456.
    assert not record_pays(extra=3_000, requests=10, summary=cost, prices=Prices())
    # The compactions it brings nearer count too: 2.5 per token makes the first case 1,460.
    assert not record_pays(extra=500, requests=5, summary=cost, prices=Prices(), credit=2.5e-6)
    # A record no longer than the summary it stands in for always pays: it costs no request.
    assert record_pays(extra=0, requests=0, summary=0.0, prices=Prices())


def schedule_case(rebuild: int = 10_000, overhead: int = 10_000, **settings):
    """A pipeline stand-in: 10K of system prompt, a compaction keeping `rebuild` tokens with a 2K
    summary, 2K of growth per request, a 64K window with a 4K output reserve, DeepSeek prices;
    forgetting is not priced here (test_forgetting.py prices it)."""
    cm = SimpleNamespace(
        compactor=keeps.compactor(rebuild),
        calibration=SimpleNamespace(ratio=1.0, tokens=lambda n: n), overhead=overhead, requests=50,
        settings=Settings(**settings), limits=SimpleNamespace(threshold=42_000, window=64_000, output_reserve=4_000),
        breaker_open=False, handler_instructs=False, answer_asked=0)
    return cm, Schedule(Prices(), growth=Growth(total=100_000, requests=50), summary_tokens=2_000, reuse=None)


def test_the_schedule_keeps_a_record_where_it_is_cheaper_and_asks_for_a_summary_where_not():
    history = [ModelRequest(parts=[UserPromptPart("go")])]
    cm, schedule = schedule_case()
    # Forced by the window, the next compaction comes at the hard limit, 64,000 - 4,000 - 1,280 = 58,720.
    # Summary request: 50,000 x 0.028 + 196 + 2,000 x 0.42 = 2,436. A 3,000-token record is 1,000 longer
    # than the summary: after = 10K + 10K - 2K + 3K = 21,000, held (58,720 - 21,000) / 2,000 = 18.9
    # requests: 280 + 528 = 808, plus the compactions it brings nearer (credit: K = 1,876 every
    # sqrt(2 x 2,000 x 1,932 / 0.028) = 16,613 tokens, 0.113 per token: 113): 921 < 2,436.
    assert schedule.record_pays(cm, history, 3_000, tokens_before=50_000, reason="window")
    assert round(schedule.credit * 1e9) == 113
    # A 20,000-token record: 18,000 extra tokens sent once cost 5,040 alone.
    assert not schedule.record_pays(cm, history, 20_000, tokens_before=50_000, reason="window")
    # A record that leaves no room for one request's growth where a summary would: 10K + 46K = 56,000
    # with a summary leaves 1.4 requests of room; with a 5,000-token record, 59,000, none.
    cm, schedule = schedule_case(rebuild=46_000)
    assert not schedule.record_pays(cm, history, 5_000, tokens_before=60_000, reason="window")
    # Where a summary would leave no room either (10K + 47K = 57,000: 1,720 tokens, under one request),
    # a 2,500-token record (0.6 requests of room) is taken if it brings the request under the limit and
    # frees a tenth of the history: 57,000 - 2,000 + 2,500 = 57,500 <= 58,720 and <= 64,000 - 54,000 / 10.
    cm, schedule = schedule_case(rebuild=47_000)
    assert schedule.record_pays(cm, history, 2_500, tokens_before=64_000, reason="window")
    assert not schedule.record_pays(cm, history, 2_500, tokens_before=62_000, reason="window")  # 56,800
    assert not schedule.record_pays(cm, history, 4_000, tokens_before=70_000, reason="window")  # 59,000: over
    # Switched off: always a summary.
    cm, schedule = schedule_case(compaction_records=False)
    assert not schedule.record_pays(cm, history, 100, tokens_before=50_000, reason="window")


def test_the_hard_limit_gives_up_the_reserve_only_when_a_compaction_could_not_keep_it():
    cm, schedule = schedule_case()
    assert schedule.hard_limit(cm) == 64_000 - 4_000 - 1_280
    summary = made("full")
    # The last compaction kept 47,000 tokens and a request adds 2,000: 10,000 + 49,000 >= 58,720, so
    # every compaction would be followed by another at once; only the window itself is protected.
    schedule.after_compaction(summary, 2_000, kept=47_000)
    assert schedule.hard_limit(cm) == 64_000 - 1_280
    schedule.after_compaction(summary, 2_000, kept=46_000)  # 58,000: the reserve can be kept
    assert schedule.hard_limit(cm) == 64_000 - 4_000 - 1_280
    # Records the compactions chose to keep are not what a compaction has to keep: of 47,000 kept,
    # 10,000 are records, 8,000 more than a 2,000-token summary that would fold them; 10,000 + 39,000
    # + 2,000 = 51,000 < 58,720, so the reserve stays (it used to go, and the records grew into it).
    schedule.after_compaction(made("record"), 0, kept=47_000, records=10_000)
    assert schedule.rebuild_seen == 47_000 and schedule.hard_limit(cm) == 64_000 - 4_000 - 1_280
    schedule.after_compaction(made("record"), 0, kept=48_000, records=2_500)
    assert schedule.hard_limit(cm) == 64_000 - 1_280  # 10,000 + 47,500 + 2,000: a summary would not keep it


async def test_records_kept_compaction_after_compaction_never_take_the_room_for_the_answer():
    """A long scan in an 8K window: compactions keep records without a model and append to them.
    Each compacted history stays under the hard limit that keeps the answer's room (before, the
    growing records relaxed that limit, and requests of 7,800 tokens went into an 8,000 window)."""
    from pydantic_ai import Agent
    from pydantic_ai.models.function import AgentInfo, FunctionModel
    from pydantic_ai.usage import RequestUsage, UsageLimits

    from compact_agent.context import CompactionEvent, ContextManager
    from compact_agent.context.testing import reply_to_library_request

    pages = {"n": 0}

    def model(messages, info: AgentInfo) -> ModelResponse:
        usage = RequestUsage(input_tokens=estimate(messages) + 200, output_tokens=20)
        if (reply := reply_to_library_request(messages, "Summary so far.", usage=usage)) is not None:
            return reply
        if pages["n"] < 150:
            pages["n"] += 1
            return ModelResponse(parts=[ToolCallPart("read_log", {"page": pages["n"]})], usage=usage)
        return ModelResponse(parts=[TextPart("done")], usage=usage)

    events: list[Event] = []
    cm = ContextManager(window=8_000, event_handler=events.append)
    agent = Agent(FunctionModel(model), capabilities=[cm])

    @agent.tool_plain
    def read_log(page: int) -> str:
        return f"page {page}: " + " ".join(f"event-{page}-{i} ok" for i in range(300))

    await agent.run("go", usage_limits=UsageLimits(request_limit=500))
    done = [e for e in events if isinstance(e, CompactionEvent) and e.action != "blocked"]
    records = [e for e in done if e.strategy == "record"]
    assert len(done) > 40 and sum(1 for e in records if e.incremental) > 20  # the case: records appended
    room = cm.limits.window - cm.limits.output_reserve - cm.limits.window // 50
    assert max(e.tokens_after for e in done) <= room, [e.tokens_after for e in done]


def test_no_summary_is_paid_for_when_the_system_prompt_alone_overflows_the_window():
    history = [ModelRequest(parts=[UserPromptPart("go")])]
    cm, schedule = schedule_case(rebuild=500)
    assert schedule.reason(cm, history, 63_000, suppressed=False) == "window"
    # 62,000 + a 2,000 summary >= 64,000: though a compaction would halve the 1,000 tokens of history.
    cm, schedule = schedule_case(rebuild=500, overhead=62_000)
    assert schedule.compaction_helps(cm, history, 1_000) and schedule.reason(cm, history, 63_000, suppressed=False) == ""


# -- the record ------------------------------------------------------------------------------------


def test_a_record_carries_the_earlier_record_then_every_step_since():
    earlier = summary.summary_message("Fixed the parser; tests pass.", None, ["fix the parser"], "full",
                                      {"src/p.py": ["edited"]}, [])
    steps = [
        earlier,
        ModelResponse(parts=[TextPart("Now the lexer."),
                             ToolCallPart("read_file", {"path": "src/lex.py"}, tool_call_id="r1")]),
        ModelRequest(parts=[ToolReturnPart("read_file", "def lex():\n    pass\n", tool_call_id="r1")]),
        ModelResponse(parts=[ToolCallPart("edit_file", {"path": "src/lex.py", "old": "pass", "new": "return []"},
                                          tool_call_id="e1")]),
        ModelRequest(parts=[ToolReturnPart("edit_file", "Edited 1 line.", tool_call_id="e1")]),
    ]
    text = summary.record_of(steps)
    assert text is not None
    assert text.startswith("Fixed the parser; tests pass.\n\n- Assistant: Now the lexer.\n")
    assert 'read_file(path="src/lex.py") -> ok (2 lines)' in text
    assert 'edit_file(path="src/lex.py", old="pass", new="return []") -> ok (1 line)' in text
    # The steps alone: the compaction message carrying the record says where the full messages are
    # and lists the files changed, and the record is paid for on every later request.
    assert DIGEST_HEADER not in text and "What happened, in order" not in text and "Files changed:" not in text
    assert "This session continues" not in text  # the earlier compaction message is not a step
    # Carried again by the next record, unchanged.
    again = summary.summary_message(text, None, ["fix the parser"], "record", {}, [])
    assert summary.record_of([again]) == text


def test_a_compaction_message_written_before_the_head_changed_is_still_one():
    """Sessions on disk begin their compaction message with the old head ("… compacted because the
    context filled up."): it is still a summary, its record is still carried, and it is no step."""
    new = summary.summary_message("Fixed the parser.", None, ["fix the parser"], "full", {}, [])
    part = new.parts[0]
    assert isinstance(part, UserPromptPart) and isinstance(part.content, str)
    assert part.content.startswith(summary.SUMMARY_HEAD)
    old_head = summary.SUMMARY_MARK + " because the context filled up."
    old = ModelRequest(parts=[UserPromptPart(part.content.replace(summary.SUMMARY_HEAD, old_head, 1))],
                       metadata=new.metadata)  # as every compaction message was saved, from the first
    assert summary.is_summary(old) and summary.records_in(old) == ["Fixed the parser."]
    assert summary.is_synthetic_text(old.parts[0].content)  # type: ignore[union-attr]
    assert summary.record_of([old]) == summary.record_of([new]) == "Fixed the parser."


def test_no_record_when_a_step_would_be_left_out():
    steps: list = [ModelRequest(parts=[UserPromptPart("look at everything")])]
    for i in range(400):
        steps.append(ModelResponse(parts=[ToolCallPart("read_file", {"path": f"src/module_{i}.py"},
                                                       tool_call_id=f"c{i}")]))
        steps.append(ModelRequest(parts=[ToolReturnPart("read_file", "x = 1", tool_call_id=f"c{i}")]))
    assert summary.record_of(steps) is None  # 400 steps do not fit RECORD_MAX_CHARS
    assert summary.record_of(steps[:21]) is not None  # 10 do


# -- collapse and the compaction message ----------------------------------------------------------


def test_collapse_never_folds_the_compaction_message(tmp_path: Path) -> None:
    conv = long_conv()
    head = summary.summary_message("Earlier work.", None, ["the user's own words, kept verbatim"], "full", {}, [])
    view = [head, *conv.messages[1:]]
    threshold = estimate(view)
    result = ContextCollapse(Settings(), tmp_path / "log").apply(view, budget(view, threshold))
    assert [(e.layer, e.action) for e in result.events] == [("collapse", "commit")]
    # The digest of the rounds after it may join its request; its own part is untouched.
    first = result.messages[0]
    assert first.parts[0] is head.parts[0] and is_compaction_message(first)
    assert any(p.content.startswith(DIGEST_HEADER) for p in first.parts[1:])
    assert estimate(result.messages) < threshold


# -- the summary request is the request last sent -------------------------------------------------


async def test_the_summary_request_is_the_request_last_sent_plus_the_instruction():
    # Each request adds a 6,000-character result; the compactions leave the newest results verbatim.
    t = session([("summarise the logs", [6_000] * 24)])
    s = sim(24_000)
    ours = Ours(s, Settings(compaction_records=False, collapse_enabled=False))
    try:
        run = await replay(t, ours, s)
    finally:
        ours.close()
    instruction = s.tm.text(summary_prompt.compact_prompt(wording=CODING))  # the replay asks as the agent does
    summaries = [i for i, r in enumerate(run.requests) if r.kind == "summary"]
    assert summaries
    for i in summaries:
        sent, last = run.requests[i], run.requests[i - 1]
        assert last.kind == "main"
        # Everything but the instruction is the previous request, a cache hit; the result that arrived
        # since is not in it (the compaction keeps it verbatim).
        assert sent.cached == last.tokens
        assert sent.tokens - sent.cached <= instruction + 10


# -- incremental compaction --------------------------------------------------------------------------


def rounds_after(first, start: int, n: int, size: int = 3_000) -> list:
    msgs: list = [first]
    for i in range(start, start + n):
        msgs.append(ModelResponse(parts=[TextPart(f"step {i}"),
                                         ToolCallPart("edit_file", {"path": f"src/f{i}.py", "old": "a", "new": "b"},
                                                      tool_call_id=f"e{i}")]))
        msgs.append(ModelRequest(parts=[ToolReturnPart("edit_file", "y" * size, tool_call_id=f"e{i}")]))
    return msgs


async def test_an_incremental_compaction_keeps_the_compaction_message_byte_for_byte_and_carries_everything(tmp_path):
    from compact_agent.config import Limits
    from compact_agent.context.compaction import ledger
    from compact_agent.context.compaction.compactor import Compactor

    async def no_model(messages, prompt):
        raise AssertionError("a record needs no model")

    first = summary.summary_message("Earlier: fixed the parser.", None, ["fix the parser"], "full",
                                    {"src/p.py": ["edited"]}, [])
    msgs = rounds_after(first, 0, 4)
    msgs.insert(5, ModelRequest(parts=[UserPromptPart("also fix the lexer")]))  # typed between two rounds
    msgs.insert(6, ModelResponse(parts=[TextPart("ok")]))
    compactor = Compactor(Limits.for_window(16_000, 2_000))
    seen: list[tuple[int, int]] = []

    def keep(kept: int, records: int) -> bool:
        seen.append((kept, records))
        return True

    result = await compactor.compact(msgs, summarize=no_model, archive=lambda: None,
                                     prefer_record=lambda n: True, prefer_incremental=keep)
    head = result.messages[0]
    # Keeping it beside a record is priced too, its records counted among what a new message would
    # send again: only the framing of updates appended to it is held beyond what a record re-lists.
    assert len(seen) == 1 and seen[0][1] > summary.carried_tokens(first, compactor.limits.user_messages_budget)
    assert head.parts[0] is first.parts[0]  # the kept message, as it was: a cache hit
    assert head.parts[1].content.startswith(summary.UPDATE_HEAD)
    assert "- also fix the lexer" in head.parts[1].content and "fix the parser" not in head.parts[1].content
    assert result.event.detail["incremental"] and result.strategy == "record"
    # Everything the next compaction carries on: both users' messages and the whole ledger.
    assert summary.user_texts([head]) == ["fix the parser", "also fix the lexer"]
    files = ledger.changed_files([head])
    assert files["src/p.py"] == ["edited"] and "src/f0.py" in files
    assert summary.records_in(head)[0] == "Earlier: fixed the parser."
    assert 'edit_file(path="src/f0.py"' in summary.records_in(head)[1]
    # Where keeping it beside a record pays, the compaction keeps the message and appends.
    more = rounds_after(head, 10, 4)
    asked: list[int] = []
    chained = await compactor.compact(more, summarize=no_model, archive=lambda: None,
                                      prefer_record=lambda n: asked.append(n) or True,
                                      prefer_incremental=lambda kept, records: True)
    assert chained.event.detail["incremental"] and chained.messages[0].parts[0] is head.parts[0]
    assert len(summary.records_in(chained.messages[0])) == 3
    # With a store, each update names its own archive; beside the one above, by file name alone.
    archives = iter([tmp_path / "history" / "1.jsonl", tmp_path / "history" / "2.jsonl"])
    stored = await compactor.compact(msgs, summarize=no_model, archive=lambda: next(archives),
                                     prefer_record=lambda n: True, prefer_incremental=keep)
    again = await compactor.compact(rounds_after(stored.messages[0], 10, 4), summarize=no_model,
                                    archive=lambda: next(archives), prefer_record=lambda n: True,
                                    prefer_incremental=lambda kept, records: True)
    update = again.messages[0].parts[-1].content
    assert isinstance(update, str) and update.startswith(summary.UPDATE_HEAD)
    assert "2.jsonl, in the directory of the one above" in update and str(tmp_path) not in update
    # Asked first of the record of everything (both records with the new steps), then of the new steps.
    assert len(asked) == 2 and asked[0] > asked[1]
    # Where it does not (the framing of its updates held too long, or no room left after it), one
    # new record re-lists its records and the new steps: nothing is lost, the framing goes.
    relisted = await compactor.compact(more, summarize=no_model, archive=lambda: None,
                                       prefer_record=lambda n: True, prefer_incremental=lambda kept, records: False)
    assert not relisted.event.detail["incremental"] and relisted.strategy == "record"
    assert "Earlier: fixed the parser." in summary.records_in(relisted.messages[0])[0]
    assert summary.UPDATE_HEAD not in str(relisted.messages[0].parts[0].content)
    # A summary would fold the message: then it is priced, given the kept message and what a new one
    # would carry of it again (its user's message, ledger, framing).
    async def model(messages, prompt):
        return "<summary>Fixed the parser and the lexer.</summary>"

    folded = await compactor.compact(more, summarize=model, archive=lambda: None,
                                     prefer_record=lambda n: False, prefer_incremental=keep)
    assert seen and 0 < seen[-1][1] < seen[-1][0] and folded.event.detail["incremental"]
    # A full compaction without the incremental form (a retry over the ceiling) folds both records
    # into one and keeps every user message.
    again = await compactor.compact(more, summarize=no_model, archive=lambda: None, prefer_record=lambda n: True)
    body = again.messages[0].parts[0].content
    assert body.startswith(summary.SUMMARY_HEAD) and len(summary.records_in(again.messages[0])) == 1
    assert "Earlier: fixed the parser." in body and 'path="src/f0.py"' in body and 'path="src/f10.py"' in body
    assert "- fix the parser" in body and "- also fix the lexer" in body


def test_keeping_the_compaction_message_pays_when_resending_it_costs_more_than_holding_its_records():
    history = [ModelRequest(parts=[UserPromptPart("go")])]
    cm, schedule = schedule_case()
    # A 5,000-token message of which a new one would carry 4,000 again (the user's messages, the
    # ledger, the framing): kept, those 4,000 are not re-sent (1,120) but the whole is a hit (140):
    # 980 saved. The other 1,000 (records) stay until the next compaction, at the hard limit:
    # after = 10K + 10K + 1K = 21,000, (58,720 - 21,000) / 2,000 = 18.9 requests: 1,000 x 0.028 x 18.9
    # = 528, plus the credit (113): 641 < 980.
    assert schedule.incremental_pays(cm, history, 5_000, 4_000, reason="window")
    # Mostly records (500 carried of 3,500): 500 x 0.28 - 3,500 x 0.028 = 42 saved, 3,000 held for 17.9 requests.
    assert not schedule.incremental_pays(cm, history, 3_500, 500, reason="window")
    # No room left for one request after it: never.
    cm, schedule = schedule_case(rebuild=48_000)
    assert not schedule.incremental_pays(cm, history, 5_000, 4_000, reason="window")


def test_the_summary_request_that_does_not_fit_keeps_its_first_message():
    from compact_agent.context.compaction.cuts import drop_oldest_after_first, drop_oldest_rounds

    first = summary.summary_message("Earlier work.", None, ["do it"], "full", {}, [])
    msgs = rounds_after(first, 0, 4)
    kept = drop_oldest_after_first(msgs, 2)
    assert kept[0] is first and kept[1:] == msgs[5:]
    assert drop_oldest_rounds(msgs, 2)[0] is not first  # the rule it replaces dropped it first
    assert drop_oldest_after_first(msgs[:3], 1) == msgs[1:3]  # two rounds: as before


def test_the_ledger_reads_every_compaction_message_not_only_a_first_one():
    from compact_agent.context.compaction import ledger

    plain = ModelRequest(parts=[UserPromptPart("hello")])  # no metadata: the carried ledgers after it still count
    carried = summary.summary_message("s", None, [], "full", {"a.py": ["written"]}, [])
    assert ledger.changed_files([plain, carried]) == {"a.py": ["written"]}


def four_reads(result: str, *, typed: str) -> list:
    """The opening request, then four rounds of one read each; the user typed `typed` after the second."""
    view: list = [ModelRequest(parts=[UserPromptPart("TASK: check every module")])]
    for r in range(4):
        view.append(ModelResponse(parts=[TextPart(f"round {r}"),
                                         ToolCallPart("read_file", {"path": f"m{r}.py"}, tool_call_id=f"c{r}")]))
        parts: list = [ToolReturnPart("read_file", f"m{r} {result}", tool_call_id=f"c{r}")]
        if r == 1:
            parts.append(UserPromptPart(typed))
        view.append(ModelRequest(parts=parts))
    return view


def test_a_request_shrunk_to_fit_keeps_what_the_user_typed_in_the_rounds_it_leaves_out():
    from compact_agent.context import ContextManager
    from compact_agent.context.decisions.fit import CARRIED, shrink_to_fit

    cm = ContextManager(window=8_000)
    view = four_reads("y" * 1_900, typed="also never touch the vendored folder")
    cm.overhead = 6_800  # room for the opening request and the newest round only
    shrunk, after = shrink_to_fit(cm, list(view), cm.measure(view))
    assert after <= 8_000 - 160
    text = " ".join(str(p.content) for m in shrunk for p in m.parts if isinstance(p, UserPromptPart))
    assert "round 1" not in " ".join(str(getattr(p, "content", "")) for m in shrunk for p in m.parts)
    assert shrunk[0].parts[0].content == "TASK: check every module"
    assert CARRIED in text and "- also never touch the vendored folder" in text


def test_the_last_resort_also_cuts_the_long_arguments_of_a_call_that_ran():
    from compact_agent.context import ContextManager
    from compact_agent.context.decisions.fit import shrink_to_fit

    cm = ContextManager(window=8_000)
    content = "line\n" * 1_200  # a 6,000-character file written by the newest call
    view: list = [ModelRequest(parts=[UserPromptPart("write the fixture")]),
                  ModelResponse(parts=[ToolCallPart("write_file", {"path": "fixture.txt", "content": content},
                                                    tool_call_id="w1")]),
                  ModelRequest(parts=[ToolReturnPart("write_file", "Wrote 6,000 characters.", tool_call_id="w1")])]
    cm.overhead = 6_500
    before = cm.measure(view)
    assert before > 7_840
    shrunk, after = shrink_to_fit(cm, list(view), before)
    assert after <= 7_840 and after == cm.measure(shrunk)
    args = shrunk[1].parts[0].args
    assert args["path"] == "fixture.txt" and len(args["content"]) < 1_000 and "omitted" in args["content"]
    assert view[1].parts[0].args["content"] == content  # the history keeps the full call


def test_the_kept_tail_is_an_eighth_of_the_room_the_system_prompt_leaves():
    from compact_agent.config import Limits
    from compact_agent.context.compaction.compactor import Compactor

    compactor = Compactor(Limits.for_window(64_000, 8_000))
    threshold = compactor.limits.threshold
    assert compactor.tail_budget() == threshold // 8
    assert compactor.tail_budget(20_000) == (threshold - 20_000) // 8
    assert compactor.tail_budget(threshold - 1_000) == 500  # a window the system prompt nearly fills
    compactor.escalation = 1
    assert compactor.tail_budget(20_000) == (threshold - 20_000) // 16


# -- found in review --------------------------------------------------------------------------------


async def test_an_incremental_compaction_lists_a_prompt_merged_into_the_kept_message_once():
    from compact_agent.config import Limits
    from compact_agent.context.compaction.compactor import Compactor

    async def no_model(messages, prompt):
        raise AssertionError("a record needs no model")

    compactor = Compactor(Limits.for_window(16_000, 2_000))
    msgs = rounds_after(ModelRequest(parts=[UserPromptPart("fix the parser")]), 0, 4)
    msgs.append(ModelResponse(parts=[TextPart("done")]))
    ask = len(msgs)
    msgs += rounds_after(ModelRequest(parts=[UserPromptPart("now the lexer")]), 5, 1)
    # Session notes as the summary, the tail starting at the user's prompt: join merges it into the message.
    first = compactor.from_notes(msgs, "# Notes\nparser fixed", ask, archive=lambda: None, trigger="auto",
                                 tokens_before=10**6)
    assert summary.user_texts(first.messages[:1]) == ["fix the parser", "now the lexer"]
    history = first.messages
    for n in (10, 20):  # two incremental compactions in a row
        result = await compactor.compact([*history, *rounds_after(ModelResponse(parts=[TextPart("go on")]), n, 4)[1:]],
                                         summarize=no_model, archive=lambda: None, prefer_record=lambda size: True,
                                         prefer_incremental=lambda kept, carried: True)
        assert result.event.detail["incremental"]
        history = result.messages
        assert summary.user_texts(history[:1]) == ["fix the parser", "now the lexer"]


def test_the_words_carried_by_the_last_resort_never_take_back_the_room_it_made():
    from compact_agent.context import ContextManager
    from compact_agent.context.decisions.fit import CARRIED, shrink_to_fit

    cm = ContextManager(window=16_000)
    view = four_reads("ok", typed="here is the log:\n" + "log line 12345\n" * 2_500)  # a paste, ~9K tokens
    cm.overhead = 7_000
    shrunk, after = shrink_to_fit(cm, list(view), cm.measure(view))
    assert after <= 16_000 - 320
    carried = [p.content for p in shrunk[0].parts if isinstance(p, UserPromptPart) and p.content.startswith(CARRIED)]
    # its beginning and its end (a paste's question comes last), not all of it
    assert carried and re.search(r"^- <message_[0-9a-f]+>\nhere is the log:", carried[0], re.M)
    assert summary.MIDDLE_MARK in carried[0]


def test_the_last_resort_cuts_an_argument_once_and_keeps_the_count_true():
    from compact_agent.context import ContextManager

    cm = ContextManager(window=8_000)
    budget = next(layer for layer in cm.layers if hasattr(layer, "shrink"))
    content = "line\n" * 1_200
    view = [ModelRequest(parts=[UserPromptPart("write the fixture")]),
            ModelResponse(parts=[ToolCallPart("write_file", {"path": "f.txt", "content": content}, tool_call_id="w1")]),
            ModelRequest(parts=[ToolReturnPart("write_file", "ok", tool_call_id="w1")])]
    first, _ = budget.shrink(view, 10_000, short=True)
    again, _ = budget.shrink(first, 10_000, short=True)
    shown = first[1].parts[0].args["content"]
    assert again[1].parts[0].args == first[1].parts[0].args  # the same bytes on every request
    kept = len(shown) - len(shown.split("\n[... ")[1].split("...]\n")[0]) - len("\n[... ...]\n")
    assert f"{len(content) - kept:,} characters of this argument omitted" in shown
    # A value the budget cut before is cut again from its own head and tail, the count still true.
    from compact_agent.context.layers.previews import cut_value as _cut_value

    once = _cut_value("a" * 3_000 + "b" * 3_000, 2_000)
    twice = _cut_value(once, 400)
    assert "5,600 characters" in twice and twice.startswith("a" * 200) and twice.endswith("b" * 200)


async def test_cheap_forms_that_together_overshoot_the_limit_are_made_again_without_them():
    from compact_agent.config import Limits
    from compact_agent.context.compaction.compactor import Compactor

    calls: list[str] = []

    async def model(messages, prompt):
        calls.append(prompt)
        return "<summary>Fixed the parser and the lexer.</summary>"

    earlier = summary.summary_message("Earlier: " + "read and fixed a module; " * 200, None, ["fix it"], "full", {}, [])
    msgs = rounds_after(earlier, 0, 6, size=3_000)
    compactor = Compactor(Limits.for_window(16_000, 2_000))
    free = await compactor.compact(list(msgs), summarize=model, archive=lambda: None,
                                   prefer_record=lambda size: True, prefer_incremental=lambda kept, carried: True)
    assert free.event.detail["incremental"] and free.strategy == "record" and not calls
    # Over a ceiling just under it: the record again, folded into one message, still no model call.
    folded = await compactor.compact(list(msgs), summarize=model, archive=lambda: None,
                                     prefer_record=lambda size: True, prefer_incremental=lambda kept, carried: True,
                                     ceiling=free.tokens_after - 1)
    assert folded.strategy == "record" and not folded.event.detail["incremental"] and not calls
    assert folded.tokens_after < free.tokens_after
    # Under even that: a summary.
    summarised = await compactor.compact(list(msgs), summarize=model, archive=lambda: None,
                                         prefer_record=lambda size: True,
                                         prefer_incremental=lambda kept, carried: True,
                                         ceiling=folded.tokens_after - 1)
    assert summarised.strategy == "full" and not summarised.event.detail["incremental"] and len(calls) == 1
    assert summarised.tokens_after < folded.tokens_after


def test_the_analyzer_reads_an_incremental_compaction_back_as_the_user_wrote_it():
    from compact_agent.replay._compact_agent import strip_compaction

    merged = ModelRequest(parts=[
        *summary.summary_message("s", None, ["a"], "full", {}, []).parts, UserPromptPart("now the lexer"),
        *summary.update_message("t", None, [], {}, [], all_users=["a"], all_files={}, strategy="record").parts])
    assert [p.content for m in strip_compaction([merged]) for p in m.parts] == ["now the lexer"]


def test_a_compaction_that_would_keep_a_record_is_planned_at_its_own_cheaper_point():
    history = [ModelRequest(parts=[UserPromptPart("go")])]
    # 32,000 tokens of history, 10,000 kept, 2,000 new a request. Asking for a summary, K = 10,000 x 0.28
    # + 42,000 x 0.028 + 196 + 840 = 5,012 and the point is 10,000 + sqrt(2 x 2,000 x 5,292 / 0.028) =
    # 37,496: wait. Keeping a record, K = 2,800 and the point 10,000 + sqrt(2 x 2,000 x 3,080 / 0.028) =
    # 30,976: compact now (it pays back in 2,800 / (22,000 x 0.028) = 4.5 of the 50 requests so far).
    cm, schedule = schedule_case()
    cm.compactor.keeps.record = None  # no record would list every step
    assert not schedule.priced(cm, history, 32_000, 10_000)
    assert not schedule.priced(cm, history, 33_000, 10_000) and cm.compactor.keeps.asked == 1  # the part only grows: not again
    schedule.after_compaction(made("record"), 0, 10_000)  # until a compaction
    cm.compactor.keeps.record = 500
    assert not schedule.priced(cm, history, 32_000, 10_000)  # right after one, a priced compaction is thrash
    schedule.compacted_at -= cm.settings.thrash_requests + 1  # ... and that one was four requests ago
    assert schedule.priced(cm, history, 32_000, 10_000)
    assert round(schedule.last_plan.point) == 30_976 and round(schedule.last_plan.fixed_cost * 1e6) == 2_800
    assert not schedule.priced(cm, history, 30_000, 10_000)  # before its point
    cm.handler_instructs = True  # a before_compact handler has asked a summary for instructions
    assert not schedule.priced(cm, history, 32_000, 10_000)
    cm, schedule = schedule_case(compaction_records=False)
    cm.compactor.keeps.record = 500
    assert not schedule.priced(cm, history, 32_000, 10_000)


def test_a_record_is_priced_with_its_own_rebuild_and_the_compaction_message_it_leaves_in_place():
    """A record compaction rebuilds the record (500 tokens), not a summary's 2,000, and leaves the
    compaction message the history starts with (3,000 tokens) in place, a cache hit: only the rest is
    sent again. Rebuild 10,000 - 2,000 + 500 = 8,500, K = (8,500 - 3,000) x 0.28 = 1,540, the point
    8,500 + sqrt(2 x 2,000 x (1,540 + 8,500 x 0.028) / 0.028) = 24,437: at 26,000, compact. Priced as a
    2,000-token summary's rebuild sent whole (as before), K was 2,800 and the point 30,976."""
    history = [ModelRequest(parts=[UserPromptPart("go")])]
    cm, schedule = schedule_case()
    keeps = cm.compactor.keeps
    keeps.record, keeps.record_rebuild, keeps.kept_head = 500, 8_500, 3_000
    assert schedule.priced(cm, history, 26_000, 10_000)
    plan = schedule.last_plan
    assert round(plan.fixed_cost * 1e6) == 1_540 and round(plan.point) == 24_437 and plan.rebuild == 8_500
    assert not schedule.priced(cm, history, 24_000, 10_000)  # before its point
    # With session notes on, the compaction is to use the notes, priced at the summary's size.
    cm, schedule = schedule_case(memory_enabled=True)
    keeps = cm.compactor.keeps
    keeps.record, keeps.record_rebuild, keeps.kept_head = 500, 8_500, 3_000
    assert not schedule.priced(cm, history, 26_000, 10_000)
    assert round(schedule.last_plan.point) == 30_976


async def test_a_kept_compaction_message_that_would_not_shrink_the_context_gives_way_to_one_record():
    from compact_agent.config import Limits
    from compact_agent.context.compaction.compactor import Compactor

    async def no_model(messages, prompt):
        raise AssertionError("a record needs no model")

    first = summary.summary_message("Earlier: fixed the parser.", None, ["fix the parser " * 40], "full",
                                    {"src/p.py": ["edited"]}, [])
    msgs = rounds_after(first, 0, 3, size=400)

    async def sizes() -> tuple[int, int]:
        kept = await Compactor(Limits.for_window(16_000, 2_000)).compact(
            msgs, summarize=no_model, archive=lambda: None, prefer_record=lambda n: True,
            prefer_incremental=lambda kept, carried: True)
        whole = await Compactor(Limits.for_window(16_000, 2_000)).compact(
            msgs, summarize=no_model, archive=lambda: None, prefer_record=lambda n: True)
        assert kept.event.detail["incremental"] and not whole.event.detail["incremental"]
        return kept.tokens_after, whole.tokens_after

    with_kept, as_one = await sizes()
    assert as_one < with_kept  # the update's framing and the users' words it repeats cost more here
    # A context between the two: kept, the message would not shrink it; one record of it all does.
    result = await Compactor(Limits.for_window(16_000, 2_000)).compact(
        msgs, summarize=no_model, archive=lambda: None, prefer_record=lambda n: True,
        prefer_incremental=lambda kept, carried: False, tokens_before=(with_kept + as_one) // 2 + 1)
    assert result.strategy == "record" and not result.event.detail["incremental"]
    assert result.tokens_after == as_one


async def test_a_window_a_summary_would_not_fit_compacts_with_records():
    """2,000 tokens: the expected summary (2,000) alone fills it, so no compaction was thought to
    help, and old rounds were left out of each request with nothing in their place. A record of the
    steps is a few hundred tokens: it is kept, and each request starts with it."""
    from pydantic_ai import Agent
    from pydantic_ai.models.function import AgentInfo, FunctionModel
    from pydantic_ai.usage import RequestUsage, UsageLimits

    from compact_agent.context import ContextManager
    from compact_agent.context.testing import reply_to_library_request

    sent: list[list] = []

    def model(messages, info: AgentInfo) -> ModelResponse:
        usage = RequestUsage(input_tokens=estimate(messages), output_tokens=20)
        if (reply := reply_to_library_request(messages, "sum", usage=usage)) is not None:
            return reply
        sent.append(messages)
        if len(sent) <= 30:
            return ModelResponse(parts=[ToolCallPart("read_log", {"page": len(sent)})], usage=usage)
        return ModelResponse(parts=[TextPart("done")], usage=usage)

    cm = ContextManager(window=2_000)
    agent = Agent(FunctionModel(model), capabilities=[cm])

    @agent.tool_plain
    def read_log(page: int) -> str:
        return f"page {page}: " + " ".join(f"event-{page}-{i} ok" for i in range(300))

    await agent.run("go", usage_limits=UsageLimits(request_limit=200))
    assert len(cm.compactions) >= 5 and any(c.strategy == "record" for c in cm.compactions)
    assert is_compaction_message(sent[-1][0])  # the steps before are recorded, not silently gone
    record = " ".join(str(p.content) for p in sent[-1][0].parts)
    assert "read_log" in record, record  # the record lists them


def test_a_form_that_brings_the_next_compaction_within_the_thrash_guards_requests_is_not_chosen():
    """Threshold 42,000, 2,000 tokens a request, thrash_requests 3: leaving 35,000 tokens, the window
    forces the next compaction in 3.5 requests (thrash); leaving 30,000, in 6. Leaving 33,000 (4.5)
    is not thrash; and where both forms would thrash, this rule chooses neither."""
    cm, schedule = schedule_case()
    assert schedule.thrashes(cm, "threshold", 35_000, 30_000)
    assert not schedule.thrashes(cm, "threshold", 33_000, 30_000)
    assert not schedule.thrashes(cm, "threshold", 35_000, 36_000)
    # Forced by the window, the next one comes at the hard limit: 64,000 - 4,000 - 1,280 = 58,720.
    assert not schedule.thrashes(cm, "window", 35_000, 30_000)
    assert schedule.thrashes(cm, "window", 51_000, 40_000)


def test_what_a_new_compaction_message_carries_again_is_counted_within_the_users_budget():
    """A new compaction message carries the user's messages within the budget (a long paste keeps
    its head), so that is what keeping the old one saves re-sending: counted whole, an 18 KB paste
    made the carried part larger than the message holding it, keeping it looked free however many
    updates it held, and a 16K session compacted on every request."""
    paste = "LOGDUMP " + "entry=ok " * 2_000
    users = ["fix the parser", paste, "now the lexer"]
    budget = 2_000
    first = summary.summary_message("Earlier: fixed the parser.", None, summary.pick_user_messages(users, budget),
                                    "full", {"src/p.py": ["edited"]}, [])
    first.metadata["compact_agent"]["user_messages"] = users  # every message, as the metadata keeps them
    carried = summary.carried_tokens(first, budget)
    assert carried < estimate([first])
    assert carried <= budget + estimate([summary.summary_message("", None, [], "full", {"src/p.py": ["edited"]})])


def test_a_records_step_shows_a_users_message_by_its_head_the_compaction_message_holds_it_whole():
    """A record listed each message the user typed in its first 300 characters, and the compaction
    message carrying the record lists the same messages verbatim: in an 8K window with ~800-character
    requirements the record took 2,800 of the 5,100 tokens a compaction left. A step now shows the
    message's first 80 characters, enough to place it among the steps."""
    typed = "Requirement M401: " + " ".join(f"clause{i} the calculator must support decimal precision;"
                                            for i in range(12))
    steps = [ModelRequest(parts=[UserPromptPart(typed)]),
             ModelResponse(parts=[TextPart("Noted the requirement.")])]
    text = summary.record_of(steps)
    assert text is not None
    step = next(line for line in text.splitlines() if line.startswith("- User: "))
    assert step == "- User: " + typed[:summary.RECORD_USER_CHARS - 1] + "…"
    message = summary.summary_message(text, None, [typed], "record", {}, [])
    carried = "\n".join(p.content for p in message.parts if isinstance(p, UserPromptPart) and isinstance(p.content, str))
    assert typed in carried  # whole, under the user's messages
