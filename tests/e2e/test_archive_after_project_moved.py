"""A compacted session goes on in its project renamed (`mv proj proj2`): its sessions folder follows
the project, and so do the archives its compaction names.

Before, `-c -p /history` in proj2 showed the archive at the sessions folder's old path, which no
longer existed; the compaction message sent to the model named that path ("the transcript it covers
is at …"), and the model's read_file of it was refused as compact-agent's own data."""

from __future__ import annotations

import os
import re
from pathlib import Path

from tests.fakes.openai_server import ChatRequest, FakeOpenAIServer, Reply, message_text, tool_results

from .conftest import Cli
from .scripted import is_summary_request

NAMED = re.compile(r"the transcript it covers is at (\S+) \(read it")


def reader(req: ChatRequest) -> Reply:
    """Summarises when asked; to 'read the archive' reads the one the compaction message names, then
    answers with the first line of what it got."""
    if is_summary_request(req):
        return Reply.text("<summary>the parser was fixed</summary>")
    if "read the archive" not in req.last_user_text():
        return Reply.text("done " * 400)
    if results := tool_results(req):
        return Reply.text("GOT " + message_text(results[-1]).splitlines()[0])
    return Reply.tools([("read_file", {"path": NAMED.findall(req.all_text())[-1], "limit": 2})])


def test_the_archive_of_a_moved_project_is_shown_sent_and_read_where_it_is(cli: Cli, tmp_path: Path) -> None:
    with FakeOpenAIServer(reader) as server:
        fake = ("--model", "fake-model", "--base-url", server.base_url, "--api-key", "k")
        for i in range(3):
            assert cli(*(["-c"] if i else []), "-p", f"fix parser {i} " + "x " * 40, *fake).code == 0
        compacted = cli("-c", "-p", "/compact", *fake)
        assert compacted.code == 0, compacted.stderr
        [archive] = cli.archives()
        moved = Cli(cli.home, tmp_path / "project2", cli.zygote)
        os.rename(cli.cwd, moved.cwd)
        history = moved("-c", "-p", "/history", *fake)
        [now] = moved.archives()  # the sessions folder followed the project at its first run there
        read = moved("-c", "-p", "read the archive", *fake)
        sent = server.requests[-2].all_text()  # the request that read it
    assert now != archive and now.name == archive.name and not archive.exists()
    assert history.code == 0, history.stderr
    assert f"  {now}\n" in history.stdout and str(archive) not in history.stdout, history.stdout
    assert NAMED.findall(sent) == [str(now)], sent
    assert read.code == 0, read.stderr
    assert read.stdout.startswith(f"GOT [{now}: lines 1-2 of"), read.stdout
