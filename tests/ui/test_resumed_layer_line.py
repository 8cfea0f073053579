"""The first turn of a REPL resumed with -c says what its own requests freed, not what the session
before it did: re-applied at the first measure of the new process, the decisions frozen earlier
were counted as new, and the line of two small results cleared gave 3,208 tokens, the 1,968 of a
large result cleared in the earlier session included (the same scene as the -p test,
tests/e2e/test_resumed_layer_savings.py). Nor does it say again what the last turn before it said
its first request would free (SessionFeed.foretell, kept beside the session): 'freed 1,240 tokens'
came at the end of the first run and again in the resumed one."""

from __future__ import annotations

import re

from compact_agent.config import Settings
from tests.e2e.test_resumed_layer_savings import numbers
from tests.fakes.openai_server import FakeOpenAIServer

from .repl_driver import drive

CLEARED = re.compile(r"context: old tool results cleared \((\d) results?\), freed ([\d,]+) tokens")
#: The scene: old tool results cleared at once (the -p test's settings), in a 32K window.
SETTINGS = Settings(priced_compaction=False, microcompact_keep_recent=0, microcompact_trigger=1,
                    microcompact_min_free_tokens=1_000)


async def clearing_turn(tmp_path, monkeypatch, server: FakeOpenAIServer):  # type: ignore[no-untyped-def]
    """The REPL's turn "show the numbers" in the scene, the home and settings file the test's own."""
    monkeypatch.setenv("COMPACT_AGENT_HOME", str(tmp_path / "home"))
    monkeypatch.setenv("COMPACT_AGENT_CONFIG", str(tmp_path / "none.toml"))  # not the user's own
    return await drive(tmp_path, numbers, ["show the numbers\r"], server=server, settings=SETTINGS,
                       context_window=32_000, permission_mode="yes")


async def test_a_resumed_repl_says_only_what_its_own_requests_freed(tmp_path, monkeypatch) -> None:
    with FakeOpenAIServer(numbers) as server:
        first = await clearing_turn(tmp_path, monkeypatch, server)
        resumed = await drive(tmp_path, numbers, ["thanks\r"], server=server, settings=SETTINGS,
                              context_window=32_000, permission_mode="yes", continue_last=True)
    [(one, _)] = CLEARED.findall(first.out)
    # The first run's turn says the large result its request cleared and, at its end, the two small
    # ones the look under its next prompt clears (tests/ui/test_freed_with_its_figure.py); a look
    # decides nothing, so the resumed run's first request decides them: said already, not again.
    assert one == "3", first.out
    assert CLEARED.findall(resumed.out) == [], resumed.out
    assert "you are welcome" in resumed.out, resumed.out
