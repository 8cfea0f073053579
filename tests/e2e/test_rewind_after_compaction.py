"""`/rewind` after a compaction, in print mode: the checkpoints of the turns before it are still
there, a rewind to one puts the files back as they were before that message, and the conversation
goes back to before it from the transcript the compaction archived (the compaction is undone).

Before, any compaction (`/compact`, or the automatic one of a long session) dropped every
checkpoint: `-c -p /rewind` then said "no checkpoints: a compaction dropped them", and the files
could no longer be put back."""

from __future__ import annotations

import json
from pathlib import Path

from compact_agent.agent.run.options import SessionOptions
from compact_agent.agent.run.runner import AgentSession
from compact_agent.config import Settings
from tests.fakes.openai_server import ChatRequest, FakeOpenAIServer, Reply, message_text

from .scripted import is_notes_request, is_summary_request

WORDS = "lorem ipsum dolor sit amet " * 120  # answers long enough for /compact to be worth it


def fake(server: FakeOpenAIServer) -> tuple[str, ...]:
    return ("--model", "fake-model", "--base-url", server.base_url, "--api-key", "k")


def editor(req: ChatRequest, words: str = WORDS) -> Reply:
    """`write one` / `write two` write hello.txt; anything else is answered with the prompts it saw."""
    if is_summary_request(req):
        return Reply.text("<summary>1. Primary Request and Intent: hello.txt was written twice.</summary>")
    if is_notes_request(req):
        return Reply.text("")
    users = [message_text(m) for m in req.messages if m.get("role") == "user"]
    asked = max(i for i, m in enumerate(req.messages) if m.get("role") == "user")
    results = sum(m.get("role") == "tool" for m in req.messages[asked:])
    if users[-1].startswith("write "):  # read the file, write it, say so
        if results == 0:
            return Reply.tools([("read_file", {"path": "hello.txt"})])
        if results == 1:
            return Reply.tools([("write_file", {"path": "hello.txt", "content": users[-1].split()[1] + "\n"})])
        return Reply.text("written. " + words)
    return Reply.text("SAW: " + " | ".join(users))


def test_rewind_after_compact_restores_files_and_the_archived_conversation(cli):
    (cli.cwd / "hello.txt").write_text("zero\n")
    with FakeOpenAIServer(editor) as server:
        one = cli("-p", "write one", *fake(server), "--yes")
        two = cli("-p", "write two", *fake(server), "--yes", "-c")
        compact = cli("-p", "/compact", *fake(server), "-c")
        assert one.code == two.code == compact.code == 0, one.stderr + two.stderr + compact.stderr
        assert (cli.cwd / "hello.txt").read_text() == "two\n"
        listed = cli("-p", "/rewind", *fake(server), "-c")
        refused = cli("-p", "/rewind 1", *fake(server), "-c")  # files change only with --yes
        rewound = cli("-p", "/rewind 1", *fake(server), "-c", "--yes")
        after = cli("-p", "what now", *fake(server), "-c")
        again = cli("-p", "/rewind", *fake(server), "-c")
    assert listed.code == 0, listed.stderr
    assert "write one" in listed.stdout and "write two" in listed.stdout, listed.stdout
    assert "before a compaction" in listed.stdout, listed.stdout
    assert refused.code == 2 and "add --yes" in refused.stderr
    assert rewound.code == 0, rewound.stderr
    assert (cli.cwd / "hello.txt").read_text() == "one\n"  # as it was after message 1
    out = " ".join(rewound.stdout.split())
    assert "restored 1 file" in out and "from the transcript archived before the compaction" in out, out
    # The conversation is the one before message 2: no summary, no "write two".
    seen = server.requests[-1]
    users = [message_text(m) for m in seen.messages if m.get("role") == "user"]
    assert users[0] == "write one" and users[-1] == "what now", users
    assert not any("write two" in u or "hello.txt was written twice" in u for u in users), users
    assert after.code == 0 and after.stdout.startswith("SAW: write one"), after.stdout
    # The session file says a rewind happened, and no checkpoint of the undone turn is left.
    session = cli.sessions()[0]
    boundaries = [json.loads(line) for line in session.read_text().splitlines() if '"boundary"' in line]
    assert boundaries and boundaries[0]["boundary"]["strategy"] == "rewind"
    assert "write two" not in again.stdout and "write one" in again.stdout, again.stdout


def prompts(messages: list) -> list[str]:
    return [p.content for m in messages for p in m.parts if p.part_kind == "user-prompt"]


def session(tmp_path: Path, server: FakeOpenAIServer, settings: Settings | None = None, **kw) -> AgentSession:
    cwd = tmp_path / "project"
    cwd.mkdir(exist_ok=True)
    return AgentSession(SessionOptions(cwd=cwd, model="fake-model", base_url=server.base_url, api_key="k",
                                       permission_mode="yes", home=tmp_path / "home",
                                       settings=settings or Settings(memory_enabled=False), **kw))


