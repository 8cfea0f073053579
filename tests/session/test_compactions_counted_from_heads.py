"""`/status` (and /cost, /history) count a session's compactions from the boundary at the head of
each archive, not by loading every archive whole: 28 archives were 12.8 MB read and built into
messages for one count, 3.5 s of CPU at 252. Each file is now read up to its first message."""

from __future__ import annotations

import io
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from pydantic_ai.messages import ModelRequest, ModelResponse, TextPart, UserPromptPart

from compact_agent.agent.run.options import session_root
from compact_agent.session import lines
from compact_agent.session.archives import head_boundaries
from compact_agent.session.store import SessionStore
from compact_agent.ui import render
from compact_agent.ui.commands import dispatch
from compact_agent.ui.history_view import all_boundaries, compactions
from tests.fakes.openai_server import FakeOpenAIServer, Reply
from tests.ui.test_commands_terminal import session

ROUNDS = 4
WORDS = "a line of a long answer, kept whole in the session file " * 40


def compacted_session(home: Path, cwd: Path) -> SessionStore:
    """A session with `ROUNDS` compactions, each archive about 180 KB of messages."""
    store = SessionStore(session_root(cwd, home), "20261206-110000-abcdef")
    store.lock()
    try:
        for k in range(ROUNDS):
            store.append([m for i in range(50) for m in (ModelRequest(parts=[UserPromptPart(f"question {k}.{i}")]),
                                                          ModelResponse(parts=[TextPart(WORDS)]))])
            archive = store.archive()
            store.rewrite({"trigger": "manual", "strategy": "full", "tokens_before": 9_000 + k, "tokens_after": 900,
                           "archive": str(archive), "time": ""},
                          [ModelRequest(parts=[UserPromptPart(f"summary {k}")])])
    finally:
        store.unlock()
    return store


@contextmanager
def bytes_read() -> Any:
    """The bytes the session's line reader reads, counted (in chunks of 4 KB)."""
    read = [0]
    real = lines.open_regular

    class Counted:
        def __init__(self, f: Any) -> None:
            self.f = f

        def __enter__(self) -> Counted:
            self.f.__enter__()
            return self

        def __exit__(self, *exc: object) -> None:
            self.f.__exit__(*exc)

        def read(self, n: int = -1) -> bytes:
            data = self.f.read(n)
            read[0] += len(data)
            return data

    chunk, lines._CHUNK = lines._CHUNK, 4096
    lines.open_regular = lambda path, **kw: Counted(real(path, **kw))  # type: ignore[assignment]
    try:
        yield read
    finally:
        lines.open_regular, lines._CHUNK = real, chunk  # type: ignore[assignment]


async def test_status_counts_the_compactions_reading_only_the_head_of_each_archive(tmp_path: Path) -> None:
    cwd = tmp_path / "project"
    cwd.mkdir()
    store = compacted_session(tmp_path / "home", cwd)
    archived = sum(p.stat().st_size for p in store.archives())
    assert len(store.archives()) == ROUNDS and archived > ROUNDS * 150_000
    with bytes_read() as read:
        found = compactions(all_boundaries(store))
    assert [b.tokens_before for b in found] == [9_000 + k for k in range(ROUNDS)]
    assert read[0] < ROUNDS * 3 * 4096, (read[0], archived)  # the head of each, not 1 MB and more
    with FakeOpenAIServer(lambda req: Reply.text("ok")) as server:
        s = session(tmp_path, server, session_id=store.session_id)
        try:
            c = render.make_console()
            c.file, c.record = io.StringIO(), True
            with bytes_read() as read:
                await dispatch(s, "/status", c)
            said = " ".join(c.export_text().split())
        finally:
            s.close()
    assert f"compactions {ROUNDS} in the whole session (0 since this run began)" in said, said
    assert read[0] < ROUNDS * 3 * 4096 + store.path.stat().st_size, read[0]


def test_a_boundary_after_the_first_message_is_no_head(tmp_path: Path) -> None:
    """Only the head is read: the boundary a rewrite wrote first is found; the file's messages are not."""
    store = compacted_session(tmp_path / "home", tmp_path)
    assert [b.tokens_before for b in head_boundaries(store.archives()[-1])] == [9_000 + ROUNDS - 2]
    assert head_boundaries(store.archives()[0]) == []  # the first archive: a session never rewritten
