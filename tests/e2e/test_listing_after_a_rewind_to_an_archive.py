"""How many messages the sessions listing counts after a `/rewind` to a turn sent before a
compaction, whose conversation comes back from the transcript that compaction archived.

Before, `compact-agent sessions`, `-r`'s list and `/resume` counted the messages of the compacted
conversation and those of the archived one on top of each other ('76 messages' for a conversation of
30), and `/resume` said it was 'compacted to 30' though no compaction stood in it any more.
"""

from __future__ import annotations

from pathlib import Path

from compact_agent.agent.run.runner import AgentSession
from compact_agent.session import listing
from compact_agent.ui.sessions_list import first_prompt, resumed_size
from tests.fakes.openai_server import ChatRequest, FakeOpenAIServer, Reply, message_text

from .scripted import is_notes_request, is_summary_request
from .test_rewind_after_compaction import session, written_twice_and_compacted

WORDS = " lorem ipsum dolor sit amet" * 120  # answers long enough for /compact to be worth it


def editor(req: ChatRequest) -> Reply:
    """`write W` reads hello.txt, then writes W in it; else: the prompts seen."""
    if is_summary_request(req):
        return Reply.text("<summary>1. Primary Request and Intent: hello.txt was written twice.</summary>")
    if is_notes_request(req):
        return Reply.text("")
    users = [message_text(m) for m in req.messages if m.get("role") == "user"]
    asked = max(i for i, m in enumerate(req.messages) if m.get("role") == "user")
    results = [message_text(m) for m in req.messages[asked:] if m.get("role") == "tool"]
    words = users[-1].split()
    if words[0] == "write" and len(results) < 2:
        return Reply.tools([("read_file", {"path": "hello.txt"})] if not results else
                           [("write_file", {"path": "hello.txt", "content": words[1] + "\n"})])
    return Reply.text("DONE: " + (results[-1] if results else " | ".join(users)) + WORDS)


async def written_twice_compacted_and_rewound(s: AgentSession) -> None:
    """hello.txt at "zero"; "write one", "write two", /compact, one more turn, /rewind 1: the
    conversation is the one before "write two", from the archive."""
    hello, _ = await written_twice_and_compacted(s)
    await s.run_turn("write three")
    back = s.rewind(1)
    assert "the compaction is undone" in back.conversation and hello.read_text() == "one\n"


async def test_the_listing_counts_the_conversation_the_rewind_brought_back(tmp_path: Path) -> None:
    with FakeOpenAIServer(editor) as server:
        s = session(tmp_path, server)
        try:
            await written_twice_compacted_and_rewound(s)
            held = listing.counted(s.messages)
            assert held == 6  # write one, read, its result, write, its result, the answer
            assert first_prompt(s.store.path) == ("write one", held)
            assert resumed_size(s.store.path, held) == "6 messages"  # no 'compacted to': none is in it
            await s.run_turn("what now")
            assert first_prompt(s.store.path) == ("write one", held + 2)
        finally:
            s.close()


async def test_from_the_archive_of_a_second_compaction_the_first_ones_messages_still_count(tmp_path: Path) -> None:
    """That archive begins with the first compaction's summary, which stands for the 12 messages of
    "write one" and "write two": they are counted, those of "write three" and after are not."""
    with FakeOpenAIServer(editor) as server:
        s = session(tmp_path, server)
        try:
            await written_twice_and_compacted(s)
            await s.run_turn("write three")
            await s.compact()
            await s.run_turn("write four")
            assert first_prompt(s.store.path) == ("write one", 24)
            back = s.rewind(2)  # to before "write three", from the second archive
            assert "the compaction is undone" in back.conversation
            assert first_prompt(s.store.path) == ("write one", 12)
            assert resumed_size(s.store.path, listing.counted(s.messages)) == \
                f"12 messages, compacted to {listing.counted(s.messages)}"
        finally:
            s.close()
