"""A summary request answered with something other than a summary: a refusal ("I cannot do that."),
or markup alone. Taken as the summary, it replaced the whole conversation before it (the typed
messages, the changed files and the archive stood beside it, the summary itself was that line). It is
a summary that failed, as an empty reply is: an automatic compaction keeps a record of the steps
written without a model instead where records are kept (the default); else, and for /compact, the
compaction does not happen, the history stays whole, and the user reads one line quoting what the
model wrote. A summary without its tags, as some models
write it, structured or long, is still taken (summary_prompt.py `_instead_of_one`)."""

from __future__ import annotations

import pytest

from compact_agent.context import CompactionError, CompactionEvent, ContextManager
from compact_agent.context.decisions.schedule import Schedule
from compact_agent.context.plumbing.settings import CompactionSettings
from compact_agent.ui.compact_failure import compact_failed
from compact_agent.ui.render import compact_line
from tests.fakes.openai_server import ChatRequest, Reply

from .pages_agent import is_summary_request, reading, run_pages
from .test_summary_reply_forms import (  # twelve long steps; a model replying so
    _history,
    _model,
    not_compacted,
)

REFUSAL = "I cannot do that."
UNTAGGED = "\n".join([  # what a model that leaves out the tags writes: the sections, no <summary>
    "1. Primary Request and Intent: read every page of the document through the read tool, in order.",
    "2. Key Concepts: the pages, numbered from 1; each holds a run of tokens named after its page.",
    "3. Work and Results: pages read one by one; each result was long and is not needed again.",
    "8. Current Work: reading the next page.",
    "9. Next Step: read the next page, then answer 'done' once the last one is read."])


def _failed(events: list) -> list[CompactionEvent]:
    return [e for e in events if isinstance(e, CompactionEvent) and e.action == "failed"]


async def test_a_refusal_in_a_run_is_a_failed_compaction_said_in_one_line() -> None:
    run = await run_pages(reading(REFUSAL))
    failed = _failed(run.events)
    assert run.result.output == "done" and not run.cm.compactions  # the history kept whole, the run went on
    assert failed and all(e.detail["error"] == f'the model replied with no summary: "{REFUSAL}"' for e in failed)
    line = compact_line(failed[0])
    assert line == f'compaction failed: the model replied with no summary: "{REFUSAL}"'
    assert "Error" not in line and "Traceback" not in line


async def test_with_records_a_refused_summary_gives_way_to_a_record_written_without_a_model(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """Where records are kept (the default), an automatic compaction whose summary request is refused
    keeps a record of the steps instead: failed, the context stayed full and the breaker counted. The
    schedule is made to buy summaries (as where a record is too long to hold on every request)."""
    monkeypatch.setattr(Schedule, "record_pays", lambda *args, **kwargs: False)
    run = await run_pages(reading(REFUSAL), settings=CompactionSettings())
    made = run.cm.compactions
    assert run.result.output == "done" and made and not _failed(run.events)
    refused = [c for c in made if c.event.detail.get("summary_unsent")]
    assert refused and all(c.strategy == "record" and REFUSAL not in (c.summary or "") for c in refused)
    assert refused[0].event.detail["summary_unsent"] == f'the model replied with no summary: "{REFUSAL}"'
    assert run.summaries()  # asked, and refused


async def test_after_a_refusal_a_summary_without_its_tags_is_taken() -> None:
    """The first summary request is refused; the next is answered with the sections and no tags."""
    replies = iter([REFUSAL])
    pages = reading("")

    def responder(req: ChatRequest) -> Reply:
        if is_summary_request(req):
            return Reply.text(next(replies, UNTAGGED))
        return pages(req)

    run = await run_pages(responder)
    failed = _failed(run.events)
    assert run.result.output == "done" and len(failed) == 1 and "no summary" in failed[0].detail["error"]
    assert len(run.cm.compactions) == 3 and run.cm.compactions[-1].summary == UNTAGGED
    assert len(run.summaries()) == 4  # each compaction's request, and the refused one


@pytest.mark.parametrize("reply, said", [
    (REFUSAL, f'the model replied with no summary: "{REFUSAL}"'),
    ("I'm sorry, but I can't help with that", "the model replied with no summary: \"I'm sorry, but I can't help with that\""),
    ("抱歉，我无法协助处理该请求。", 'the model replied with no summary: "抱歉，我无法协助处理该请求。"'),
    ("```\n\n```", "the model returned an empty summary"),
    (" \n---\n ", "the model returned an empty summary"),
])
async def test_compact_now_answered_with_no_summary_changes_nothing(reply: str, said: str) -> None:
    refused = await not_compacted(reply)  # nothing compacted, archived or rewritten
    assert str(refused) == said
    assert str(compact_failed(refused, "/compact")) == f"not compacted: {said}; nothing was changed"


@pytest.mark.parametrize("reply", [
    UNTAGGED,
    "The user asked for every page to be read. " * 10,  # long prose: taken, whatever it looks like
    "Pages 1-12 read.\nNext step: read page 13.",  # short, a section's label: taken
])
async def test_compact_now_takes_a_summary_without_its_tags_and_not_a_refusal(reply: str) -> None:
    cm = ContextManager(window=32_000)
    with pytest.raises(CompactionError):
        await cm.compact_now(_history(), model=_model(REFUSAL))
    await cm.compact_now(_history(), model=_model(reply))
    assert cm.compactions[-1].summary == reply.strip()
