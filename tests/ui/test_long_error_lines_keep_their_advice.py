"""A long error line keeps its end, what to do: every line was cut at its 400th character, so a
/compact whose summary request failed with a long provider message said 'not compacted: … (2
requests in all); nothing was' and lost 'changed; /compact again to retry'. Now the line loses its
middle (where it quotes the provider) for an ellipsis, and stays bounded. Real HTTP: the fake
OpenAI server fails every summary request with HTTP 500 and a long message."""

from __future__ import annotations

import re
from pathlib import Path

from compact_agent.error_causes import LINE_LIMIT, bounded
from compact_agent.error_text import describe_error

from .failing_compact import NO_RETRIES, failing_summaries
from .repl_driver import drive

#: What the provider said, long: its words run well past what one line may hold.
SAID = "the summary backend is overloaded: " + " ".join(f"shard-{i} busy" for i in range(60))


async def test_a_failed_compact_with_a_long_provider_message_ends_with_its_advice(tmp_path: Path) -> None:
    with failing_summaries(tmp_path, SAID) as server:
        run = await drive(tmp_path, None, ["read notes.txt\r", "/compact\r"], server=server, settings=NO_RETRIES)
    said = " ".join(run.out.split())
    found = re.search(r"not compacted: .*?; nothing was changed; /compact again to retry", said)
    assert found is not None, run.out
    line = found.group()
    assert line.endswith("(2 requests in all); nothing was changed; /compact again to retry"), line
    assert line.startswith("not compacted: the summary request failed: the provider failed (HTTP 500)"), line
    assert " … " in line and len(line) <= LINE_LIMIT, line


def test_a_line_is_cut_in_its_middle_between_words() -> None:
    head, advice = "cannot do it: the provider said ", "; nothing was changed; do it again to retry"
    long = head + " ".join(f"word{i}" for i in range(200)) + advice
    line = bounded(long)
    assert len(line) <= LINE_LIMIT and line.startswith(head) and line.endswith(advice), line
    kept = line.replace(" … ", " ").split()
    assert all(w in long.split() for w in kept), line  # no word cut in two
    assert bounded("short line") == "short line"


def test_a_provider_message_cut_says_so() -> None:
    from pydantic_ai.exceptions import ModelHTTPError

    said = describe_error(ModelHTTPError(400, "m", body={"error": {"message": "x " * 400}}))
    assert "x x…" in said and len(said) < 600, said
