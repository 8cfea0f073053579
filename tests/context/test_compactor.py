"""The compactor (context/compaction/compactor.py): a full compaction shrinks the history into its
compaction message and a verbatim tail without splitting a tool call from its result, keeps the
user's words, archives first (and changes nothing when it cannot), refuses a result that is not
smaller, drops the oldest rounds of a summary request too long for the model, and compacts part of
the history (`--from`, `--up-to`) keeping the rest byte for byte. Also its cuts: media stripped,
adjacent requests joined, the tail's start."""


from __future__ import annotations

from pathlib import Path

import pytest
from pydantic_ai.exceptions import ModelContextWindowExceededError
from pydantic_ai.messages import (
    BinaryContent,
    ModelMessagesTypeAdapter,
    ModelRequest,
    ModelResponse,
    TextPart,
    ToolCallPart,
    ToolReturnPart,
    UserPromptPart,
    repair_messages,
)

from compact_agent.config import Limits
from compact_agent.context.compaction import summary
from compact_agent.context.compaction.compactor import Compactor
from compact_agent.context.compaction.cuts import join, strip_media, tail_start
from compact_agent.context.compaction.restore import Restorer
from compact_agent.context.compaction.result import CompactionError, NotSmaller
from compact_agent.context.plumbing import rounds


def history(n_reads: int, size: int = 4_000) -> list:
    msgs: list = [ModelRequest(parts=[UserPromptPart("TASK: sum the files; never edit data/")])]
    for i in range(n_reads):
        msgs.append(ModelResponse(parts=[TextPart(f"reading {i}"),
                                         ToolCallPart("read_file", {"path": f"f{i}.txt"}, tool_call_id=f"c{i}")]))
        msgs.append(ModelRequest(parts=[ToolReturnPart("read_file", "x" * size, tool_call_id=f"c{i}")]))
    return msgs


async def fake_summary(messages, prompt):
    assert "Do NOT call any tools" in prompt
    return "<analysis>a</analysis><summary>The user wants the files summed. Progress: 3 files.</summary>"


def dump(msgs) -> bytes:
    return ModelMessagesTypeAdapter.dump_json(msgs)


async def test_full_compaction_shrinks_keeps_pairs_and_user_words(tmp_path: Path):
    limits = Limits.for_window(32_000, 4_000)
    files = []
    for i in range(3):
        f = tmp_path / f"f{i}.txt"
        f.write_text(f"content {i}\n")
        files.append(f)
    reread_calls = []

    def reread(paths, n):
        reread_calls.append((paths, n))
        return [ModelResponse(parts=[ToolCallPart("read_file", {"path": str(p)}, tool_call_id=f"r{k}")
                                     for k, p in enumerate(paths)]),
                ModelRequest(parts=[ToolReturnPart("read_file", p.read_text(), tool_call_id=f"r{k}")
                                    for k, p in enumerate(paths)])]

    restorer = Restorer(recent_files=lambda: list(reversed(files)), reread=reread, resolve=lambda s: tmp_path / s)
    comp = Compactor(limits, restorer)
    msgs = history(12)
    # The agent edited f0..f2 (and only read the others): those come back, the rest are paths.
    msgs[1:1] = [ModelResponse(parts=[ToolCallPart("edit_file", {"path": f"f{i}.txt", "old": "a", "new": "b"},
                                                   tool_call_id=f"e{i}") for i in range(3)]),
                 ModelRequest(parts=[ToolReturnPart("edit_file", "ok", tool_call_id=f"e{i}") for i in range(3)])]
    archived = []
    result = await comp.compact(msgs, summarize=fake_summary, archive=lambda: archived.append(1) or tmp_path / "a.jsonl")
    assert archived == [1]
    assert result.tokens_after < result.tokens_before
    assert summary.is_summary(result.messages[0])
    head = result.messages[0].parts[0].content
    assert "TASK: sum the files; never edit data/" in head  # the user's words, verbatim
    assert str(tmp_path / "a.jsonl") in head
    assert rounds.unpaired(result.messages) == (set(), set())
    assert dump(repair_messages(result.messages)) == dump(result.messages)
    # The changed files were re-read (newest-first selection, injected oldest first) and are in the ledger.
    assert reread_calls and reread_calls[0][0] == files
    for i in range(3):
        assert f"- f{i}.txt (edited)" in head
    assert "Files read recently" in head and "f5.txt" in head  # read only: named, not restored
    assert result.messages[0].metadata["compact_agent"]["files_changed"] == {f"f{i}.txt": ["edited"] for i in range(3)}
    # The newest tool result (not yet acted on) is kept verbatim.
    assert result.messages[-1].parts[-1].tool_call_id == "c11"


