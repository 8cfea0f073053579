"""/compact against a server whose window is smaller than the one given, and a /compact that fails.

A session built at 16K, then `-c -p /compact --context-window 16k` against an 8K server: every summary
request asked for what 16K leaves and was refused ("maximum context length is 8000 tokens"), four in
a row, then the line advised a larger --context-window "(or /compact in the REPL)"; run again, it did
it all again. Now the first refusal teaches the window, as a refused chat request does (said once,
kept for the session and for the next sessions with that server), and the summary is asked within it.

A /compact whose summary request failed (HTTP 500) was said as a failed turn: 'the session is saved
with your message: send it again (↑ Enter) to retry', or 'send "go on"' after a turn whose tools ran.
A /compact sends no message and changes nothing when it fails: it says so, and to run it again.
"""

from __future__ import annotations

import asyncio
import re
from pathlib import Path
from typing import Any

import pytest

from compact_agent.agent.run import server_windows
from compact_agent.agent.run.options import SessionOptions
from compact_agent.ui.print_mode import run_print
from tests.e2e.scripted import FileTaskAgent, is_summary_request, make_project, task_text
from tests.fakes.openai_server import FakeOpenAIServer
from tests.fixed_part import window

from .failing_compact import NO_RETRIES, failing_summaries
from .repl_driver import drive

N = 4


def options(tmp_path: Path, server: FakeOpenAIServer, **more: Any) -> SessionOptions:
    return SessionOptions(cwd=tmp_path / "project", model="fake-model", base_url=server.base_url, api_key="k",
                          permission_mode="yes", home=tmp_path / "home", settings=NO_RETRIES, **more)


def test_compact_learns_the_servers_window_from_its_refused_summary(tmp_path: Path,
                                                                   capsys: pytest.CaptureFixture[str]) -> None:
    make_project(tmp_path / "project", N)
    size = window(8_000)  # as much room beside the system prompt and tools as at six tools
    with FakeOpenAIServer(FileTaskAgent(n=N), window=16_000) as big, \
            FakeOpenAIServer(FileTaskAgent(n=N), window=size) as small:
        assert asyncio.run(run_print(options(tmp_path, big, context_window=16_000), task_text(N))) == 0
        capsys.readouterr()
        at_small = options(tmp_path, small, context_window=16_000, continue_last=True)
        assert asyncio.run(run_print(at_small, "/compact")) == 0
        out, err = capsys.readouterr()
        assert "compacted (manual" in out, (out, err)
        assert (f"the server at {small.base_url} refused a summary request: its window is {size:,}, not the 16,000 given; working within "
                f"{size:,} from now on") in " ".join(err.split()), err
        assert len(small.rejected) == 1 and is_summary_request(small.rejected[0][0])
        kept = server_windows.remembered_as(tmp_path / "home", small.base_url, "fake-model")
        assert kept is not None and (kept.window, kept.how) == (size, "refused")

        assert asyncio.run(run_print(at_small, "/status")) == 0  # the session keeps it too
        assert f"/ window {size:,} tokens" in capsys.readouterr().out
    assert len(small.rejected) == 1


#: The summary request's second form failed as the first did: said, with the requests of both.
SECOND = r"sent again as text \(its second form\), it failed the same way \(2 requests in all\)"


async def test_a_failed_compact_in_the_repl_says_nothing_was_changed_and_to_run_it_again(tmp_path: Path) -> None:
    with failing_summaries(tmp_path) as server:
        run = await drive(tmp_path, None, ["read notes.txt\r", "/compact\r"], server=server, settings=NO_RETRIES)
    line = " ".join(run.out.split())
    assert re.search(r"not compacted: the summary request failed: the provider failed \(HTTP 500\)[^;]*; "
                     + SECOND + r"; nothing was changed; /compact again to retry", line), run.out
    assert "go on" not in line and "send it again" not in line


def test_a_failed_compact_in_print_mode_says_how_to_run_it_again(tmp_path: Path,
                                                                   capsys: pytest.CaptureFixture[str]) -> None:
    with failing_summaries(tmp_path) as server:
        assert asyncio.run(run_print(options(tmp_path, server), "read notes.txt")) == 0
        assert asyncio.run(run_print(options(tmp_path, server, continue_last=True), "/compact")) == 1
    err = " ".join(capsys.readouterr().err.split())
    assert re.search(r"not compacted: the summary request failed: the provider failed \(HTTP 500\)[^;]*; "
                     + SECOND + r"; nothing was changed; `compact-agent -c -p /compact` again to retry", err), err
    assert "continues it" not in err


def refusal(limit_named: bool) -> Exception:
    from pydantic_ai.exceptions import ModelContextWindowExceededError

    said = "This model's maximum context length is 8000 tokens. However, you requested 8950 tokens."
    return ModelContextWindowExceededError(400, "fake-model", body={"error": {
        "code": "context_length_exceeded", "message": said if limit_named else "the prompt is too long"}})


@pytest.mark.parametrize("named", [True, False])
def test_a_request_too_long_for_the_server_never_advises_a_larger_window_given(named: bool) -> None:
    from compact_agent.error_text import describe_error
    from compact_agent.ui.compact_failure import compact_failed

    line = describe_error(refusal(named))
    assert "larger --context-window" not in line and "/compact" not in line, line
    assert ("of 8,000 tokens and could not be shrunk to fit it; use a model or server" in line) is named, line
    assert "after compaction" not in line, line  # said also where the compaction failed and made none
    assert line.endswith("use a model or server with a larger window"), line
    compact = str(compact_failed(refusal(named), "/compact"))
    assert compact.startswith("not compacted: the summary request is too long for the server's window"), compact
    assert ("window of 8,000 tokens even" in compact) is named and "again to retry" not in compact
