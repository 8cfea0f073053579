"""What /history and /status say of a paste cut to the window a server's refusal taught (the
newest prompt rewritten in the session, the message as it came archived): 'the input was cut to
fit the server's window of 8,000 tokens', with the archive that holds the whole text. It said
'compaction (history_changed, replace)  0 → 0 tokens' and /status counted a compaction."""

from __future__ import annotations

import json

from tests.e2e.conftest import Cli
from tests.e2e.test_big_input_smaller_window import PASTE, answer
from tests.fakes.openai_server import FakeOpenAIServer

CUT = "the input was cut to fit the server's window of 8,000 tokens"


def test_history_names_the_cut_input_and_where_the_whole_text_is(cli: Cli) -> None:
    with FakeOpenAIServer(answer, window=8_000, model="local", overflow="llama.cpp") as server:
        at = ("-m", "local", "--base-url", server.base_url, "--api-key", "k", "--context-window", "32k")
        run = cli("-p", PASTE, *at)
        assert run.code == 0 and run.stdout.strip() == "SAW THE QUESTION", run.stderr
        history = cli("-c", "-p", "/history", *at)
        status = cli("-c", "-p", "/status", *at)
    assert history.code == 0, history.stderr
    lines = history.stdout.splitlines()
    assert lines[0] == "no compactions yet", history.stdout
    assert lines[1].endswith(CUT) and lines[2].strip() == "the whole text, as it came, is in:", history.stdout
    assert "0 → 0" not in history.stdout and "history_changed" not in history.stdout
    [archive] = cli.archives()
    assert lines[3].strip() == str(archive)
    held = [json.loads(line) for line in archive.read_text().splitlines()]
    assert [p.get("content") for e in held if e["kind"] == "message" for p in e["message"]["parts"]] == [PASTE]
    assert status.code == 0, status.stderr
    assert "compactions 0 in the whole session" in status.stdout, status.stdout