async def test_a_record_does_not_list_again_the_reads_its_steps_name(tmp_path: Path):
    async def no_model(messages, prompt):
        raise AssertionError("a record asks no model")

    msgs = history(12, size=400)
    record = await Compactor(Limits.for_window(32_000, 4_000)).compact(
        msgs, summarize=no_model, archive=lambda: None, prefer_record=lambda n: True)
    head = record.messages[0].parts[0].content
    assert record.strategy == "record" and "Files read recently" not in head
    # Every read it replaced is named by its step line (the newest round stays verbatim after it).
    summarized = {f"f{i}.txt" for i in range(12)} - {p.args["path"] for m in record.messages[1:]
                                                       for p in m.parts if isinstance(p, ToolCallPart)}
    assert summarized and all(f'read_file(path="{p}")' in head for p in summarized)
    # A model's summary of the same history names none of them: they are listed.
    full = await Compactor(Limits.for_window(32_000, 4_000)).compact(msgs, summarize=fake_summary, archive=lambda: None)
    head = full.messages[0].parts[0].content
    assert full.strategy == "full" and "Files read recently" in head and all(p in head for p in summarized)


async def test_archive_failure_leaves_history_alone(tmp_path):
    comp = Compactor(Limits.for_window(32_000, 4_000))

    def broken():
        raise OSError("disk full")

    with pytest.raises(CompactionError, match="not rewritten"):
        await comp.compact(history(8), summarize=fake_summary, archive=broken)


async def test_not_smaller_is_rejected(tmp_path):
    comp = Compactor(Limits.for_window(32_000, 4_000))
    msgs = history(4, size=400)  # an empty summary would shrink it; this one does not
    asked = []

    async def long_summary(m, p):
        asked.append(p)
        return "<summary>" + "very long summary " * 500 + "</summary>"

    with pytest.raises(NotSmaller, match="shrink"):
        await comp.compact(msgs, summarize=long_summary, archive=lambda: tmp_path / "a")
    assert len(asked) == 1


async def test_a_summary_that_could_not_shrink_the_history_is_not_asked_for(tmp_path):
    """A conversation of a few short steps: the summary message with nothing in it and the newest
    round already hold as many tokens as the history. Asked for, the summary would be paid for and
    thrown away (`-p /compact` on a new session did), and the archive written for nothing."""
    comp = Compactor(Limits.for_window(32_000, 4_000))
    msgs = history(1, size=10)
    asked, archived = [], []

    async def summarize(m, p):
        asked.append(p)
        return "<summary>short</summary>"

    def archive():
        archived.append(1)
        return tmp_path / "a"

    with pytest.raises(NotSmaller, match="at least") as caught:
        await comp.compact(msgs, summarize=summarize, archive=archive)
    assert asked == [] and archived == []
    e = caught.value
    assert e.after >= e.before and e.parts["verbatim_messages"] >= 1 and e.parts["summary"] > 0


async def test_summary_request_that_is_too_long_drops_oldest_rounds(tmp_path):
    comp = Compactor(Limits.for_window(32_000, 4_000))
    sizes = []

    async def picky(messages, prompt):
        sizes.append(len(messages))
        if len(sizes) < 3:
            raise ModelContextWindowExceededError(400, "m", body={"error": {"code": "context_length_exceeded"}})
        return "<summary>fine summary of the remaining conversation</summary>"

    result = await comp.compact(history(20, size=100), summarize=picky, archive=lambda: tmp_path / "a")
    assert sizes[0] > sizes[1] > sizes[2]
    assert result.event.detail["dropped_rounds"] > 0


def test_strip_media_replaces_images():
    msgs = [ModelRequest(parts=[UserPromptPart(["look", BinaryContent(b"\x89PNG", media_type="image/png")])])]
    out = strip_media(msgs)
    assert out[0].parts[0].content == ["look", "[image]"]
    assert msgs[0].parts[0].content[1] != "[image]"  # input untouched


def test_join_merges_adjacent_requests():
    a = ModelRequest(parts=[UserPromptPart("a")])
    b = ModelRequest(parts=[UserPromptPart("b")])
    r = ModelResponse(parts=[TextPart("x")])
    out = join([a], [b, r])
    assert len(out) == 2 and [p.content for p in out[0].parts] == ["a", "b"]


