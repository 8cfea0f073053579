"""An MCP server's images and binary files go as our own tools' do, and its text beside them is
cleaned and kept within the budget like any result's (mcp_results.py).

A text-only model got a server's image as an `image_url` part (DeepSeek refuses it: `unknown
variant image_url, expected text`, on that request and every later one, the history keeping it),
`images = false` changed nothing, an embedded binary resource went out as a `file` part of its
whole base64; the text beside an image skipped the key's redaction and the user's marker check;
and a megabyte of text beside an image was never moved to a file, so the turn could not be sent
(the tool-result budget now moves it, and the image goes beside its preview)."""

from __future__ import annotations

import json
import re
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

from compact_agent.agent.run.options import SessionOptions
from compact_agent.agent.run.runner import AgentSession
from compact_agent.agent.safety.permissions import COPIED_INSTEAD
from compact_agent.config import Settings
from tests.fakes.openai_server import ChatRequest, FakeOpenAIServer, Reply, message_text, tool_results

SERVER = str(Path(__file__).with_name("mcp_script_server.py"))
KEY = "sk-test-SECRETKEY-1234567890abcdef"


def media_parts(req: ChatRequest) -> list[str]:
    """The type of every content part of the request that is not text."""
    return [p.get("type", "?") for m in req.messages if isinstance(m.get("content"), list)
            for p in m["content"] if isinstance(p, dict) and p.get("type") != "text"]


def calling(*tools: str) -> Callable[[ChatRequest], Reply]:
    """A model that calls each of `tools` (one a turn, in order) and answers once it has its result;
    it refuses a request carrying a part that is not text, as a text-only provider does."""
    todo = list(tools)

    def model(req: ChatRequest) -> Reply:
        if tool_results(req):
            return Reply.text("done")
        return Reply.tools([(todo.pop(0), {})])
    return model


async def run(tmp_path: Path, model: Any, turns: int, **settings: Any) -> FakeOpenAIServer:
    cwd = tmp_path / "project"
    cwd.mkdir(parents=True, exist_ok=True)
    config = Settings(memory_enabled=False, **settings, mcp_servers={
        "t": {"command": sys.executable, "args": [SERVER], "env": {"SCRIPT_KEY": KEY}}})
    with FakeOpenAIServer(model) as server:
        s = AgentSession(SessionOptions(cwd=cwd, model="fake-model", base_url=server.base_url, api_key=KEY,
                                        context_window=32_000, permission_mode="yes", home=tmp_path / "home",
                                        settings=config))
        try:
            for n in range(turns):
                assert (await s.run_turn(f"turn {n}")).output == "done"
        finally:
            await s.aclose()
    return server


def results(server: FakeOpenAIServer) -> list[str]:
    return [message_text(tool_results(r)[0]) for r in server.requests if tool_results(r)]


async def test_a_text_only_model_gets_a_line_for_an_image_and_a_binary_file(tmp_path: Path) -> None:
    server = await run(tmp_path, calling("t_image", "t_blob", "t_image"), 3, images=False)
    for req in server.requests:
        assert media_parts(req) == [], req.index  # no image, no file: every request could be sent
    image, blob, _ = results(server)
    assert image.startswith("here is an image\n[a PNG image, 1×1, 70 bytes came with this result; this model "
                            "cannot see images, so it was not sent]"), image
    assert "application/octet-stream file, 300,000 bytes came with this result; not sent" in blob, blob
    assert len(json.dumps(server.requests[-1].body)) < 20_000  # no base64 of the file anywhere


async def test_a_model_that_sees_images_gets_the_image_not_the_binary_file(tmp_path: Path) -> None:
    server = await run(tmp_path, calling("t_image", "t_blob"), 2, images=True)
    assert media_parts(server.requests[1]) == ["image_url"]
    assert "image_url" in media_parts(server.requests[-1])
    assert "file" not in media_parts(server.requests[-1])
    assert "300,000 bytes came with this result; not sent" in results(server)[1]


async def test_an_image_over_image_max_bytes_is_not_sent(tmp_path: Path) -> None:
    server = await run(tmp_path, calling("t_image"), 1, images=True, image_max_bytes=50)
    assert media_parts(server.requests[-1]) == []
    assert "MB limit for images (image_max_bytes); not sent" in results(server)[0]


async def test_the_text_beside_an_image_is_redacted_and_its_marker_marked(tmp_path: Path) -> None:
    for sees in (True, False):
        server = await run(tmp_path / str(sees), calling("t_injectimg"), 1, images=sees)
        body = json.dumps([r.body for r in server.requests])
        assert KEY not in body
        text = results(server)[0]
        assert f"{COPIED_INSTEAD} The user's instruction (follow it instead of this call)" in text, text
        assert media_parts(server.requests[-1]) == (["image_url"] if sees else [])


async def test_a_long_text_beside_an_image_is_moved_to_a_file(tmp_path: Path) -> None:
    """The tool-result budget moves the megabyte to a file and shows its preview, the image kept after
    it for a model that takes images: the text beside a result's files is the budget's to measure, so
    the image is no longer left out to let the text be moved."""
    for sees in (True, False):
        server = await run(tmp_path / str(sees), calling("t_bigimg"), 1, images=sees)
        [result] = results(server)
        assert len(json.dumps(server.requests[-1].body)) < 20_000
        # beside an image, the tool message carries the result's items as a JSON list; the image follows it
        text = json.loads(result)[0] if sees else result
        assert text.startswith("BIGIMG yyy") and "too large for the context" in text, text[-600:]
        spilled = re.findall(r"\S+/tool-results/call_1\.txt", text)[0]
        assert Path(spilled).read_text().startswith("BIGIMG " + "y" * 1_000_000)  # the whole text, in the file
        assert media_parts(server.requests[-1]) == (["image_url"] if sees else [])


async def test_a_servers_words_of_its_failure_are_cleaned_as_its_results(tmp_path: Path) -> None:
    server = await run(tmp_path, calling("t_failkey", "t_rpckey"), 2, images=True)
    assert KEY not in json.dumps([r.body for r in server.requests])
    failed, retried = results(server)
    assert "failed: KEY=" in failed and "kaboom KEY=" in retried, (failed, retried)
    assert f"{COPIED_INSTEAD} The user's instruction (follow it instead of this call)" in failed, failed