def resumed(tmp_path: Path, server: FakeOpenAIServer, sid: str) -> list[str]:
    """The prompts of session `sid` as a session that resumes it holds them."""
    s = session(tmp_path, server, session_id=sid)
    try:
        return prompts(s.messages)
    finally:
        s.close()


async def written_twice(s: AgentSession) -> Path:
    """hello.txt at "zero", then "write one" and "write two": the file."""
    hello = s.cwd / "hello.txt"
    hello.write_text("zero\n")
    for word in ("one", "two"):
        await s.run_turn(f"write {word}")
    return hello


async def written_twice_and_compacted(s: AgentSession) -> tuple[Path, Path | None]:
    """hello.txt at "zero", then "write one", "write two" and /compact: the file and the archive."""
    hello = await written_twice(s)
    return hello, (await s.compact()).archive


async def test_checkpoints_outlive_two_compactions_each_into_its_own_archive(tmp_path):
    """Two turns, /compact, two more, /compact, one more: every checkpoint is there; a rewind to
    one before the second compaction takes the conversation from the second archive (the first
    compaction's summary and the turn before it), one before the first from the first archive."""
    with FakeOpenAIServer(editor) as server:
        s = session(tmp_path, server)
        try:
            hello, first = await written_twice_and_compacted(s)
            for word in ("three", "four"):
                await s.run_turn(f"write {word}")
            second = (await s.compact()).archive
            await s.run_turn("write five")
            cps = s.checkpoints.list()
            assert [c.prompt for c in cps] == ["write one", "write two", "write three", "write four", "write five"]
            assert [c.archive for c in cps] == [str(first)] * 2 + [str(second)] * 2 + [None]
            assert hello.read_text() == "five\n"

            back = s.rewind(4)  # since the latest compaction: the conversation is cut, as always
            assert hello.read_text() == "four\n" and back.conversation == "" and back.archive is None
            back = s.rewind(3)
            assert hello.read_text() == "three\n" and back.archive == second
            assert "the compaction is undone" in back.conversation
            said = prompts(s.messages)
            assert said[-1] == "write three" and "write four" not in said
            assert "hello.txt was written twice" in said[0]  # the first compaction's summary: kept, it came before
            # The conversation the second archive held is live again: the checkpoint in it indexes it.
            assert [c.archive for c in s.checkpoints.list()] == [str(first)] * 2 + [None]
            back = s.rewind(1)
            assert hello.read_text() == "one\n" and back.archive == first
            assert prompts(s.messages) == ["write one"]
            assert (await s.run_turn("what now")).output == "SAW: write one | what now"
        finally:
            s.close()


async def test_without_its_archive_the_files_go_back_and_the_line_says_what_the_conversation_did(tmp_path):
    with FakeOpenAIServer(editor) as server:
        s = session(tmp_path, server)
        try:
            hello, archive = await written_twice_and_compacted(s)
            compacted = list(s.messages)
            await s.run_turn("write three")
            assert archive is not None
            archive.unlink()
            back = s.rewind(1)
            assert hello.read_text() == "one\n"
            assert back.conversation == ("the conversation could not go back before the compaction (the transcript "
                                         "archived then, below, is missing): it goes back to the first message sent "
                                         "since, and still holds that message and those after it, in its "
                                         "summary or kept whole")
            assert back.archive == archive and s.messages == compacted
        finally:
            s.close()


async def test_after_an_automatic_compaction_a_rewind_still_restores_the_files(tmp_path):
    """A long session in a small window compacts by itself, in the middle of a turn: the checkpoints
    of the turns before it are kept, and one of them is rewound to."""
    long = "lorem ipsum dolor sit amet " * 300
    with FakeOpenAIServer(lambda req: editor(req, long), window=16_000) as server:
        # No collapse of old rounds in the view: the history itself must be compacted.
        s = session(tmp_path, server, Settings(memory_enabled=False, collapse_enabled=False), context_window=16_000)
        hello = s.cwd / "hello.txt"
        hello.write_text("zero\n")
        words = [f"w{i}" for i in range(12)]
        try:
            for word in words:
                await s.run_turn(f"write {word}")
                if s.cm.compactions:
                    break
            assert s.cm.compactions, "no automatic compaction"
            n = len(s.checkpoints.list())
            assert n == words.index(word) + 1 and all(c.archive for c in s.checkpoints.list())
            back = s.rewind(n - 1)  # the turn the compaction came in: its checkpoint went into the archive too
            assert hello.read_text() == f"{words[n - 2]}\n" and "the compaction is undone" in back.conversation
            assert prompts(s.messages) == [f"write {w}" for w in words[:n - 1]]
            assert not any(c.archive for c in s.checkpoints.list())  # they index the conversation again
            back = s.rewind(1)
            assert hello.read_text() == "w0\n" and back.conversation == ""
            assert prompts(s.messages) == ["write w0"]
        finally:
            s.close()
