"""read_file of an image: the image itself for a model that takes images, one line for one that
does not, a clear refusal over the size cap; the size read from the header of each format."""

from __future__ import annotations

import base64
from pathlib import Path

import pytest
from pydantic_ai.messages import BinaryContent, ToolReturn

from compact_agent.agent.safety.permissions import Permissions
from compact_agent.agent.tools.base import ToolEnv
from compact_agent.agent.tools.file_state import ReadFileState
from compact_agent.agent.tools.images import dimensions, media_type
from compact_agent.agent.tools.toolset import build_toolset, mention_messages
from compact_agent.config import Settings
from compact_agent.context.plumbing import tokens
from compact_agent.models import model_info, takes_images
from tests.fakes.images import gif, jpeg, png, webp


def make_env(cwd: Path, **settings: object) -> ToolEnv:
    return ToolEnv(cwd=cwd, settings=Settings(**settings), read_state=ReadFileState(),  # type: ignore[arg-type]
                   permissions=Permissions(cwd, "yes"))


@pytest.mark.parametrize("data, media, size", [
    (png(640, 480), "image/png", (640, 480)),
    (gif(32, 16), "image/gif", (32, 16)),
    (jpeg(1024, 768), "image/jpeg", (1024, 768)),
    (webp(300, 200), "image/webp", (300, 200)),
])
def test_each_format_is_known_by_its_first_bytes_and_its_size_read_from_its_header(data, media, size):
    assert media_type(data) == media and dimensions(data, media) == size
    assert media_type(b"\x89PNG\0\0" + bytes(50)) is None  # not a PNG signature: a binary file, as before


async def test_a_model_that_takes_images_gets_the_image_itself(tmp_path: Path):
    (tmp_path / "shot.png").write_bytes(data := png(640, 480))
    env = make_env(tmp_path)
    env.images = True
    out = await build_toolset(env).tools["read_file"].function(path="shot.png")
    text, image = out
    assert text == f"shot.png: PNG image, 640×480, {len(data):,} bytes"
    assert isinstance(image, BinaryContent) and image.data == data and image.media_type == "image/png"
    # The token estimate counts an image at the fixed figure, not its bytes.
    [_, request] = mention_messages(env, [tmp_path / "shot.png"], kind="image", salt="t0")
    assert tokens.IMAGE_TOKENS <= tokens.message_tokens(request) < tokens.IMAGE_TOKENS + 100
    assert base64.b64encode(data).decode() not in str(request.parts[0].model_response_str())


async def test_a_text_only_model_is_told_what_the_image_is_in_one_line(tmp_path: Path):
    (tmp_path / "shot.png").write_bytes(data := png(640, 480))
    out = await build_toolset(make_env(tmp_path)).tools["read_file"].function(path="shot.png")
    assert out == (f"shot.png is a PNG image, 640×480, {len(data):,} bytes; this model cannot see images, so it "
                   "was not sent (set images = true if it can)")


async def test_an_image_over_the_cap_is_refused_in_one_line(tmp_path: Path):
    (tmp_path / "big.png").write_bytes(png(64, 64) + bytes(4_000))
    env = make_env(tmp_path, image_max_bytes=2_000)
    env.images = True
    out = await build_toolset(env).tools["read_file"].function(path="big.png")
    assert isinstance(out, ToolReturn)  # marked failed
    assert "big.png is a PNG image, 64×64" in out.return_value and "over the" in out.return_value
    assert "limit for images (image_max_bytes); not sent" in out.return_value


def test_which_models_take_images():
    assert takes_images(model_info("claude-sonnet-4-5"), None) and takes_images(model_info("gpt-4.1"), None)
    assert not takes_images(model_info("deepseek-chat"), None)
    assert not takes_images(model_info("some-local-model"), None)  # unknown: text only
    assert takes_images(model_info("some-local-model"), True) and not takes_images(model_info("gpt-4.1"), False)
