"""Images on the wire: read_file of a PNG, a pasted screenshot path and an `@image` reach the
provider as its own image part — an `image_url` data URL (OpenAI-compatible), a base64 `image`
block (Anthropic) — when the model takes images, and as one line of text when it does not. The
session file keeps them, a compaction with images in the history works, and a resumed session
sends them again."""

from __future__ import annotations

import base64
from pathlib import Path

import pytest
from pydantic_ai.messages import BinaryContent

from compact_agent.agent.run.options import SessionOptions
from compact_agent.agent.run.runner import AgentSession
from compact_agent.config import Settings
from tests.fakes.anthropic_server import AnthropicReply, FakeAnthropicServer
from tests.fakes.images import png
from tests.fakes.openai_server import FakeOpenAIServer, Reply, message_text, tool_results
from tests.ui.repl_driver import drive

from .scripted import is_summary_request

SHOT = png(640, 480)
DATA_URL = "data:image/png;base64," + base64.b64encode(SHOT).decode()


def image_urls(req) -> list[str]:
    return [part["image_url"]["url"] for m in req.messages if isinstance(m.get("content"), list)
            for part in m["content"] if part.get("type") == "image_url"]


def reads_the_shot(req) -> Reply:
    if is_summary_request(req):
        return Reply.text("<summary>1. Primary Request and Intent: look at shot.png</summary>")
    if "look at the screenshot" in req.last_user_text() and not tool_results(req):
        return Reply.tools([("read_file", {"path": "shot.png"})])
    return Reply.text("a red square " + "seen " * 600)


def session(tmp_path: Path, base_url: str, model: str = "fake-model", **settings: object) -> AgentSession:
    cwd = tmp_path / "project"
    cwd.mkdir(exist_ok=True)
    (cwd / "shot.png").write_bytes(SHOT)
    return AgentSession(SessionOptions(cwd=cwd, model=model, base_url=base_url, api_key="k", home=tmp_path / "home",
                                       permission_mode="yes", settings=Settings(memory_enabled=False, **settings)))


async def test_read_file_of_a_png_reaches_an_openai_compatible_model_as_an_image_url(tmp_path):
    with FakeOpenAIServer(reads_the_shot) as server:
        s = session(tmp_path, server.base_url, images=True)
        try:
            await s.run_turn("look at the screenshot")
            sent = server.requests[-1]
            assert image_urls(sent) == [DATA_URL]
            tool = [m for m in sent.messages if m.get("role") == "tool"][-1]
            assert "shot.png: PNG image, 640×480" in message_text(tool)
            # Kept in the session file; a compaction with the image in the history works; a resumed
            # session sends it again, byte for byte.
            saved = s.store.load().messages
            assert [c.data for m in saved for p in m.parts for c in (p.content if isinstance(
                getattr(p, "content", None), list) else []) if isinstance(c, BinaryContent)] == [SHOT]
            await s.run_turn("and now?")
            result = await s.compact()
            assert result.tokens_after < result.tokens_before
            sid = s.session_id
        finally:
            s.close()
        assert not server.rejected, [r[2] for r in server.rejected]
        again = AgentSession(SessionOptions(cwd=tmp_path / "project", model="fake-model", base_url=server.base_url,
                                            api_key="k", home=tmp_path / "home", session_id=sid, permission_mode="yes",
                                            settings=Settings(memory_enabled=False, images=True)))
        try:
            await again.run_turn("look at the screenshot")
        finally:
            again.close()
        assert image_urls(server.requests[-1])[-1] == DATA_URL


async def test_a_text_only_model_gets_one_line_and_no_image(tmp_path):
    with FakeOpenAIServer(reads_the_shot) as server:
        s = session(tmp_path, server.base_url)  # fake-model is unknown: text only
        try:
            await s.run_turn("look at the screenshot")
        finally:
            s.close()
    sent = server.requests[-1]
    assert image_urls(sent) == [] and "base64" not in str(sent.body)
    tool = [m for m in sent.messages if m.get("role") == "tool"][-1]
    assert message_text(tool) == (f"shot.png is a PNG image, 640×480, {len(SHOT):,} bytes; this model cannot "
                                  "see images, so it was not sent (set images = true if it can)")


@pytest.mark.parametrize("typed", ["what is wrong here? {path}", "what is wrong here? @shot.png"])
async def test_a_pasted_image_path_or_an_at_mention_attaches_the_image_and_says_so(tmp_path, typed):
    desktop = tmp_path / "Desktop"
    desktop.mkdir()
    pasted = desktop / "Screen Shot 1.png"  # a terminal pastes a dropped file's path shell-escaped
    pasted.write_bytes(SHOT)
    (tmp_path / "project").mkdir()
    (tmp_path / "project" / "shot.png").write_bytes(SHOT)
    line = typed.format(path=str(pasted).replace(" ", "\\ "))
    run = await drive(tmp_path, lambda req: Reply.text("I see a red square"), [line + "\r"],
                      settings=Settings(images=True))
    name = str(pasted) if "{path}" in typed else "shot.png"
    assert f"⎿ attached {name} (PNG image, 640×480, {len(SHOT):,} bytes)" in run.out
    assert "I see a red square" in run.out
    assert image_urls(run.server.requests[-1]) == [DATA_URL]


async def test_a_word_ending_in_png_that_names_no_image_attaches_nothing(tmp_path):
    run = await drive(tmp_path, lambda req: Reply.text("ok"), ["rename logo.png to icon.png\r"],
                      settings=Settings(images=True))
    assert "attached" not in run.out and image_urls(run.server.requests[-1]) == []


def anthropic_image_blocks(req) -> list[dict]:
    return req.blocks("image")


async def test_read_file_of_a_png_reaches_anthropic_as_a_base64_image_block(tmp_path, monkeypatch):
    def responder(req) -> AnthropicReply:
        if "look at the screenshot" in req.last_user_text() and not req.blocks("tool_result"):
            return AnthropicReply(tool_uses=(("read_file", {"path": "shot.png"}),))
        return AnthropicReply(text="a red square")

    with FakeAnthropicServer(responder) as server:
        monkeypatch.setenv("ANTHROPIC_BASE_URL", server.base_url)
        cwd = tmp_path / "project"
        cwd.mkdir()
        (cwd / "shot.png").write_bytes(SHOT)
        s = AgentSession(SessionOptions(cwd=cwd, model="claude-sonnet-4-5", api_key="sk-ant-test",
                                        home=tmp_path / "home", permission_mode="yes"))
        try:
            turn = await s.run_turn("look at the screenshot")
        finally:
            s.close()
    assert turn.output == "a red square" and not server.rejected
    [image] = anthropic_image_blocks(server.requests[-1])
    assert image["source"] == {"type": "base64", "media_type": "image/png", "data": base64.b64encode(SHOT).decode()}
    [result] = server.requests[-1].blocks("tool_result")
    assert image in result["content"]  # in the tool's own result, where Anthropic takes images
