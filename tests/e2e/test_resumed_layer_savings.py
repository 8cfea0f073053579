"""A resumed session's -p --verbose says what its own requests freed, not what earlier runs did.

The layers' frozen decisions are re-applied on the first request of a new process (the prompt
cache needs the same prefix). That request counted every one of them as new: a run that cleared
two small results said 'context: old tool results cleared (2 results), freed 3,208 tokens', the
1,968 of a large result cleared (and said) by the run before it included. The saving a restart
counts from is now saved with the decisions, and the line says the two results' own 1,240.
"""

from __future__ import annotations

import re

from tests.fakes.openai_server import FakeOpenAIServer, Reply

# Microcompact, unpriced, on its count trigger: with more than one live result it clears every
# result the model has seen once they free 1,000 tokens. The large first result alone does (in
# the first run); the two small ones together only once the model has seen the last of them,
# which is at the resumed run's first request.
SETTINGS = """[compaction]
priced_compaction = false
microcompact_keep_recent = 0
microcompact_trigger = 1
microcompact_min_free_tokens = 1000
"""
COMMANDS = ["seq 1 1800", "seq 1001 1500", "seq 2001 2500"]  # ~2,000 tokens, then ~600 and ~600
CLEARED = re.compile(r"^context: old tool results cleared \((\d) results?\), freed ([\d,]+) tokens$",
                     re.MULTILINE)


def numbers(req) -> Reply:
    if req.last_user_text().startswith("show"):
        done = sum(m["role"] == "tool" for m in req.messages)
        return Reply.tools([("bash", {"command": COMMANDS[done]})]) if done < len(COMMANDS) else Reply.text("seen")
    return Reply.text("you are welcome")


def cleared(stderr: str) -> list[tuple[int, int]]:
    return [(int(n), int(freed.replace(",", ""))) for n, freed in CLEARED.findall(stderr)]


def test_a_resumed_run_says_only_what_its_own_requests_freed(cli) -> None:
    cli.home.mkdir(parents=True, exist_ok=True)
    (cli.home / "config.toml").write_text(SETTINGS)
    with FakeOpenAIServer(numbers) as server:
        args = ("--model", "fake-model", "--base-url", server.base_url, "--api-key", "k",
                "--context-window", "32k", "--yes", "--verbose")
        first = cli("-p", "show the numbers", *args)
        resumed = cli("-c", "-p", "thanks", *args)
    assert first.code == 0 and first.stdout == "seen\n", first.stdout + first.stderr
    assert resumed.code == 0 and resumed.stdout == "you are welcome\n", resumed.stdout + resumed.stderr
    [(one, large)] = cleared(first.stderr)
    [(two, small)] = cleared(resumed.stderr)
    assert (one, two) == (1, 2), (first.stderr, resumed.stderr)
    # The two small results free over 1,000 tokens (their trigger) and less than the large one.
    assert 1_000 <= small < large, (first.stderr, resumed.stderr)
