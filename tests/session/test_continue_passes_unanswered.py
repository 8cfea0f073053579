"""`-c` opens the newest session the model answered in: a newer one whose every request failed
before an answer is passed over, said in one line, and left as it is (`-r ID` opens it). With none
answered, `-c` opens the newest, which sends its prompt again."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from pydantic_ai.messages import ModelRequest, ModelResponse, TextPart, UserPromptPart

from compact_agent.cli_resume import continued_note
from compact_agent.context.refit import INPUT_CUT
from compact_agent.session import answered
from compact_agent.session.answered import continued
from compact_agent.session.files import list_sessions
from compact_agent.session.store import SessionStore


def session(root: Path, sid: str, prompt: str, reply: str | None, at: int) -> Path:
    store = SessionStore(root, sid)
    store.append([ModelRequest(parts=[UserPromptPart(prompt)])])
    if reply is not None:
        store.append([ModelResponse(parts=[TextPart(reply)])])
    os.utime(store.path, (at, at))
    return store.path


def test_the_trigger_is_spelt_as_the_library_spells_it() -> None:
    assert answered.INPUT_CUT == INPUT_CUT  # answered.py reads it without loading pydantic-ai


def test_unanswered_sessions_are_passed_over_and_named(tmp_path: Path) -> None:
    work = session(tmp_path, "20261201-0900-aaaaaa", "my real work", "done", 1_000)
    first = session(tmp_path, "20261201-0901-bbbbbb", "oops", None, 2_000)
    second = session(tmp_path, "20261201-0902-cccccc", "oops\nagain", None, 3_000)
    (tmp_path / "20261201-0903-dddddd.jsonl").write_bytes(b"\x00\x01 not ours\n")
    os.utime(tmp_path / "20261201-0903-dddddd.jsonl", (4_000, 4_000))
    chosen = continued(list_sessions(tmp_path))
    assert (chosen.path, chosen.passed, chosen.strays) == (work, [second, first], 1)
    assert continued_note(tmp_path, chosen) == (
        "continuing session 20261201-0900-aaaaaa (my real work), the newest one the model answered in; passed over 2 "
        "newer sessions it never answered (compact-agent sessions lists them), the newest 20261201-0902-cccccc (oops "
        "again): compact-agent -r 20261201-0902-cccccc goes on there; and 1 newer file that is not a session "
        "(compact-agent sessions lists them)")
    assert answered.continued_id(tmp_path) == work.stem


def test_with_none_answered_the_newest_is_opened_and_nothing_said(tmp_path: Path) -> None:
    session(tmp_path, "20261201-0901-bbbbbb", "hi", None, 2_000)
    newest = session(tmp_path, "20261201-0902-cccccc", "hi", None, 3_000)
    chosen = continued(list_sessions(tmp_path))
    assert (chosen.path, chosen.passed, chosen.strays) == (newest, [], 0)
    assert continued_note(tmp_path, chosen) is None


def test_a_compacted_session_counts_as_answered(tmp_path: Path) -> None:
    """Its replies are in the archive; the summary's boundary stands for them."""
    store = SessionStore(tmp_path, "20261201-0900-aaaaaa")
    store.append([ModelRequest(parts=[UserPromptPart("fix the parser")]), ModelResponse(parts=[TextPart("done")])])
    store.archive()
    store.rewrite({"trigger": "auto", "strategy": "summary", "tokens_before": 9_000, "tokens_after": 300,
                   "archive": "", "time": "2026-12-03T13:00:00+00:00"},
                  [ModelRequest(parts=[UserPromptPart("<summary>the parser was fixed</summary>")])])
    os.utime(store.path, (1_000, 1_000))
    session(tmp_path, "20261201-0901-bbbbbb", "oops", None, 2_000)
    assert continued(list_sessions(tmp_path)).path == store.path


def test_a_key_in_a_passed_over_prompt_is_redacted(tmp_path: Path, monkeypatch) -> None:
    """A failed start for want of a key saved its prompt before the key was known (writers redact only
    the keys they know); the note quotes that prompt once the key is given, as `sessions` does: redacted."""
    from compact_agent.context.plumbing import secrets

    key = "sk-live-5e4d3c2b1a0f9e8d7c6b"
    session(tmp_path, "20261201-0900-aaaaaa", "my real work", "done", 1_000)
    session(tmp_path, "20261201-0901-bbbbbb", f"{key} is my key", None, 2_000)
    for name, empty in (("registered_keys", set()), ("key_forms", set()), ("_spread", []), ("_bodies", set()),
                        ("_pieces", None)):
        monkeypatch.setattr(secrets, name, empty)  # registered for this test only
    secrets.register(key)
    note = continued_note(tmp_path, continued(list_sessions(tmp_path)))
    assert note is not None and key[:12] not in note and "(no prompt)" not in note
    assert "(my real work)" in note and "[REDACTED]" in note


def test_a_rewound_or_edited_failed_start_is_still_passed_over(tmp_path: Path) -> None:
    """A rewrite notes whether the history it replaced had a reply: a rewind or an edit of a session
    the model never answered is no conversation, one of an answered session still is."""
    work = session(tmp_path, "20261201-0900-aaaaaa", "my real work", "done", 1_000)
    for sid, trigger, at in (("20261201-0901-bbbbbb", "rewind", 2_000), ("20261201-0902-cccccc", "history_changed", 3_000)):
        store = SessionStore(tmp_path, sid)
        store.append([ModelRequest(parts=[UserPromptPart("oops")])])
        store.rewrite({"trigger": trigger}, [])
        os.utime(store.path, (at, at))
        assert not answered.answered(store.path)
    assert continued(list_sessions(tmp_path)).path == work
    SessionStore(tmp_path, work.stem).rewrite({"trigger": "rewind"}, [])
    assert answered.answered(work)


