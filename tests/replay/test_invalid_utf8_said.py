"""Bytes of a transcript that are not UTF-8 (a damaged file, or text saved in another encoding) are
read as the replacement character, U+FFFD, and said in one warning line per file with how many bytes
were replaced: before, they were replaced without a word. The count is of bytes, not of replacement
characters (a cut-off sequence of two bytes is one U+FFFD), and a U+FFFD the file itself holds, valid
UTF-8, is no invalid byte."""

from __future__ import annotations

import json
from pathlib import Path

from compact_agent.replay import load_transcript
from compact_agent.replay._recorded import decoded

from .test_codex_newer_lines import THREAD, cx, meta, prompts, reply, typed, usage_record
from .test_importer_traps import write_jsonl

LATIN1 = b"caf\xe9"  # "café" saved as Latin-1: one invalid byte
CUT = b"\xe2\x82"  # the first two bytes of the euro sign: two invalid bytes, one U+FFFD


def _note(n: int) -> str:
    return (f"{n:,} invalid UTF-8 {'byte' if n == 1 else 'bytes'} replaced by the replacement character (U+FFFD): "
            "the file is not all UTF-8 text (damaged, or written partly in another encoding)")


def _said(path: Path) -> list[str]:
    return [w for w in load_transcript(path).warnings if "UTF-8" in w]


def test_invalid_bytes_in_json_lines_are_counted_and_said_once(tmp_path: Path) -> None:
    lines = [{"role": "user", "content": "order a PLACEHOLDER_A"}, {"role": "assistant", "content": "PLACEHOLDER_B ok"},
             {"role": "user", "content": "and PLACEHOLDER_A again"}, {"role": "assistant", "content": "done"}]
    data = "".join(json.dumps(line) + "\n" for line in lines).encode()
    path = tmp_path / "chat.jsonl"
    path.write_bytes(data.replace(b"PLACEHOLDER_A", LATIN1).replace(b"PLACEHOLDER_B", CUT + b" 10"))
    assert load_transcript(path).format == "openai-chat"
    assert _said(path) == [_note(4)]  # two Latin-1 bytes and a cut sequence of two, in three replacement characters
    path.write_bytes(data)
    assert _said(path) == []


def test_invalid_bytes_in_a_json_document_are_counted_and_said(tmp_path: Path) -> None:
    chat = {"messages": [{"role": "user", "content": "PLACEHOLDER"}, {"role": "assistant", "content": "ok \ufffd"}]}
    path = tmp_path / "chat.json"
    path.write_bytes(json.dumps(chat, ensure_ascii=False).encode().replace(b"PLACEHOLDER", b"\xff\xfe" + LATIN1))
    transcript = load_transcript(path)
    assert [w for w in transcript.warnings if "UTF-8" in w] == [_note(3)]  # the file's own U+FFFD not counted
    path.write_bytes(json.dumps(chat, ensure_ascii=False).encode())
    assert _said(path) == []


def test_a_rollout_and_the_rollout_it_references_each_say_theirs(tmp_path: Path) -> None:
    segment = write_jsonl(tmp_path / f"rollout-2026-08-01T09-00-00-{THREAD}.jsonl", [
        meta(), *typed("first part"), reply("answer one"), usage_record("resp_1", 1800, 20)])
    segment.write_bytes(segment.read_bytes().replace(b"first part", b"first p\xe4rt"))
    reference = cx("rollout_reference", {"rollout_path": str(segment), "thread_id": THREAD, "max_depth": 2})
    rollout = write_jsonl(tmp_path / "rollout.jsonl", [meta(), reference, *typed("second part"), reply("answer two"),
                                                       usage_record("resp_2", 2400, 25)])
    transcript = load_transcript(rollout)
    assert prompts(transcript) == ["first p\ufffdrt", "second part"]
    [read] = [w for w in transcript.warnings if w.startswith("read ")]
    assert segment.read_bytes().count(b"\xe4") == 2  # the typed line and its event
    assert read.endswith("the replay starts with what the model read from there (2 invalid UTF-8 bytes replaced)"), read
    assert not [w for w in transcript.warnings if "invalid UTF-8" in w and w != read]  # the rollout's own: none
    rollout.write_bytes(rollout.read_bytes().replace(b"answer two", CUT))
    assert [w for w in load_transcript(rollout).warnings if w.startswith("2 invalid")] == [_note(2)]


def test_the_count_is_of_bytes() -> None:
    assert decoded(b"ok") == ("ok", 0)
    assert decoded("ok \ufffd".encode()) == ("ok \ufffd", 0)
    assert decoded(b"a" + CUT + b" \xff\xfe " + LATIN1) == ("a\ufffd \ufffd\ufffd caf\ufffd", 5)
    assert decoded(b"\xed\xa0\x80") == ("\ufffd\ufffd\ufffd", 3)  # an encoded surrogate is no UTF-8
    assert decoded(b"x" * ((1 << 20) - 1) + "\u20ac".encode())[1] == 0  # a sequence across the megabyte steps
    assert decoded(b"\xff" * (3 << 20))[1] == 3 << 20
