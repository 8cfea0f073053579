"""The disk fills while the answer of a `-p` run is saved: the library's `HistoryNotSaved` reaches the
command line as one line in our words, naming the file, with no traceback and no exception name.

The save before the request is the library's (its store append); so is the save of the answer at the
run's end. Injected with the crash-point mechanism (`append.partial:<n>:enospc`, see
compact_agent.crashpoints): a `-p` run appends three times, the typed prompt, the request, the answer.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from compact_agent import crashpoints
from tests.fakes.openai_server import ChatRequest, FakeOpenAIServer, Reply

from .common import cli, cli_args, session
from .harness import Zygote


@pytest.fixture(autouse=True)
def disarm() -> Iterator[None]:
    yield
    crashpoints.configure("")


def echo(req: ChatRequest) -> Reply:
    return Reply.text("echo")


@pytest.mark.parametrize(("nth", "sent"), [(2, 0), (3, 1)])  # before the request; at the run's end
async def test_a_save_the_library_makes_on_a_full_disk_is_one_line(tmp_path: Path, zygote: Zygote, nth: int,
                                                                   sent: int) -> None:
    home, cwd = tmp_path / "home", tmp_path / "project"
    with FakeOpenAIServer(echo) as server:
        s = session(home, cwd, server, api_key="k")
        await s.run_turn("remember PELICAN")
        await s.aclose()
        before = len(server.requests)
        full = cli(home, cwd, *cli_args(server, "second"), "--api-key", "k", "--continue",
                   env={"COMPACT_AGENT_CRASH_AT": f"append.partial:{nth}:enospc"}, zygote=zygote)
        assert len(server.requests) - before == sent  # nothing is sent that could not be saved first
    errors = [ln for ln in full.stderr_lines() if not ln.startswith("compact-agent: warning:")]
    assert full.code == 1 and len(errors) == 1, full.stderr
    assert errors[0].startswith("compact-agent: could not write the session file ")
    intact = ": No space left on device (injected at append.partial); what was saved before is intact"
    if sent:  # the answer came: it is the output all the same, and the line says so (test_answer_not_saved.py)
        intact += "; the model's answer was received but not saved"
    assert intact in errors[0] and errors[0].endswith(intact if not sent else "without it"), errors[0]
    assert "Traceback" not in full.stderr and "Error" not in full.stderr and "[Errno" not in full.stderr
