"""Codex's context in the user's role is the harness's, and what of it opens the rollout is fixed prompt.

Codex records its AGENTS.md instructions and the environment as user-role messages, and records what
a person typed a second time as a ``user_message`` event. The replay read every user-role message
as typed: each copy of AGENTS.md Codex re-sent later in a session became words every strategy had to
keep whole through every compaction, and the opening copy, which Codex puts back at the head of every
compacted history, went with the first compaction of any strategy that compacted.
"""

from __future__ import annotations

import dataclasses
from pathlib import Path
from typing import Any

from pydantic_ai.messages import ModelMessage, ModelRequest, ModelResponse, ToolCallPart, UserPromptPart

from compact_agent.replay.baselines import Masking
from compact_agent.replay.retention import typed_texts
from compact_agent.replay.simulate import calibrate, fixed_prompt, replay, replay_messages

from .synthetic import session, sim
from .test_baselines import Spy
from .test_codex_rollouts import HEAD, assistant, call, load, user
from .test_importer_traps import cx, token_count

AGENTS = "# AGENTS.md instructions for /repo\n\n<INSTRUCTIONS>\n" + "Run make before you commit.\n" * 60 + "</INSTRUCTIONS>"
ENVIRONMENT = "<environment_context>\n  <cwd>/repo</cwd>\n</environment_context>"


def typed(text: str) -> list[dict[str, Any]]:
    """A message a person typed, as Codex records it: the item the model saw and the UI's event."""
    return [user(text), cx("event_msg", {"type": "user_message", "message": text, "images": []})]


def with_image(text: str) -> list[dict[str, Any]]:
    """A typed message with a pasted image: Codex wraps the image in blocks of its own."""
    blocks = [{"type": "input_text", "text": text}, {"type": "input_text", "text": "<image name=[Image #1]>"},
              {"type": "input_image", "image_url": "data:image/png;base64,AAAA"}, {"type": "input_text", "text": "</image>"}]
    return [cx("response_item", {"type": "message", "role": "user", "content": blocks}),
            cx("event_msg", {"type": "user_message", "message": text, "images": ["data:image/png;base64,AAAA"]})]


def rollout(tmp_path: Path, agents: str = AGENTS, skill: str = "<skill>\nname: deploy\n" + "step\n" * 30 + "</skill>"):
    records = [*HEAD, user(agents), *typed("fix the bug"), *call("c1", "pytest"), assistant("fixed"),
               token_count(900, 800, 0, 10), user(agents), user(ENVIRONMENT), *with_image("what is this error?"),
               user(skill), assistant("a typo"), token_count(2_000, 1_100, 800, 10)]
    return load(tmp_path, records)


def test_only_what_the_person_typed_counts_as_typed(tmp_path: Path) -> None:
    transcript = rollout(tmp_path, skill="please deploy it the usual way")  # text no prefix gives away
    said = typed_texts(transcript.messages, transcript.harness_texts)
    assert said[0] == "fix the bug" and said[1].startswith("what is this error?\n<image") and len(said) == 2
    assert {AGENTS, ENVIRONMENT, "please deploy it the usual way"} <= transcript.harness_texts


def test_redacted_messages_match_their_events_by_length_and_hash(tmp_path: Path) -> None:
    """The published rollouts are redacted: the item says TEXT where its event says MESSAGE."""
    records = [*HEAD, user("[REDACTED_TEXT len=3019 sha=37168476]"), user("[REDACTED_TEXT len=516 sha=05857781]"),
               cx("event_msg", {"type": "user_message", "message": "[REDACTED_MESSAGE len=516 sha=05857781]"}),
               assistant("done"), token_count(900, 800, 0, 10)]
    transcript = load(tmp_path, records)
    # filler of the recorded length, stripped
    assert [len(t) // 10 for t in typed_texts(transcript.messages, transcript.harness_texts)] == [51]
    assert sorted(len(t) // 10 for t in transcript.opening_context) == [6, 301]  # HEAD holds the environment


def test_a_rollout_that_records_no_typed_events_is_read_by_prefixes(tmp_path: Path) -> None:
    records = [*HEAD, user(AGENTS), user("fix the bug"), user("please deploy it"), assistant("done"),
               token_count(900, 800, 0, 10)]
    transcript = load(tmp_path, records)
    assert typed_texts(transcript.messages, transcript.harness_texts) == ["fix the bug", "please deploy it"]
    assert not transcript.opening_context


def test_the_opening_context_goes_with_every_request(tmp_path: Path) -> None:
    """AGENTS.md and the environment before the first typed message are in the fixed prompt; the copy
    Codex re-sent later, and the skill, stay conversation."""
    transcript = rollout(tmp_path)
    assert transcript.opening_context == {AGENTS.strip(), ENVIRONMENT.strip()}
    replayed = [str(p.content) for m in replay_messages(transcript) for p in m.parts if isinstance(p, UserPromptPart)]
    assert replayed.count(AGENTS) == 1 and replayed.index(AGENTS) > replayed.index("fix the bug")
    assert ENVIRONMENT in replayed[replayed.index(AGENTS):]  # only the one sent again
    without, n = fixed_prompt(transcript.messages)
    assert fixed_prompt(transcript.messages, transcript.opening_context)[1] >= n + len(AGENTS) // 4
    assert calibrate(transcript).overhead > 0


async def test_masking_leaves_harness_context_alone_where_the_agent_calls_tools(tmp_path: Path) -> None:
    """Masking's observations are what the environment answered: tool results, or, in a format with no
    calls, the harness's user messages. A Codex rollout's re-sent AGENTS.md is neither."""
    t = session([("go", [400] * 12)])
    notice = "<turn_context>the sandbox changed</turn_context>"
    messages: list[ModelMessage] = list(t.messages)
    at = next(i for i, m in enumerate(messages) if isinstance(m, ModelRequest) and i > 1)
    messages[at] = dataclasses.replace(messages[at], parts=[*messages[at].parts, UserPromptPart(notice)])
    t = dataclasses.replace(t, messages=messages, harness_texts=frozenset({notice}))
    assert any(isinstance(p, ToolCallPart) for m in messages if isinstance(m, ModelResponse) for p in m.parts)
    s = sim(1_000_000)
    s.transcript = t
    spy = Spy(Masking(s))
    await replay(t, spy, s)
    texts = [str(p.content) for m in spy.views[-1] if isinstance(m, ModelRequest) for p in m.parts]
    assert notice in texts
    assert sum(x.startswith("Old environment output") for x in texts) == 2  # 12 results, the newest 10 stay
