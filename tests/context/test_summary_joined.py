"""A compaction message keeps what it carries when it is joined with the requests after it. The
history after a compaction often has a request next to it (the plan given back, the kept tail's
first prompt); adjacent requests are joined into one as a provider is sent them, on a session's load
(pydantic-ai's repair, which keeps no metadata) and by the compaction itself. Joined on load, the
compaction message lost its metadata: the user's messages it carries and its ledger of changed
files, which the next compaction carries on, and the mark that says it is no message of the user's."""

from __future__ import annotations

import asyncio
from pathlib import Path

from pydantic_ai import Agent
from pydantic_ai.messages import ModelMessage, ModelRequest, ModelResponse, TextPart, UserPromptPart
from pydantic_ai.models.function import AgentInfo, FunctionModel

from compact_agent.context.compaction import ledger, summary
from compact_agent.context.compaction.cuts import join
from compact_agent.context.plumbing.markers import is_compaction_message, joined_metadata
from compact_agent.session.store import SessionStore

KEPT = {"compact_agent": {"synthetic": "kept"}}


def compacted(archive: Path | None) -> list[ModelMessage]:
    head = summary.summary_message("they read the parser", archive, ["fix the parser"], "full",
                                   {"parser.py": ["edit"]})
    return [head, ModelRequest(parts=[UserPromptPart("[compact-agent: plan]\n- [ ] fix the parser")],
                               metadata={"context": ["plan"]}),
            ModelRequest(parts=[UserPromptPart("and the lexer")], metadata=KEPT),
            ModelResponse(parts=[TextPart("done")])]


def check(messages: list[ModelMessage]) -> None:
    assert len(messages[0].parts) == 3  # joined: the summary, the plan, the prompt after them
    assert summary.is_summary(messages[0]) and is_compaction_message(messages[0])
    assert summary.user_texts(messages) == ["fix the parser", "and the lexer"]
    assert summary.records_in(messages[0]) == ["they read the parser"]
    assert "parser.py" in ledger.changed_files(messages)
    assert messages[0].metadata is not None and messages[0].metadata["context"] == ["plan"]


def test_a_compaction_message_joined_on_load_keeps_what_it_carries(tmp_path: Path) -> None:
    store = SessionStore(tmp_path, "s1")
    store.append([ModelRequest(parts=[UserPromptPart("fix the parser")]), ModelResponse(parts=[TextPart("ok")])])
    archive = store.archive()
    store.rewrite({"trigger": "auto", "strategy": "full", "tokens_before": 900, "tokens_after": 300,
                   "archive": str(archive), "time": ""}, compacted(archive))  # as a file may hold them: apart
    check(list(store.load().messages))


def test_the_compactions_own_join_keeps_it_for_the_next_run() -> None:
    history = join(compacted(None))  # as a compaction hands its history on
    check(history)
    seen: list[list[ModelMessage]] = []

    def model(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        seen.append(list(messages))
        return ModelResponse(parts=[TextPart("ok")])

    asyncio.run(Agent(FunctionModel(model)).run("go on", message_history=history))
    check(seen[-1][:-1])


def test_no_later_request_replaces_the_compaction_messages_entry() -> None:
    head, plan, kept, _ = compacted(None)
    meta = joined_metadata([head, plan, kept])
    assert meta is not None and meta["compact_agent"] == head.metadata["compact_agent"]  # type: ignore[index]
    assert joined_metadata([plan, kept]) == {"context": ["plan"], **KEPT}  # else the later one wins
    assert joined_metadata([ModelRequest(parts=[])]) is None