def test_tail_keeps_latest_round_and_never_splits_pairs():
    msgs = history(10, size=400)
    i = tail_start(msgs, 50)
    assert isinstance(msgs[i], ModelResponse)  # the call whose result is the newest request
    assert rounds.safe_cuts(msgs)[i]
    j = tail_start(msgs, 100_000)
    assert j >= 0 and rounds.safe_cuts(msgs)[j]


def attached(paths: list[str], turn: str) -> list:
    """The exchange the agent inserts before a user's message to carry the files they attached."""
    meta = {"compact_agent": {"synthetic": "mention"}}
    calls = [ToolCallPart("read_file", {"path": p}, tool_call_id=f"mention_{turn}_{n}") for n, p in enumerate(paths)]
    returns = [ToolReturnPart("read_file", f"contents of {p}\n" + "y" * 300, tool_call_id=f"mention_{turn}_{n}",
                              metadata=meta) for n, p in enumerate(paths)]
    return [ModelResponse(parts=calls, metadata=meta), ModelRequest(parts=returns, metadata=meta)]


async def test_what_the_user_attached_to_the_newest_message_stays_with_it(tmp_path):
    """The files attached to the message a compaction must leave for the model to answer are part
    of that message: kept with it however small the tail, never reduced to "read q.txt"."""
    msgs = [*history(6, size=2_000), *attached(["q.txt", "r.txt"], "t2"),
            ModelRequest(parts=[UserPromptPart("two @q.txt @r.txt")])]
    start = tail_start(msgs, 50)
    assert start == len(msgs) - 3 and rounds.safe_cuts(msgs)[start]
    # An attachment of an earlier message is no part of the newest one.
    older = [*attached(["p.txt"], "t1"), *history(3, size=2_000)[1:], ModelRequest(parts=[UserPromptPart("go on")])]
    assert tail_start(older, 50) == len(older) - 1
    result = await Compactor(Limits.for_window(32_000, 4_000)).compact(msgs, summarize=fake_summary,
                                                                         archive=lambda: tmp_path / "a")
    texts = [str(p.content) for m in result.messages if isinstance(m, ModelRequest) for p in m.parts
             if isinstance(p, ToolReturnPart)]
    assert any(t.startswith("contents of q.txt") for t in texts) and any(t.startswith("contents of r.txt") for t in texts)
    assert rounds.unpaired(result.messages) == (set(), set())


async def test_partial_from_keeps_the_prefix_byte_identical(tmp_path):
    comp = Compactor(Limits.for_window(32_000, 4_000))
    msgs = history(10, size=800)
    pivot = 7
    prompts = []

    async def summarize(messages, prompt):
        prompts.append(prompt)
        return "<summary>the later reads were of files 3 to 9, all fine</summary>"

    result = await comp.compact_partial(msgs, pivot, "from", summarize=summarize, archive=lambda: tmp_path / "a")
    kept = rounds.adjust_cut_backward(msgs, pivot)
    # The kept prefix is untouched (the provider's cache for it stays valid)...
    assert dump(result.messages[:kept - 1]) == dump(msgs[:kept - 1])
    assert "RECENT part" in prompts[0]
    assert result.strategy == "partial_from"
    assert rounds.unpaired(result.messages) == (set(), set())
    assert dump(repair_messages(result.messages)) == dump(result.messages)


async def test_partial_up_to_keeps_the_suffix(tmp_path):
    comp = Compactor(Limits.for_window(32_000, 4_000))
    msgs = history(10, size=800)
    result = await comp.compact_partial(msgs, 9, "up_to", summarize=fake_summary, archive=lambda: tmp_path / "a")
    cut = rounds.adjust_cut_forward(msgs, 9)
    assert summary.is_summary(result.messages[0])
    assert dump(result.messages[-(len(msgs) - cut):]) == dump(msgs[cut:]) or len(msgs) - cut <= 1
    assert "TASK: sum the files" in result.messages[0].parts[0].content
    assert result.strategy == "partial_up_to"
    assert rounds.unpaired(result.messages) == (set(), set())


async def test_partial_with_nothing_to_summarise_is_refused(tmp_path):
    comp = Compactor(Limits.for_window(32_000, 4_000))
    with pytest.raises(CompactionError):
        await comp.compact_partial(history(3), 100, "from", summarize=fake_summary, archive=lambda: tmp_path / "a")
