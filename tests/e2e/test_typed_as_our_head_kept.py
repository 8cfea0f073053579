"""A message the user sends that begins as the program's own texts do (`[compact-agent: …`, a
digest's `[Collapsed history digest]`: a piped issue or log may) is the user's: after a compaction it
is among the user's messages the next request carries, verbatim. It was taken for the program's own
text by its first words and left out, the task with it, kept only in the archive."""

from __future__ import annotations

import pytest

from tests.fakes.openai_server import FakeOpenAIServer, Reply, message_text

from .scripted import is_summary_request
from .test_print_commands import fake

TASK = "Please FIX_BUG_42 in parser.py"


def worker(req) -> Reply:  # type: ignore[no-untyped-def]
    """Two long outputs, then an answer: enough for /compact to have something to fold."""
    if is_summary_request(req):
        return Reply.text("<summary>\n1. Primary Request and Intent: work in progress.\n</summary>")
    done = sum(1 for m in req.messages if m.get("role") == "tool")
    if done < 2:
        return Reply.tools([("bash", {"command": f"seq 1 {3000 + done} | head -c 20000"})])
    return Reply.text("done")


@pytest.mark.parametrize("head", ["[compact-agent: note]", "[Collapsed history digest]"])
def test_a_typed_message_that_begins_as_ours_survives_the_compaction(cli, head: str) -> None:
    typed = f"{head} {TASK}"
    with FakeOpenAIServer(worker) as server:
        first = cli("-p", typed, "--yes", *fake(server))
        compacted = cli("-c", "-p", "/compact", *fake(server))
        after = len(server.requests)
        again = cli("-c", "-p", "and then?", "--yes", *fake(server))
    assert first.code == 0 and compacted.code == 0 and again.code == 0, (first.stderr, compacted.stderr, again.stderr)
    assert "compacted" in compacted.stdout, compacted.stdout
    sent = server.requests[after]
    texts = [message_text(m) for m in sent.messages if m.get("role") == "user"]
    assert any("The user's messages" in t and typed in t for t in texts), texts
