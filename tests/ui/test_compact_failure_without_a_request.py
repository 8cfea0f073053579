"""A /compact that failed before any request says what failed, not that a summary request did.

A session whose compactions failed on a path the agent could not follow (a link that loops, a
`~user` not known) said at `-c -p /compact`: 'not compacted: the summary request failed: [Errno 2]
~nosuchuser is a home folder that is not known; nothing was changed': no request had been sent,
and `[Errno 2]` is Python's wording (error_text.describe_error took a FileNotFoundError raised with
our own words for one to quote whole). The errors here are those the agent's `resolve_path` raises;
a request's failure (an HTTP 500 of the fake OpenAI server) still says the summary request failed.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from pydantic_ai import Agent

from compact_agent.agent.safety.permissions import resolve_path
from compact_agent.error_text import describe_error
from compact_agent.models import build_model
from compact_agent.ui.compact_failure import compact_failed
from tests.fakes.openai_server import FakeOpenAIServer, Reply


def _raised(cwd: Path, path: str) -> OSError:
    with pytest.raises(OSError) as caught:
        resolve_path(cwd, path)
    return caught.value


def test_a_path_not_followed_is_said_as_itself(tmp_path: Path) -> None:
    (tmp_path / "loop").symlink_to("loop")
    unknown = _raised(tmp_path, "~nosuchuser-of-this-test/notes.txt")
    loop = _raised(tmp_path, "loop/x.txt")
    nul = _raised(tmp_path, "new\0.txt")

    assert str(compact_failed(unknown, "/compact")) == (
        "not compacted: ~nosuchuser-of-this-test is a home folder that is not known; nothing was changed")
    assert str(compact_failed(loop, "/compact")) == (
        "not compacted: a link that loops, or a path the system cannot follow: loop/x.txt; nothing was changed")
    assert str(compact_failed(nul, "/compact")) == "not compacted: a path cannot hold a NUL character; nothing was changed"
    assert describe_error(unknown, "", "") == "~nosuchuser-of-this-test is a home folder that is not known"  # a turn's line


async def test_a_request_that_failed_is_still_said_so() -> None:
    with FakeOpenAIServer(lambda req: Reply.error(500, {"error": {"message": "the server fell over"}})) as server:
        model = build_model("fake-model", base_url=server.base_url, api_key="k", max_retries=0)
        with pytest.raises(Exception) as caught:
            await Agent(model).run("summarise")
    line = str(compact_failed(caught.value, "/compact"))
    assert line.startswith("not compacted: the summary request failed: the provider failed (HTTP 500)"), line
    assert line.endswith("; nothing was changed; /compact again to retry"), line
