"""Retention counts only what a person typed; the stand-in summary carries messages and changed files forward."""

from __future__ import annotations

import json
from pathlib import Path

from pydantic_ai.messages import (
    ModelRequest,
    ModelResponse,
    TextPart,
    ToolCallPart,
    ToolReturnPart,
    UserPromptPart,
)

from compact_agent.context.compaction import summary
from compact_agent.context.layers.digest import DIGEST_HEADER
from compact_agent.replay.importers import load_transcript
from compact_agent.replay.retention import HARNESS_PREFIXES, Truth, is_typed, retention_of, typed_texts
from compact_agent.replay.simulate import view_text
from compact_agent.replay.standin import standin_notes, standin_summary
from tests.shared_data import DATA, requires_data


def typed(path: Path) -> list[str]:
    t = load_transcript(path)
    return typed_texts(t.messages, t.harness_texts)


@requires_data
def test_claude_code_harness_text_is_not_the_users():
    assert typed(DATA / "claude-code" / "short.jsonl") == ["mix phx.server doesnt seem to start"]
    heavy = typed(DATA / "claude-code" / "tool_heavy.jsonl")
    assert heavy[0] == "start phoenix in background" and heavy[1].startswith("scrolling back in xterm.js")
    assert len(heavy) == 2  # of 10 user-role texts: /mcp, its echoes and output, caveat, interrupts
    # The skill body is an isMeta line: only the format says it is not typed.
    t = load_transcript(DATA / "claude-code" / "subagent.jsonl")
    assert typed_texts(t.messages, t.harness_texts) == ["create the beads"]
    assert len(typed_texts(t.messages)) == 2  # without the importer's mark the skill body would count
    session = typed(DATA / "claude-code" / "258c7280-ae70-4798-800f-63464d01a85d.jsonl")
    assert session == ["Implement spotter-gqc", "check again", "new beads for the epic were added. tackle them",
                       "did you push?"]


@requires_data
def test_swe_agent_observations_and_mini_swe_agent_notices_are_not_the_users():
    swe = typed(DATA / "complexity-trap" / "swe-agent-trajectories" / "pydicom__pydicom-1458.traj")
    assert len(swe) == 1 and swe[0].startswith("We're currently solving the following issue")
    mini = next((DATA / "mini-swe-agent-deepseek").rglob("django__django-13964.traj.json"))
    assert [t[:16] for t in typed(mini)] == ["<pr_description>"]


def test_text_format_mini_swe_agent_observations_are_not_the_users(tmp_path: Path):
    """mini-swe-agent's first format: the action is a bash block in the model's text and each command's
    output comes back as a user message. Only the task was typed; the outputs are the environment's."""
    doc = {"info": {}, "trajectory_format": "mini-swe-agent-1", "messages": [
        {"role": "system", "content": "You can run bash."},
        {"role": "user", "content": "<pr_description>Fix the parser</pr_description>"},
        {"role": "assistant", "content": "Look first.\n```bash\nls src\n```"},
        {"role": "user", "content": "<returncode>0</returncode>\n<output>parser.py</output>"},
        {"role": "assistant", "content": "Read it.\n```bash\ncat src/parser.py\n```"},
        {"role": "user", "content": "<returncode>0</returncode>\n<output>def parse(): ...</output>"},
        {"role": "assistant", "content": "Done.\n```bash\necho COMPLETE_TASK_AND_SUBMIT_FINAL_OUTPUT\n```"},
    ]}  # fmt: skip
    path = tmp_path / "t.traj.json"
    path.write_text(json.dumps(doc))
    assert typed(path) == ["<pr_description>Fix the parser</pr_description>"]


