"""The sessions of Cline's SDK (`sessions/<id>/<id>.messages.json`): the document told by its shape,
each response's `metrics` as its usage, the system prompt as the fixed prompt, whose words a user
message holds, a run's total left out, the compactions it records in the file or beside it, and
the session folder's other files. The documents are written here in the shapes the SDK writes."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from pydantic_ai.messages import ModelRequest, SystemPromptPart, UserPromptPart

from compact_agent.replay import load_transcript
from compact_agent.replay._cline_sidecar import fingerprint
from compact_agent.replay.finding import find_files
from compact_agent.replay.retention import typed_texts
from compact_agent.replay.simulate import calibrate, recorded_points, replay_messages

from ._helpers import assert_valid_conversation, responses

SID = "1760000000000_k3x9q"
SYSTEM = "You are a coding agent working in /w.\n" * 200
MODEL = {"id": "claude-z", "provider": "anthropic", "family": "claude"}


def prompt(text: str, mode: str = "act", **extra: Any) -> dict[str, Any]:
    return {"id": f"u{text[:3]}", "role": "user", "content": [
        {"type": "text", "text": f'<user_input mode="{mode}">{text}</user_input>'}], **extra}


def call(n: int, metrics: dict[str, int] | None) -> list[dict[str, Any]]:
    """A response calling a tool, then its result."""
    answer: dict[str, Any] = {"id": f"a{n}", "role": "assistant", "ts": 1_760_000_000_000 + n, "modelInfo": MODEL,
                              "content": [{"type": "tool_use", "id": f"c{n}", "name": "read_files",
                                           "input": {"path": f"/w/f{n}.py"}}]}
    if metrics is not None:
        answer["metrics"] = metrics
    return [answer, {"id": f"r{n}", "role": "user", "content": [
        {"type": "tool_result", "tool_use_id": f"c{n}", "content": f"line of f{n}\n" * 300, "is_error": False}]}]


def reply(n: int, metrics: dict[str, int] | None) -> dict[str, Any]:
    answer: dict[str, Any] = {"id": f"a{n}", "role": "assistant", "ts": 1_760_000_000_000 + n, "modelInfo": MODEL,
                              "content": [{"type": "text", "text": f"done {n}"}]}
    return {**answer, "metrics": metrics} if metrics is not None else answer


def m(total: int, out: int = 20, read: int = 0, write: int = 0) -> dict[str, int]:
    return {"inputTokens": total, "outputTokens": out, "cacheReadTokens": read, "cacheWriteTokens": write, "cost": 0}


def session(folder: Path, messages: list[dict[str, Any]], *, agent: str = "lead", stem: str = SID,
            system: str | None = SYSTEM) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    document: dict[str, Any] = {"version": 1, "updated_at": "2026-08-20T10:00:00.000Z", "agent": agent,
                                "sessionId": SID, "messages": messages}
    if system is not None:
        document["system_prompt"] = system
    path = folder / f"{stem}.messages.json"
    path.write_text(json.dumps(document))
    return path


def kept_beside(folder: Path, messages: list[dict[str, Any]], count: int, summary: str) -> None:
    """The compaction the SDK keeps beside the session, made from its first `count` messages, with
    their fingerprint as the SDK writes it (checked against the SDK's own in test_cline_sidecar.py)."""
    (folder / f"{SID}.compaction.json").write_text(json.dumps({
        "version": 1, "updated_at": "2026-08-20T10:00:00.000Z", "conversation_id": SID, "source_message_count": count,
        "source_prefix_hash": fingerprint(messages[:count], "v2"), "source_last_message_key": f"id:{messages[count - 1]['id']}",
        "messages": [{"role": "user", "content": [{"type": "text", "text": summary}],
                      "metadata": {"kind": "compaction_summary"}}]}))


def usage(path: Path) -> list[tuple[int, int, int, int] | None]:
    return [None if r.usage.unmeasured_requests else
            (r.usage.input_tokens, r.usage.cache_read_tokens, r.usage.cache_write_tokens, r.usage.output_tokens)
            for r in responses(load_transcript(path).messages)]


def test_a_session_is_read_as_cline_with_its_metrics_and_system_prompt(tmp_path: Path) -> None:
    path = session(tmp_path, [prompt("read the two files"), *call(1, m(5_200, read=4_000, write=1_000)),
                              *call(2, m(6_100, read=5_000)), reply(3, m(7_000, read=6_000))])
    transcript = load_transcript(path)
    assert transcript.format == "cline" and not transcript.warnings
    assert_valid_conversation(transcript.messages)
    # The SDK's inputTokens is the whole prompt, the cached parts included: not added again.
    assert usage(path) == [(5_200, 4_000, 1_000, 20), (6_100, 5_000, 0, 20), (7_000, 6_000, 0, 20)]
    first = transcript.messages[0]
    assert isinstance(first, ModelRequest) and isinstance(first.parts[0], SystemPromptPart)
    assert first.parts[0].content == SYSTEM
    # The system prompt goes with every request: the fit's overhead, not a message a compaction drops.
    assert not any(isinstance(p, SystemPromptPart) for msg in replay_messages(transcript) for p in msg.parts)
    assert calibrate(transcript).overhead > 1_000


def test_counts_reported_apart_are_summed(tmp_path: Path) -> None:
    """A handler that reports the cached parts apart from the input (Anthropic's way) gives an input
    smaller than the cached part."""
    path = session(tmp_path, [prompt("go"), reply(1, m(12, read=9_000, write=500))])
    assert usage(path) == [(9_512, 9_000, 500, 20)]


def test_only_the_wrapped_words_are_the_persons(tmp_path: Path) -> None:
    notice = "<mode_notice>The mode changed.</mode_notice>\n"
    typed = '<user_input mode="plan">look at f1.py</user_input>'
    attached = {"type": "file", "path": "/w/notes.md", "content": "NOTES BODY"}
    path = session(tmp_path, [
        {"id": "u1", "role": "user", "content": [{"type": "text", "text": notice + typed}, attached]},
        *call(1, m(100)),
        {"id": "n1", "role": "user", "metadata": {"kind": "recovery_notice"},
         "content": [{"type": "text", "text": "Please use a tool."}]},
        reply(2, m(200)),
        {"id": "u2", "role": "user", "content": [{"type": "text", "text": "an older release's unwrapped prompt"}]},
        reply(3, m(300)),
    ])
    transcript = load_transcript(path)
    # The person's words are those inside the SDK's wrapper, not the wrapper with its mode.
    assert typed_texts(transcript.messages, transcript.harness_texts) == ["look at f1.py",
                                                                          "an older release's unwrapped prompt"]
    texts = [p.content for msg in transcript.messages if isinstance(msg, ModelRequest) for p in msg.parts]
    # All of it is sent as the SDK sent it, the wrapper too; the attached file as the SDK sends it.
    assert notice + typed in "".join(t for t in texts if isinstance(t, str))
    assert '<file_content path="/w/notes.md">\nNOTES BODY\n</file_content>' in texts


def test_a_runs_total_is_not_taken_for_a_requests_size(tmp_path: Path) -> None:
    """Before April 2026 the SDK put a run's total on its last response; until May it still did on a
    last response without counts of its own, beside the others' own; and it still does on the last
    response of a run whose requests have no counts of their own (the note said "before May 2026")."""
    total_only = session(tmp_path / "a", [prompt("go"), *call(1, None), *call(2, None), reply(3, m(30_000))])
    duplicated = session(tmp_path / "b", [prompt("go"), *call(1, m(9_000, out=5)), *call(2, m(10_000, out=7)),
                                          reply(3, m(19_000, out=12))])
    one_each = session(tmp_path / "c", [prompt("go"), *call(1, m(9_000)), reply(2, m(10_000)),
                                        prompt("again"), reply(3, m(11_000))])
    assert usage(total_only) == [None, None, None]
    assert usage(duplicated) == [(9_000, 0, 0, 5), (10_000, 0, 0, 7), None]
    assert usage(one_each) == [(9_000, 0, 0, 20), (10_000, 0, 0, 20), (11_000, 0, 0, 20)]
    [said] = load_transcript(duplicated).warnings
    assert said.startswith("1 response ending a run of several requests carries the only usage recorded in the run")
    assert "which Cline records there when the run's requests have no counts of their own" in said, said
    assert not load_transcript(one_each).warnings



def test_what_cline_puts_among_the_persons_words_is_not_typed(tmp_path: Path) -> None:
    """Inside <user_input> Cline puts text of its own where the person typed a command or named a file:
    /deep-planning's instructions in <explicit_instructions>, a command the CLI expanded in <user_command>
    (its instructions; of /team, the words after its fixed request are the person's), a mode notice, what
    an @ mention brought in. They were counted as typed, so the fidelity measure looked for Cline's
    instructions and files in every compaction."""
    planning = ('<explicit_instructions type="deep-planning">\nYour task is to create a comprehensive '
                'implementation plan before writing any code.\n</explicit_instructions>\n')
    workflow = '<user_command slash="release">Bump the version, tag it and push the tag.</user_command>'
    team = '<user_command slash="team">spawn a team of agents for the following task: port the parser</user_command>'
    notice = "<mode_notice>The user switched from plan mode to act mode before sending this message.</mode_notice>"
    mention = 'see \'src/a.py\' (see below for file content)\n\n<file_content path="src/a.py">\nA BODY\n</file_content>'
    sent = [f"{planning}add caching to the fetcher", f"{workflow} for 2.1", team, f"{notice}now do it", mention]
    path = session(tmp_path, [p for n, text in enumerate(sent, 1) for p in (prompt(text), reply(n, m(100 * n)))])
    transcript = load_transcript(path)
    assert typed_texts(transcript.messages, transcript.harness_texts) == [
        "add caching to the fetcher", "for 2.1", "port the parser", "now do it",
        "see 'src/a.py' (see below for file content)"]
    texts = "".join(p.content for msg in transcript.messages if isinstance(msg, ModelRequest) for p in msg.parts
                    if isinstance(p, UserPromptPart) and isinstance(p.content, str))
    assert all(f'<user_input mode="act">{text}</user_input>' in texts for text in sent)  # sent as Cline sent it

def test_a_file_rewritten_compacted_starts_from_the_summary(tmp_path: Path) -> None:
    """Releases before July 2026 rewrote the file compacted: the summary first, the conversation it
    stands for gone. It is Cline's text, not the person's, and the sizes recorded after it are of
    requests that sent what the file holds, so they are fitted."""
    summary = "Context summary:\n\n## Goal\nFix f1.py"
    path = session(tmp_path, [
        {"id": "s", "role": "user", "content": [{"type": "text", "text": summary}],
         "metadata": {"kind": "compaction_summary", "displayRole": "system", "summary": "## Goal\nFix f1.py",
                      "tokensBefore": 90_000, "generatedAt": 1_760_000_000_000}},
        prompt("and now f2.py"), *call(1, m(3_000)), reply(2, m(3_900))])
    transcript = load_transcript(path)
    assert typed_texts(transcript.messages, transcript.harness_texts) == ["and now f2.py"]
    assert [(c["kind"], c["message_index"]) for c in transcript.recorded_compactions] == [("summary", None)]
    assert transcript.warnings == ["Cline compacted this session before the file was last written: the conversation "
                                   "before it is gone, a summary in its place, and it is replayed from there"]
    assert len(recorded_points(transcript, transcript.messages)) == 2
    assert summary in [getattr(p, "content", None) for msg in replay_messages(transcript) for p in msg.parts]


def test_the_compaction_kept_beside_the_file_is_recorded_where_it_ends(tmp_path: Path) -> None:
    """Since July 2026 the file keeps the whole conversation and the compacted view of its first
    messages is kept beside it: the requests after it sent that view, smaller than the history."""
    messages = [prompt("read"), *call(1, m(5_000)), *call(2, m(6_000)), prompt("more"), *call(3, m(2_000)),
                reply(4, m(2_500))]
    path = session(tmp_path, messages)
    kept_beside(tmp_path, messages, 5, "Context summary:\n\nread f1, f2")
    transcript = load_transcript(path)
    [compaction] = transcript.recorded_compactions
    assert compaction["message_index"] is not None
    assert len(recorded_points(transcript, transcript.messages)) == 2
    assert transcript.warnings == [
        f"Cline compacted this session ({SID}.compaction.json beside it stands for its first 5 messages, the latest "
        "compaction): the history is replayed whole, and the sizes recorded from there on are not used to fit ours"]


def test_a_session_folder_holds_its_conversations_and_nothing_else(tmp_path: Path) -> None:
    folder = tmp_path / "sessions" / SID
    lead = session(folder, [prompt("go"), reply(1, m(100))])
    helper = session(folder, [prompt("find the config"), reply(1, m(80))], agent="subagent", stem="agent_7")
    (folder / f"{SID}.json").write_text(json.dumps({"version": 1, "session_id": SID, "source": "cli"}))
    (folder / f"{SID}.compaction.json").write_text(json.dumps({"version": 1, "messages": [],
                                                               "source_message_count": 0}))
    found = find_files([tmp_path / "sessions"])
    assert found.files == [lead, helper] and not found.notes
    assert load_transcript(helper).warnings == ["the conversation of a Cline subagent (agent: subagent), whose "
                                                "session saw only its answer: replayed as a session of its own"]
    named = find_files([folder / f"{SID}.json"])
    assert not named.files and named.notes == [
        f"skipped {folder / (SID + '.json')}: one of Cline's files beside the session's {SID}.messages.json, "
        "which is read with it"]


def test_a_message_of_a_role_not_known_here_is_named(tmp_path: Path) -> None:
    path = session(tmp_path, [prompt("go"), {"id": "x", "role": "status", "content": [{"type": "text", "text": "…"}]},
                              reply(1, m(100))])
    transcript = load_transcript(path)
    assert transcript.skipped == 1 and len(responses(transcript.messages)) == 1
    assert [w for w in transcript.warnings if "status 1" in w] == [
        "skipped 1 entry of a kind the analyzer does not know (status 1): what it held, if the model saw it, is "
        "missing from the replay"]


def test_an_earlier_compaction_the_file_beside_no_longer_records_ends_the_fit_where_the_sizes_fall(
        tmp_path: Path) -> None:
    """The file beside holds the latest compaction only: each re-compaction writes it again over the whole
    history so far. Before, the requests between the first compaction and the latest, which sent a
    compacted view (2,000 after 6,000 here), were fitted as if they held the whole history."""
    messages = [prompt("read"), *call(1, m(5_000)), *call(2, m(6_000)), prompt("more"), *call(3, m(2_000)),
                *call(4, m(2_600)), prompt("again"), *call(5, m(1_900)), reply(6, m(2_100))]
    path = session(tmp_path, messages)
    kept_beside(tmp_path, messages, 10, "Context summary")
    transcript = load_transcript(path)
    assert [p[1] for p in recorded_points(transcript, transcript.messages)] == [5_000, 6_000]
    assert transcript.warnings == [
        f"Cline compacted this session more than once ({SID}.compaction.json beside it stands for its first 10 "
        "messages, the latest compaction; an earlier one, which Cline keeps no record of, shows where the sizes it "
        "recorded fall, between messages 4 and 7): the history is replayed whole, and the sizes recorded from there on are not "
        "used to fit ours"]
    assert_valid_conversation(transcript.messages)
