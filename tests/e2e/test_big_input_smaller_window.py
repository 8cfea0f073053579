"""A long input that fits the window the agent was given, sent to a server whose window is smaller
(`--context-window 32k` for a llama.cpp server or a vLLM engine started with 8K): the server
refuses it, the agent learns the smaller window, and before, the reactive compaction folded the
message into a record of its first few hundred characters. The model never saw the question at
the end of the paste. Now the message is cut as `fit_input` cuts input too large for a window known
beforehand: the typed words whole, the input's two ends and the file that holds all of it, said in
one line, and the request is sent again with that."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from tests.e2e.conftest import Cli
from tests.e2e.scripted import is_notes_request, is_summary_request
from tests.fakes.openai_server import FakeOpenAIServer, Reply, message_text

QUESTION = "Which entry is the odd one out? (QUESTION-AT-THE-END)"
# ~7,500 tokens: under the room of a 32,000 window (half its 20,800 threshold), over that of 8,000 (2,600)
PASTE = "".join(f"entry {i}: the value is {i * 7 % 1000}\n" for i in range(1_100)) + QUESTION
NOTE = "is more than the 5,200 at which the conversation is compacted in the 8,000-token window of the server at"


def answer(req) -> Reply:
    if is_summary_request(req):
        return Reply.text("<summary>1. Primary Request and Intent: a pasted list.</summary>")
    if is_notes_request(req):
        return Reply.text("")
    said = "\n".join(message_text(m) for m in req.messages if m.get("role") == "user")
    return Reply.text("SAW THE QUESTION" if QUESTION in said else "NO QUESTION")


def saved_input(text: str) -> Path:
    found = re.search(r"Full input saved to (\S+) ", text)
    assert found is not None, text[-600:]
    return Path(found.group(1))


@pytest.mark.parametrize("style", ["llama.cpp", "vllm"])
def test_a_paste_refused_by_a_smaller_window_goes_as_its_ends_and_a_file(cli: Cli, style: str) -> None:
    with FakeOpenAIServer(answer, window=8_000, model="local", overflow=style) as server:  # type: ignore[arg-type]
        at = ("-m", "local", "--base-url", server.base_url, "--api-key", "k", "--context-window", "32k")
        run = cli("-p", PASTE, *at)
        assert run.code == 0, run.stderr
        assert run.stdout.strip() == "SAW THE QUESTION", run.stderr
        assert len(server.rejected) == 1
        notes = [line for line in run.stderr.splitlines() if NOTE in line]
        assert len(notes) == 1, run.stderr
        sent = "\n".join(message_text(m) for m in server.requests[-1].messages if m.get("role") == "user")
        path = saved_input(sent)
        assert path.read_text() == PASTE  # nothing lost: the whole paste, in the session's tool-results
        assert path.parent.name == "tool-results" and str(path) in notes[0]
        assert sent.startswith("entry 0: the value is 0\n") and "entry 600:" not in sent

        history = cli("-c", "-p", "/history", *at)  # the message as sent, in the session, and its answer
        assert history.code == 0, history.stderr
        rows = history.stdout[history.stdout.index("messages ("):].splitlines()[1:]
        assert [row.split()[:3] for row in rows] == [["0", "you", "entry"], ["1", "assistant", "SAW"]], rows
        [session] = cli.sessions()
        kept = [json.loads(line) for line in session.read_text().splitlines()]
        assert not any("entry 600:" in json.dumps(e) for e in kept)  # the paste is in the file, not twice


def test_piped_input_refused_by_a_smaller_window_keeps_the_typed_words_whole(cli: Cli) -> None:
    """`cat list.txt | compact-agent -p "..."`: the typed words go first and whole, the piped input
    as its two ends and the file."""
    body = PASTE.removesuffix(QUESTION)
    with FakeOpenAIServer(answer, window=8_000, model="local", overflow="llama.cpp") as server:
        run = cli("-p", QUESTION, "-m", "local", "--base-url", server.base_url, "--api-key", "k",
                  "--context-window", "32k", input=body)
        assert run.code == 0, run.stderr
        assert run.stdout.strip() == "SAW THE QUESTION", run.stderr
        sent = "\n".join(message_text(m) for m in server.requests[-1].messages if m.get("role") == "user")
        assert sent.startswith(QUESTION + "\n\nentry 0: the value is 0\n"), sent[:200]
        assert saved_input(sent).read_text() == body
        assert "entry 1099: the value is" in sent and "entry 600:" not in sent