def test_stand_in_summary_and_notes_list_only_what_was_typed(tmp_path: Path):
    """A text-format trajectory's command outputs are user messages too: the stand-in summary (and the
    notes) list the task, not forty outputs that would push it out of the user messages' share."""
    doc = {"info": {}, "trajectory_format": "mini-swe-agent-1", "messages": [
        {"role": "system", "content": "You can run bash."},
        {"role": "user", "content": "Fix the parser in src/parser.py"}]}
    for i in range(40):
        doc["messages"] += [{"role": "assistant", "content": f"Step {i}.\n```bash\ncat f{i}.py\n```"},
                            {"role": "user", "content": f"<output>line {i} " + "y" * 250 + "</output>"}]
    path = tmp_path / "t.traj.json"
    path.write_text(json.dumps(doc))
    t = load_transcript(path)

    def listed(text: str) -> list[str]:
        return [line for line in text.splitlines() if line.startswith("- USER: ")]

    assert listed(standin_summary(t.messages, t.harness_texts)) == ["- USER: Fix the parser in src/parser.py"]
    assert listed(standin_notes(t.messages, "Stay under about 2000 tokens", t.harness_texts)) == [
        "- USER: Fix the parser in src/parser.py"]
    assert "Fix the parser" not in "\n".join(listed(standin_summary(t.messages)))  # crowded out without


def test_typed_rule_by_hand():
    for prefix in HARNESS_PREFIXES:
        assert not is_typed(prefix + " something"), prefix
    assert not is_typed("/mcp") and not is_typed("  ") and not is_typed("a skill body", frozenset({"a skill body"}))
    assert is_typed("please fix /src/app.py") and is_typed("use tabs, never spaces")
    history = [ModelRequest(parts=[UserPromptPart("Port the parser."), UserPromptPart("<system-reminder>x</system-reminder>"),
                                   UserPromptPart("[Request interrupted by user]")])]
    truth = Truth()
    truth.add(history)
    assert truth.users == ["Port the parser."]
    r = retention_of(truth, view_text([ModelRequest(parts=[UserPromptPart("Port the parser.")])]))
    assert r.users == 1.0 and r.last_request


def test_collapse_digests_are_synthetic_not_the_users():
    digest = f"{DIGEST_HEADER} 12 earlier messages were collapsed to save context."
    assert summary.is_synthetic_text(digest)
    history = [ModelRequest(parts=[UserPromptPart("the real request")]), ModelResponse(parts=[TextPart("ok")]),
               ModelRequest(parts=[UserPromptPart(digest)])]
    assert summary.user_texts(history) == ["the real request"]
    notes = standin_notes(history, "Update the notes. Stay under about 2000 tokens")
    assert "- USER: the real request" in notes and DIGEST_HEADER not in notes.split("# ")[2]


def _edits(paths: list[str], first_id: int = 0) -> list:
    calls = [ToolCallPart("Edit", {"file_path": p, "old_string": "a", "new_string": "b"}, tool_call_id=f"e{first_id + i}")
             for i, p in enumerate(paths)]
    return [ModelResponse(parts=calls),
            ModelRequest(parts=[ToolReturnPart("Edit", "ok", tool_call_id=c.tool_call_id) for c in calls])]


def test_standin_keeps_every_changed_file_and_carries_them_forward():
    early = [f"/home/user/project/src/module_{i:02d}.py" for i in range(40)]
    first = [ModelRequest(parts=[UserPromptPart("refactor every module")]), *_edits(early)]
    text = standin_summary(first)
    assert all(f"- CHANGED: {p}" in text for p in early)  # 40 paths, none cut
    # The next summary sees only the previous summary and newer work: both lists survive.
    later = ["/home/user/project/tests/test_new.py"]
    second = [ModelRequest(parts=[UserPromptPart(summary.SUMMARY_HEAD + "\n" + text)]),
              ModelRequest(parts=[UserPromptPart("now add a test")]), *_edits(later, 100)]
    text2 = standin_summary(second)
    assert all(p in text2 for p in [*early, *later])
    assert "- USER: refactor every module" in text2 and "- USER: now add a test" in text2
    truth = Truth()
    truth.add([*first, *second[1:]])
    assert retention_of(truth, view_text([ModelRequest(parts=[UserPromptPart(text2)])])).files == 1.0


def test_standin_lists_only_typed_messages():
    history = [ModelRequest(parts=[UserPromptPart("<task-notification>done</task-notification>"),
                                   UserPromptPart("did you push?")])]
    text = standin_summary(history)
    assert "- USER: did you push?" in text and "task-notification" not in text
    json.dumps(text)
