"""A read of a path the system cannot follow does not stop the session's compactions.

The project held a link to itself (`ln -s loop loop`) and the model read `loop/x.txt`: the tool
answered with a one-line error, as it should. Once the context reached the threshold, the turn
ended with 'compact-agent: a link that loops, or a path the system cannot follow: loop/x.txt' and
exit 1, and so did every later `-c -p …`; `-c -p /compact` said 'not compacted: the summary
request failed: …' although no request had been sent. A compaction names each file a call is on
to pair calls on one file (the agent's `resolve_path`, which raises for that path); one it cannot
name is now named by its text, and the compaction goes on. A `~user` not known was the same.
"""

from __future__ import annotations

from collections.abc import Callable

import pytest

from tests.fakes.openai_server import ChatRequest, FakeOpenAIServer, Reply

from .scripted import FileTaskAgent, is_summary_request, make_project, task_text

N = 24
WINDOW = "12000"
FULL_SUMMARY = {"COMPACT_AGENT_MEMORY_ENABLED": "false", "COMPACT_AGENT_COLLAPSE_ENABLED": "false",
                "COMPACT_AGENT_COMPACTION_RECORDS": "false", "COMPACT_AGENT_MICROCOMPACT_TRIGGER": "1000"}


def first_a_path_not_followed(agent: FileTaskAgent, path: str) -> Callable[[ChatRequest], Reply]:
    """The scripted model reads `path` first, then does the file task."""
    asked = [False]

    def responder(req: ChatRequest) -> Reply:
        if not asked[0] and not is_summary_request(req):
            asked[0] = True
            return Reply.tools([("read_file", {"path": path})], content="First the notes.")
        return agent(req)
    return responder


@pytest.mark.parametrize("path", ["loop/x.txt", "~nosuchuser-of-this-test/notes.txt"], ids=["link-loop", "unknown-user"])
def test_the_session_compacts_and_goes_on(cli, path: str) -> None:
    (cli.cwd / "loop").symlink_to("loop")
    expected = make_project(cli.cwd, N)
    agent = FileTaskAgent(N)
    with FakeOpenAIServer(first_a_path_not_followed(agent, path), window=128_000) as server:
        first = cli("-p", task_text(N), "--model", "fake-model", "--base-url", server.base_url, "--api-key", "k",
                    "--context-window", WINDOW, "--yes", "--verbose", env=FULL_SUMMARY)
        auto = len(agent.summaries)
        again = cli("-c", "-p", "go on", "--api-key", "k", "--context-window", WINDOW, "--yes", env=FULL_SUMMARY)
        manual = cli("-c", "-p", "/compact", "--api-key", "k", env=FULL_SUMMARY)

    assert first.code == 0, first.stderr
    assert f"FINAL SUM: {expected}" in first.stdout
    assert auto >= 1  # compacted on the way, past the failed read
    answer = next(m for m in server.requests[1].messages if m.get("role") == "tool")
    assert str(answer["content"]).startswith("read_file failed: ")  # the tool said it, in one line
    assert again.code == 0, again.stderr
    assert manual.code == 0, manual.stderr
    assert "compacted (manual" in " ".join(manual.stdout.split()), manual.stdout
    assert "not compacted" not in manual.stderr
