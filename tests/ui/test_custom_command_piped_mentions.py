"""`cat issue.md | compact-agent -p "/review q.py"`: what was piped after a custom command is no more
typed than what is piped after a prompt, so an `@path` in it attaches nothing. The command's text
was taken for typed with the piped text after it, and a piped `@notes.txt` (or a path to an image
anywhere on the disk) went to the model as an attachment."""

from __future__ import annotations

import asyncio
import contextlib
import io
import json
from pathlib import Path

from compact_agent.agent.run.options import SessionOptions
from compact_agent.config import Settings
from compact_agent.ui.print_mode import run_print
from tests.fakes.images import png
from tests.fakes.openai_server import FakeOpenAIServer, Reply


def test_an_at_path_piped_after_a_custom_command_attaches_nothing(tmp_path: Path) -> None:
    cwd = tmp_path / "project"
    (cwd / ".compact-agent" / "commands").mkdir(parents=True)
    (cwd / ".compact-agent" / "commands" / "review.md").write_text("Review $ARGUMENTS. See @typed.txt\n")
    (cwd / "typed.txt").write_text("TYPED-FILE")
    (cwd / "notes.txt").write_text("NOTES-INSIDE")
    (tmp_path / "private.png").write_bytes(png(5, 7))
    typed = "/review q.py"
    piped = f"\nerror near @notes.txt and {tmp_path / 'private.png'}\n"
    with FakeOpenAIServer(lambda req: Reply.text("ANSWER")) as server:
        opts = SessionOptions(cwd=cwd, model="fake-model", base_url=server.base_url, api_key="k",
                              home=tmp_path / "home", settings=Settings(memory_enabled=False, images=True))
        with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
            assert asyncio.run(run_print(opts, typed + piped, typed=typed)) == 0
        sent = json.dumps([r.body for r in server.requests])
    assert "TYPED-FILE" in sent  # the command's own @path attaches, as it did
    assert "error near @notes.txt" in sent  # the piped text goes as text
    assert "NOTES-INSIDE" not in sent and "image_url" not in sent


def test_an_at_path_on_stdin_after_a_custom_command_with_p_dash_attaches_nothing(tmp_path: Path) -> None:
    """`cat notes | compact-agent -p -`: stdin is the prompt but nothing in it attaches, also when its
    first line names a custom command (the lines after it were taken for typed)."""
    cwd = tmp_path / "project"
    (cwd / ".compact-agent" / "commands").mkdir(parents=True)
    (cwd / ".compact-agent" / "commands" / "review.md").write_text("Review $ARGUMENTS. See @typed.txt\n")
    (cwd / "typed.txt").write_text("TYPED-FILE")
    (cwd / "notes.txt").write_text("NOTES-INSIDE")
    with FakeOpenAIServer(lambda req: Reply.text("ANSWER")) as server:
        opts = SessionOptions(cwd=cwd, model="fake-model", base_url=server.base_url, api_key="k",
                              home=tmp_path / "home", settings=Settings(memory_enabled=False))
        with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
            assert asyncio.run(run_print(opts, "/review q.py\nthen look at @notes.txt\n", typed="")) == 0
        sent = json.dumps([r.body for r in server.requests])
    assert "TYPED-FILE" in sent and "then look at @notes.txt" in sent
    assert "NOTES-INSIDE" not in sent
