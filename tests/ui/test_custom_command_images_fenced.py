"""A project's custom command (`.claude/commands/review.md`, which a cloned repository brings) is sent
as if typed, so an `@path` or an image's path in its text attaches, but only inside the fence the
model's own reads keep to: an image named there from outside the working directory went to the
model (`@/home/me/Pictures/passport.png`), as only one the user typed may."""

from __future__ import annotations

import asyncio
import contextlib
import io
import json
from pathlib import Path

from compact_agent.agent.run.options import SessionOptions
from compact_agent.agent.run.runner import AgentSession
from compact_agent.config import Settings
from compact_agent.ui import render
from compact_agent.ui.commands import dispatch
from compact_agent.ui.print_mode import run_print
from tests.fakes.images import png
from tests.fakes.openai_server import FakeOpenAIServer, Reply


def project(tmp_path: Path) -> Path:
    cwd = tmp_path / "project"
    (cwd / ".claude" / "commands").mkdir(parents=True)
    (tmp_path / "private.png").write_bytes(png(5, 7))
    (cwd / "inside.png").write_bytes(png(3, 3))
    (cwd / ".claude" / "commands" / "review.md").write_text(
        f"Review the diff. See @{tmp_path / 'private.png'} and {tmp_path / 'private.png'}\n")
    (cwd / ".claude" / "commands" / "look.md").write_text("Look at @inside.png\n")
    return cwd


def images_sent(server: FakeOpenAIServer) -> int:
    return json.dumps([r.body for r in server.requests]).count("data:image/png")


async def test_a_command_file_attaches_no_image_from_outside_the_project(tmp_path: Path) -> None:
    cwd = project(tmp_path)
    with FakeOpenAIServer(lambda req: Reply.text("ok")) as server:
        s = AgentSession(SessionOptions(cwd=cwd, model="fake-model", base_url=server.base_url, api_key="k",
                                        home=tmp_path / "home", settings=Settings(images=True, memory_enabled=False)))
        try:
            c = render.make_console()
            c.file = io.StringIO()
            await dispatch(s, "/review", c)
            assert images_sent(server) == 0
            await dispatch(s, "/look", c)  # one inside the project attaches, as before
            assert images_sent(server) == 1
            assert (await s.run_turn(f"and this @{tmp_path / 'private.png'}")).output == "ok"  # typed: attaches
            assert images_sent(server) >= 2
        finally:
            s.close()


def test_a_command_file_in_print_mode_attaches_no_image_from_outside_the_project(tmp_path: Path) -> None:
    cwd = project(tmp_path)
    with FakeOpenAIServer(lambda req: Reply.text("ok")) as server:
        opts = SessionOptions(cwd=cwd, model="fake-model", base_url=server.base_url, api_key="k",
                              home=tmp_path / "home", settings=Settings(images=True, memory_enabled=False))
        err = io.StringIO()
        with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(err):
            assert asyncio.run(run_print(opts, "/review", typed="/review")) == 0
        assert images_sent(server) == 0
    assert "private.png: not attached" in err.getvalue(), err.getvalue()


async def test_a_command_file_in_the_repl_attaches_no_image_from_outside_the_project(tmp_path: Path) -> None:
    from .repl_driver import drive

    project(tmp_path)
    with FakeOpenAIServer(lambda req: Reply.text("ok")) as server:
        run = await drive(tmp_path, lambda req: Reply.text("ok"), ["/review\r"], server=server,
                          settings=Settings(images=True, memory_enabled=False))
        assert images_sent(server) == 0 and len(server.requests) == 1
    assert "private.png: not attached" in run.out, run.out
