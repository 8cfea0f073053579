"""A paste too large for the window the agent was given (`--context-window 32k`) goes as its two
ends and the file that holds it; a server whose window is smaller still (a llama.cpp server
started with 6K) refuses even that, and the message is cut again to the window it taught. The
second cut is of the whole paste, not of the first cut's preview: its file held that preview (the
model had to read one file to find the other), now it holds the whole paste, and the model reads
one file."""

from __future__ import annotations

import re
from pathlib import Path

from tests.e2e.conftest import Cli
from tests.e2e.test_big_input_smaller_window import QUESTION, answer
from tests.fakes.openai_server import FakeOpenAIServer, message_text

# ~14,000 tokens: over the room of a 32,000 window (half its 20,800 threshold, 10,400), whose
# preview (a quarter of that room at each end) is over what a 6,000 window holds.
PASTE = "".join(f"entry {i}: the value is {i * 7 % 1000}\n" for i in range(2_000)) + QUESTION


def saved_inputs(text: str) -> list[Path]:
    return [Path(p) for p in re.findall(r"Full input saved to (\S+) ", text)]


def test_a_cut_paste_refused_again_is_cut_from_the_whole_paste(cli: Cli) -> None:
    with FakeOpenAIServer(answer, window=6_000, model="local", overflow="llama.cpp") as server:
        run = cli("-p", PASTE, "-m", "local", "--base-url", server.base_url, "--api-key", "k",
                  "--context-window", "32k")
        assert run.code == 0, run.stderr
        assert run.stdout.strip() == "SAW THE QUESTION", run.stderr
        assert len(server.rejected) == 1, run.stderr
        first = "\n".join(message_text(m) for m in server.rejected[0][0].messages if m.get("role") == "user")
        sent = "\n".join(message_text(m) for m in server.requests[-1].messages if m.get("role") == "user")
    [was] = saved_inputs(first)
    [path] = saved_inputs(sent)
    assert path != was and path.read_text() == PASTE, path.read_text()[:300]  # the whole paste, in one file
    assert sent.startswith("entry 0: the value is 0\n") and "entry 1999: the value is" in sent
