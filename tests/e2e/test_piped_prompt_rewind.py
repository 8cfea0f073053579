"""A prompt read all from stdin (`-p -`, also with `-c`) is what its `/rewind` checkpoint shows and
gives back: it was saved as "", so `/rewind` listed a blank turn and asked to rewind to before “”,
while `/history` showed the prompt. A prompt given as the argument, with stdin added after it,
keeps the argument alone there (what the user typed)."""

from __future__ import annotations

import json

from tests.fakes.openai_server import FakeOpenAIServer, Reply


def test_a_piped_prompt_is_its_checkpoints_prompt(cli) -> None:
    with FakeOpenAIServer(lambda r: Reply.text("ok")) as server:
        first = cli("-p", "-", "--base-url", server.base_url, "-m", "fake-model", input="first, from stdin\n")
        second = cli("-c", "-p", "second, as an argument", input="a log piped after it\n")
        third = cli("-c", "-p", "-", input="third,\nfrom stdin\n")
        listed = cli("-c", "-p", "/rewind")
        [saved] = cli.home.glob("projects/*/*/checkpoints/checkpoints.json")
        kept = json.loads(saved.read_text())
    assert [first.code, second.code, third.code, listed.code] == [0] * 4, \
        (first.stderr, second.stderr, third.stderr, listed.stderr)
    items = kept["checkpoints"] if isinstance(kept, dict) else kept
    assert [c["prompt"] for c in items[:3]] == ["first, from stdin", "second, as an argument", "third, from stdin"]
    lines = listed.stdout.splitlines()
    assert any(line.split() == ["0", "›", "first,", "from", "stdin"] for line in lines), listed.stdout
    assert any(line.split() == ["2", "›", "third,", "from", "stdin"] for line in lines), listed.stdout