def test_a_boundary_a_load_cannot_read_is_no_answer(tmp_path: Path) -> None:
    for n, boundary in enumerate(('"nope"', None, '{"no": "trigger"}')):
        path = tmp_path / f"20261201-090{n}-aaaaaa.jsonl"
        body = "" if boundary is None else f', "boundary": {boundary}'
        path.write_text(f'{{"v": 1, "id": "a", "kind": "boundary"{body}}}\n')
        assert not answered.answered(path), boundary


def test_a_response_line_with_no_parts_is_no_answer(tmp_path: Path) -> None:
    """A damaged line of a failed start that says `response` but holds no reply made it count as answered."""
    for n, message in enumerate(('{"kind": "response"}', '{"kind": "response", "parts": "x"}',
                                 '{"kind": "response", "parts": []}')):
        path = tmp_path / f"20261201-090{n}-bbbbbb.jsonl"
        path.write_text(f'{{"v": 1, "id": "a", "kind": "message", "message": {message}}}\n')
        assert not answered.answered(path), message


def test_the_note_names_a_session_by_the_prompt_the_listing_gives_it(tmp_path: Path) -> None:
    """began_with.py reads the first prompt without pydantic-ai, and as far as it: it agrees with
    listing.scan, or says it cannot tell (None)."""
    from compact_agent.session.began_with import began_with
    from compact_agent.session.listing import scan

    typed = SessionStore(tmp_path, "20261201-0900-aaaaaa")  # a failed start: the prompt saved as typed
    typed.save_prompt("typed first")
    sent = SessionStore(tmp_path, "20261201-0906-gggggg")  # then sent: the request carries it
    sent.save_prompt("typed, then sent")
    sent.append([ModelRequest(parts=[UserPromptPart("typed, then sent")])])
    paths = [typed.path, sent.path, session(tmp_path, "20261201-0901-bbbbbb", "plain", "done", 1),
             session(tmp_path, "20261201-0902-cccccc", "  \nnot answered", None, 2)]
    rewound = SessionStore(tmp_path, "20261201-0903-dddddd")
    rewound.append([ModelRequest(parts=[UserPromptPart("before the rewind")]), ModelResponse(parts=[TextPart("ok")])])
    rewound.rewrite({"trigger": "rewind"}, [ModelRequest(parts=[UserPromptPart("kept")])])
    paths.append(rewound.path)
    unsent = tmp_path / "20261201-0904-eeeeee.jsonl"
    unsent.write_text('{"v": 1, "id": "p1", "kind": "prompt", "prompt": {"text": "typed, never sent"}}\n')
    paths.append(unsent)
    for path in paths:
        assert began_with(path) == scan(path).prompt != "", path
    legacy = tmp_path / "20261201-0905-ffffff.jsonl"  # compacted before boundaries carried a note
    legacy.write_text('{"v": 1, "id": "b", "kind": "boundary", "boundary": {"trigger": "auto"}}\n')
    assert began_with(legacy) is None


def test_only_a_line_that_may_hold_a_reply_is_parsed_and_only_up_to_the_first(tmp_path: Path, monkeypatch) -> None:
    """A failed start whose prompt was a paste of megabytes: its lines are looked at, not parsed."""
    failed = session(tmp_path, "20261201-0901-bbbbbb", 'a "paste" ' * 10_000, None, 2_000)
    work = session(tmp_path, "20261201-0900-aaaaaa", "my real work", "done", 1_000)
    SessionStore(tmp_path, work.stem).append([ModelRequest(parts=[UserPromptPart("more")]),
                                              ModelResponse(parts=[TextPart("done again")])])
    parsed: list[object] = []
    parse = answered.lines.parsed
    monkeypatch.setattr(answered.lines, "parsed", lambda s: parsed.append(s) or parse(s))
    assert not answered.answered(failed) and parsed == []
    assert answered.answered(work) and len(parsed) == 1


def test_a_failure_asks_only_whether_its_session_was_answered_since_the_start(tmp_path: Path, monkeypatch) -> None:
    """What -c opens was found as the prompt was saved (signals held): a failure does not look
    through every session again, only at its own for a reply since."""
    from compact_agent import stop_signals
    from compact_agent.ui import print_mode, print_slash

    session(tmp_path, "20261201-0900-aaaaaa", "my real work", "done", 1_000)
    failed = session(tmp_path, "20261201-0901-bbbbbb", "oops", None, 2_000)
    monkeypatch.setattr(stop_signals, "_state", stop_signals._State())
    stop_signals.prompt_saved(True, failed.stem, by_id=True)
    monkeypatch.setattr(answered, "continued", lambda found: pytest.fail("every session read again"))
    assert f"-r {failed.stem} -p" in print_mode._hints(tmp_path, failed.stem)[0]
    SessionStore(tmp_path, failed.stem).append([ModelResponse(parts=[TextPart("an answer")])])
    assert print_mode._hints(tmp_path, failed.stem)[0] == print_slash.RETRY_HINT  # -c opens it now
