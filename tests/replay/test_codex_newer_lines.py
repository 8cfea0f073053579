"""Codex rollout lines of newer releases: per-response usage records, references to another
rollout's items, and Codex's bookkeeping lines (`_codex_records`). The rollouts are hand-made in
the shapes openai/codex's sources give (no real rollout of these releases was at hand)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from pydantic_ai.messages import ModelRequest, UserPromptPart

from compact_agent.replay import load_transcript

from ._helpers import assert_valid_conversation, responses
from .test_importer_traps import cx, token_count, write_jsonl

THREAD = "019c0000-0000-7000-8000-0000000000aa"


def meta(thread: str = THREAD) -> dict[str, Any]:
    return cx("session_meta", {"id": thread, "base_instructions": {"text": "You are a careful coding agent."}})


def typed(text: str) -> list[dict[str, Any]]:
    return [cx("response_item", {"type": "message", "role": "user", "content": [{"type": "input_text", "text": text}]}),
            cx("event_msg", {"type": "user_message", "message": text})]


def reply(text: str) -> dict[str, Any]:
    return cx("response_item", {"type": "message", "role": "assistant", "content": [{"type": "output_text", "text": text}]})


def usage_record(response: str, prompt: int, out: int, thread: str = THREAD) -> dict[str, Any]:
    usage = {"input_tokens": prompt, "cached_input_tokens": prompt // 2, "output_tokens": out,
             "reasoning_output_tokens": 0, "total_tokens": prompt + out}
    return cx("token_usage_record", {"thread_id": thread, "turn_id": "t1", "session_id": thread, "root_turn_id": "t1",
                                     "response_id": response, "usage": usage, "turn_token_usage": usage,
                                     "thread_token_usage": usage, "attribution": {"model": "gpt-test"},
                                     "completed_at_ms": 1780000000000})


def prompts(transcript: Any) -> list[str]:
    return [str(p.content) for m in transcript.messages if isinstance(m, ModelRequest)
            for p in m.parts if isinstance(p, UserPromptPart)]


def test_usage_records_alone_give_each_reply_its_usage(tmp_path: Path) -> None:
    """A rollout whose replies have usage only in token_usage_record lines: before, every reply was
    unmeasured and the lines were named as unknown."""
    rollout = [meta(), *typed("list the files"), reply("a.py b.py"), usage_record("resp_1", 1200, 30),
               *typed("open a.py"), reply("it defines f"), usage_record("resp_2", 1500, 40)]
    transcript = load_transcript(write_jsonl(tmp_path / "rollout.jsonl", rollout))
    assert [r.usage.input_tokens for r in responses(transcript.messages)] == [1200, 1500]
    assert [r.usage.cache_read_tokens for r in responses(transcript.messages)] == [600, 750]
    assert not any("token_usage_record" in w or "token count" in w for w in transcript.warnings), transcript.warnings


def test_a_reply_recorded_by_both_lines_counts_once(tmp_path: Path) -> None:
    """Codex writes the token_count event and the usage record of the same reply, in either order:
    one usage per reply, the record's, no reply left without one and no count left over."""
    for record_first in (True, False):
        lines = []
        for i, (prompt, out) in enumerate(((1000, 20), (1300, 25), (1600, 30))):
            pair = [usage_record(f"resp_{i}", prompt, out), token_count(10_000 * (i + 1), prompt, prompt // 2, out)]
            lines += [*typed(f"step {i}"), reply(f"done {i}"), *(pair if record_first else pair[::-1])]
        transcript = load_transcript(write_jsonl(tmp_path / "rollout.jsonl", [meta(), *lines]))
        assert [r.usage.input_tokens for r in responses(transcript.messages)] == [1000, 1300, 1600]
        assert not any("token count" in w or "token_usage_record" in w for w in transcript.warnings), transcript.warnings


def test_a_file_an_older_release_began_keeps_its_token_counts(tmp_path: Path) -> None:
    """Resumed by a newer release: token_count events give usage until the first usage record."""
    rollout = [meta(), *typed("one"), reply("r1"), token_count(5000, 900, 0, 10),
               *typed("two"), reply("r2"), token_count(11000, 1100, 0, 12), usage_record("resp_2", 1100, 12),
               *typed("three"), reply("r3"), usage_record("resp_3", 1400, 14), token_count(18000, 1400, 0, 14)]
    transcript = load_transcript(write_jsonl(tmp_path / "rollout.jsonl", rollout))
    assert [r.usage.input_tokens for r in responses(transcript.messages)] == [900, 1100, 1400]
    assert not any("token count" in w for w in transcript.warnings), transcript.warnings


def test_usage_records_of_other_agents_are_no_requests_of_this_conversation(tmp_path: Path) -> None:
    """A child agent's response Codex forwarded into the parent's rollout carries the child's thread id."""
    rollout = [meta(), *typed("review it"), reply("asked a reviewer"), usage_record("resp_1", 1000, 20),
               usage_record("resp_child", 90_000, 500, thread="019c0000-0000-7000-8000-0000000000bb"),
               *typed("and?"), reply("it approved"), usage_record("resp_2", 1200, 25)]
    transcript = load_transcript(write_jsonl(tmp_path / "rollout.jsonl", rollout))
    assert [r.usage.input_tokens for r in responses(transcript.messages)] == [1000, 1200]
    [note] = [w for w in transcript.warnings if "usage record" in w]
    assert note.startswith("left out 1 usage record of model calls other agents made")


def test_bookkeeping_lines_are_left_out_without_a_note(tmp_path: Path) -> None:
    rollout = [meta(), cx("world_state", {"full": True, "agents_md": []}), *typed("hi"),
               cx("retained_context", {"type": "delivered_user_message"}), reply("hello"),
               cx("security_risk_score", {"score": 0}), cx("realtime_item", {}),
               cx("inter_agent_communication_metadata", {"trigger_turn": True}), cx("frobnicate", {})]
    transcript = load_transcript(write_jsonl(tmp_path / "rollout.jsonl", rollout))
    [note] = [w for w in transcript.warnings if "does not know" in w or "do not know" in w or "not know" in w]
    assert "frobnicate 1" in note and "world_state" not in note and "retained_context" not in note
    assert transcript.skipped == 1


def parent_rollout(tmp_path: Path) -> Path:
    parent = "019c0000-0000-7000-8000-0000000000cc"
    return write_jsonl(tmp_path / f"rollout-2026-08-01T10-00-00-{parent}.jsonl", [
        meta(parent), *typed("parent task"), reply("parent answer"), token_count(3000, 2000, 0, 40),
        usage_record("resp_p1", 2000, 40, thread=parent),
        *typed("second parent task"), reply("second parent answer"), token_count(6000, 2600, 0, 50)])


def test_a_fork_reads_the_parent_prefix_it_references_when_the_parent_file_is_beside_it(tmp_path: Path) -> None:
    """A fork that references its parent's items instead of copying them: before, the reference line was
    named as unknown and the replay started without what the model read from the parent."""
    parent = parent_rollout(tmp_path)
    reference = cx("rollout_reference", {"rollout_path": f"/home/someone/.codex/sessions/2026/08/01/{parent.name}",
                                         "thread_id": "019c0000-0000-7000-8000-0000000000cc", "max_depth": 4,
                                         "nth_user_message": 1})
    fork = [meta(), reference, *typed("fork task"), reply("fork answer"), usage_record("resp_f1", 2500, 30)]
    transcript = load_transcript(write_jsonl(tmp_path / "rollout-2026-08-01T11-00-00-fork.jsonl", fork))
    assert prompts(transcript) == ["parent task", "fork task"]  # cut before the parent's second typed message
    assert [r.usage.input_tokens for r in responses(transcript.messages)] == [2000, 2500]
    assert not any("rollout_reference" in w or "other agents" in w for w in transcript.warnings), transcript.warnings
    assert_valid_conversation(transcript.messages)


def test_a_reference_whose_rollout_is_not_found_is_said(tmp_path: Path) -> None:
    reference = cx("rollout_reference", {"rollout_path": "/elsewhere/rollout-2026-08-01T10-00-00-gone.jsonl",
                                         "max_depth": 4})
    transcript = load_transcript(write_jsonl(tmp_path / "rollout.jsonl", [meta(), reference, *typed("go"), reply("ok")]))
    [note] = [w for w in transcript.warnings if "continues" in w]
    assert "rollout-2026-08-01T10-00-00-gone.jsonl" in note and "the replay starts without" in note
    assert prompts(transcript) == ["go"]


def test_an_earlier_segment_of_the_same_thread_keeps_its_usage_records(tmp_path: Path) -> None:
    """A long thread whose earlier part Codex rotated into a file of its own: that part's replies are
    this thread's, and their usage (here only in records) is read with them, not taken for other agents'."""
    segment = write_jsonl(tmp_path / f"rollout-2026-08-01T09-00-00-{THREAD}.jsonl", [
        meta(), *typed("first part"), reply("answer one"), usage_record("resp_1", 1800, 20)])
    reference = cx("rollout_reference", {"rollout_path": str(segment), "thread_id": THREAD, "max_depth": 2})
    rollout = [meta(), reference, *typed("second part"), reply("answer two"), usage_record("resp_2", 2400, 25)]
    transcript = load_transcript(write_jsonl(tmp_path / "rollout.jsonl", rollout))
    assert prompts(transcript) == ["first part", "second part"]
    assert [r.usage.input_tokens for r in responses(transcript.messages)] == [1800, 2400]
    assert not any("other agents" in w for w in transcript.warnings), transcript.warnings


def test_a_reference_is_followed_only_inside_the_rollouts_sessions_tree(tmp_path: Path, monkeypatch: Any) -> None:
    """The path a rollout_reference names is the transcript's word: before, any file it named was read
    whole (absolute or relative to the current directory, symlinks followed, no size cap) and merged
    without a note. Now only a regular file within the cap, in the rollout's folder or its Codex sessions
    tree, is read, and the note names it; any other is said and left out."""
    outside = tmp_path / "elsewhere"
    outside.mkdir()
    secret = write_jsonl(outside / "private.jsonl", [*typed("PRIVATE TEXT FROM ANOTHER FILE")])
    day = tmp_path / "sessions" / "2026" / "08" / "02"
    day.mkdir(parents=True)
    (day / "link.jsonl").symlink_to(secret)
    (day / "folder.jsonl").mkdir()
    (tmp_path / "sessions" / "2026" / "08" / "01").mkdir()
    parent = parent_rollout(tmp_path / "sessions" / "2026" / "08" / "01")
    big = write_jsonl(day / "big.jsonl", [*typed("BIG " * 100)])
    monkeypatch.setattr("compact_agent.replay._codex_records.MAX_REFERENCED_BYTES", big.stat().st_size - 1,
                        raising=False)  # so that the test says what fails without it

    def fork(path: str) -> Any:
        lines = [meta(), cx("rollout_reference", {"rollout_path": path, "max_depth": 4}), *typed("go"), reply("ok")]
        return load_transcript(write_jsonl(day / "rollout-2026-08-02T10-00-00-fork.jsonl", lines))

    for path, why in ((str(secret), "outside this rollout's sessions folder"),
                      ("../../../../elsewhere/private.jsonl", "outside this rollout's sessions folder"),
                      (str(day / "link.jsonl"), "outside this rollout's sessions folder"),
                      (str(day / "folder.jsonl"), "not a regular file"), (str(big), "larger than")):
        transcript = fork(path)
        assert prompts(transcript) == ["go"], path
        [note] = [w for w in transcript.warnings if "continues" in w]
        assert why in note and "the replay starts without" in note, (path, note)
        assert not any(w.startswith("read ") for w in transcript.warnings)
    monkeypatch.undo()
    # the parent in another day's folder of the same tree, named by its path on the machine that wrote it
    transcript = fork(f"/home/someone/.codex/sessions/2026/08/01/{parent.name}")
    assert prompts(transcript) == ["parent task", "second parent task", "go"], transcript.warnings
    [note] = [w for w in transcript.warnings if w.startswith("read ")]
    assert str(parent) in note


def test_references_that_fan_out_are_followed_a_bounded_number_of_times(tmp_path: Path) -> None:
    """Nine rollouts each naming the next three times: every reference was followed and each file read
    again per reference, 29,524 records at three, a run that never ended at five (k**depth). At most
    MAX_REFERENCES are followed, each file read once, and the rest are said."""
    from compact_agent.replay._codex_records import MAX_REFERENCES

    names = [f"rollout-2026-08-01T10-00-0{i}-chain.jsonl" for i in range(9)]
    for i, name in enumerate(names):
        refs = [cx("rollout_reference", {"rollout_path": names[i + 1], "max_depth": 8})] * 3 if i + 1 < len(names) else []
        write_jsonl(tmp_path / name, [meta(), *refs, *typed(f"step {i}"), reply(f"done {i}")])
    transcript = load_transcript(tmp_path / names[0])
    assert len(prompts(transcript)) <= MAX_REFERENCES + 1 and prompts(transcript)[-1] == "step 0"
    [note] = [w for w in transcript.warnings if "continues" in w]
    assert f"past the {MAX_REFERENCES} references the analyzer follows" in note
    [read] = [w for w in transcript.warnings if w.startswith("read ")]
    assert read.count("chain.jsonl") == 3 and "and more" in read  # each file named once, the first three


def test_a_reference_reaches_no_subfolder_and_goes_by_where_the_rollout_really_is(tmp_path: Path) -> None:
    """The rollout's folder meant every folder under it, hidden ones too, and was the folder of the path
    as typed: a rollout linked from a home folder could have any file under it read. Only the folder
    the rollout really is in (and the day folders of its sessions tree) are reached."""
    home = tmp_path / "home"
    (home / ".config" / "app").mkdir(parents=True)
    private = write_jsonl(home / ".config" / "app" / "history.jsonl", [*typed("PRIVATE")])
    beside = write_jsonl(home / "notes.jsonl", [*typed("BESIDE THE LINK")])
    real = tmp_path / "downloads"
    real.mkdir()
    for path in (str(private), str(beside)):
        lines = [meta(), cx("rollout_reference", {"rollout_path": path, "max_depth": 4}), *typed("go"), reply("ok")]
        write_jsonl(real / "rollout-2026-08-02T10-00-00-x.jsonl", lines)
        (home / "rollout.jsonl").unlink(missing_ok=True)
        (home / "rollout.jsonl").symlink_to(real / "rollout-2026-08-02T10-00-00-x.jsonl")
        transcript = load_transcript(home / "rollout.jsonl")
        assert prompts(transcript) == ["go"], (path, transcript.warnings)
        [note] = [w for w in transcript.warnings if "continues" in w]
        assert "outside this rollout's sessions folder" in note
