"""`-c -p /compact` says what the REPL's /compact says: the compaction's figures, then where the
transcript went. One that would free about nothing is refused before its summary is asked for, in
one whole line when written to a pipe or a file."""

from __future__ import annotations

import re

from tests.fakes.openai_server import FakeOpenAIServer, Reply

from .scripted import is_summary_request


def fake(server: FakeOpenAIServer) -> tuple[str, ...]:
    return ("--model", "fake-model", "--base-url", server.base_url, "--api-key", "k")


def answers(words: int):
    def answer(req) -> Reply:
        return Reply.text("<summary>the work so far</summary>" if is_summary_request(req) else "answer " * words)
    return answer


def talk(cli, server: FakeOpenAIServer, turns: int, words: int) -> None:
    for i in range(turns):
        assert cli(*(["-c"] if i else []), "-p", f"question {i} " + "q " * words, *fake(server)).code == 0


def test_compact_in_print_mode_says_its_figures_as_the_repl(cli) -> None:
    with FakeOpenAIServer(answers(400)) as server:
        talk(cli, server, 3, 40)
        res = cli("-c", "-p", "/compact", "--verbose", *fake(server))
    assert res.code == 0, res.stderr
    first, archived = res.stdout.splitlines()
    said = re.fullmatch(r"compacted \(manual, full\): ([\d,]+) → ([\d,]+) tokens in \d+ ms", first)
    assert said and int(said[1].replace(",", "")) > int(said[2].replace(",", "")), res.stdout
    assert archived.startswith("full transcript archived at ")
    assert "compacted (" not in res.stderr  # --verbose does not say it a second time


def test_a_compaction_that_would_free_about_nothing_asks_for_no_summary(cli) -> None:
    with FakeOpenAIServer(answers(40)) as server:
        talk(cli, server, 4, 40)
        asked = len(server.requests)
        res = cli("-c", "-p", "/compact", *fake(server))
        assert len(server.requests) == asked, "a summary was asked for"
    assert res.code == 0, res.stderr
    line = res.stdout.removesuffix("\n")
    assert "\n" not in line, res.stdout  # to a pipe: whole, not laid out at 80 columns
    said = re.fullmatch(r"not compacted: a compaction would free at most ([\d,]+) of the ([\d,]+) tokens in use, "
                        r"about what its summary would take\. Even without a summary it would keep ([\d,]+): .*\. "
                        r"It is worth it once the conversation is longer\. Nothing was changed\.", line)
    assert said, line
    free, now, least = (int(said[i].replace(",", "")) for i in (1, 2, 3))
    assert 0 < free == now - least, line
    assert not cli.archives()
