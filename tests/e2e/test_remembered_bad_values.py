"""A value a session file remembers that cannot be used (`context_window: -3` in its options, a
hand-edited or damaged file) was blamed on a flag nobody gave (`bad value for context_window (from
flag)`), `-r ID -p` stopped with exit 2 while the REPL's `/resume` went on. Now it is named as the
session's, said in one line, and the session goes on without it, by either way in."""

from __future__ import annotations

import json
from pathlib import Path

from tests.e2e.test_remembered_base_url import remembered_line
from tests.fakes.openai_server import FakeOpenAIServer, Reply


def spoil(path: Path, **values: object) -> None:
    """Set `values` in the options the session file's meta entry remembers."""
    lines = path.read_text().splitlines()
    for n, line in enumerate(lines):
        entry = json.loads(line)
        if entry.get("kind") == "meta" and "options" in entry.get("meta", {}):
            entry["meta"]["options"].update(values)
            lines[n] = json.dumps(entry)
    path.write_text("\n".join(lines) + "\n")


def test_print_mode_says_the_session_remembers_a_bad_window_and_goes_on(cli) -> None:
    with FakeOpenAIServer(lambda req: Reply.text("ok")) as server:
        base = ("--model", "fake-model", "--base-url", server.base_url, "--api-key", "k")
        first = cli("-p", "hello", *base, "--context-window", "16k", "--output-format", "stream-json")
        sid = json.loads(first.stdout.splitlines()[0])["session_id"]
        [path] = cli.home.rglob(f"{sid}.jsonl")
        spoil(path, context_window=-3)
        again = cli("-r", sid, "-p", "hi", "--api-key", "k", "--output-format", "stream-json")
        after = cli("-r", sid, "-p", "and again", "--api-key", "k")
    assert again.code == 0, again.stderr
    assert "(from flag)" not in again.stderr
    [line] = [x for x in again.stderr.splitlines() if "context_window" in x]
    assert line == (f"compact-agent: note: bad value for context_window (remembered by session {sid}): must be a "
                    "positive number of tokens (such as 32000, 32k or 128K), not -3; the session goes on with the default; "
                    f"{remembered_line(base[3])}")
    init = json.loads(again.stdout.splitlines()[0])
    assert (init["model"], init["window"]) == ("fake-model", 32_768)  # the rest it remembers still holds
    assert after.code == 0 and "context_window" not in after.stderr  # said once: no longer remembered
    assert len(server.requests) == 3
