"""The images of the user's latest message survive the compaction that replaces it.

Its text is carried verbatim; a summary is written without images (the summary request strips
them), so without this the model lost what the user showed it, often what it is working on."""

from __future__ import annotations

from pathlib import Path

from pydantic_ai.messages import (
    BinaryContent,
    ImageUrl,
    ModelRequest,
    ModelResponse,
    TextPart,
    ToolCallPart,
    ToolReturnPart,
    UserPromptPart,
)

from compact_agent.config import Limits
from compact_agent.context.compaction import images, summary
from compact_agent.context.compaction.compactor import Compactor
from compact_agent.context.plumbing import rounds

PNG = BinaryContent(b"\x89PNG\r\n\x1a\n" + b"\0" * 64, media_type="image/png")
URL = ImageUrl("https://example.test/screenshot.png")


def rounds_of_reads(n: int, start: int = 0) -> list:
    msgs: list = []
    for i in range(start, start + n):
        msgs.append(ModelResponse(parts=[TextPart(f"reading {i}"),
                                         ToolCallPart("read_file", {"path": f"f{i}.txt"}, tool_call_id=f"c{i}")]))
        msgs.append(ModelRequest(parts=[ToolReturnPart("read_file", "x" * 4_000, tool_call_id=f"c{i}")]))
    return msgs


async def summarize(messages, prompt):
    return "<summary>The user wants what the screenshot shows fixed; files read so far.</summary>"


def images_in(messages) -> list:
    return [c for m in messages if isinstance(m, ModelRequest) for p in m.parts
            if isinstance(p, UserPromptPart) and not isinstance(p.content, str) for c in p.content
            if not isinstance(c, str)]


async def test_the_latest_messages_images_are_carried_and_its_words_stay_the_users(tmp_path: Path) -> None:
    comp = Compactor(Limits.for_window(64_000, 4_000))
    history = [ModelRequest(parts=[UserPromptPart(["fix what this shows", PNG, URL])]), *rounds_of_reads(12)]
    result = await comp.compact(history, summarize=summarize, archive=lambda: tmp_path / "a")
    new = result.messages
    assert result.summarized >= 2 and images_in(new) == [PNG, URL]
    head = new[0]
    assert isinstance(head, ModelRequest) and summary.is_summary(head)
    assert isinstance(head.parts[-1], UserPromptPart) and head.parts[-1].content[0] == images.IMAGES_HEAD
    # The carried images are no words of the user's; the words are carried once, verbatim.
    assert summary.user_texts(new) == ["fix what this shows"]
    assert rounds.unpaired(new) == (set(), set())
    # A later compaction with no newer message of the user's carries them again ...
    again = await comp.compact([*new, *rounds_of_reads(12, start=100)], summarize=summarize,
                               archive=lambda: tmp_path / "b")
    assert images_in(again.messages) == [PNG, URL] and summary.user_texts(again.messages) == ["fix what this shows"]
    # ... and once the user has written again without images, they are left to the archive.
    later = [*again.messages, ModelRequest(parts=[UserPromptPart("now run the tests")]), *rounds_of_reads(12, 200)]
    third = await comp.compact(later, summarize=summarize, archive=lambda: tmp_path / "c")
    assert images_in(third.messages) == []
    assert summary.user_texts(third.messages) == ["fix what this shows", "now run the tests"]


async def test_images_are_left_where_the_latest_message_is_kept_verbatim_or_room_is_short(tmp_path: Path) -> None:
    comp = Compactor(Limits.for_window(64_000, 4_000))
    older = [ModelRequest(parts=[UserPromptPart(["an old screenshot", PNG])]), *rounds_of_reads(12)]
    tail = [ModelRequest(parts=[UserPromptPart("what now?")]), *rounds_of_reads(1, start=50)]
    result = await comp.compact([*older, *tail], summarize=summarize, archive=lambda: tmp_path / "a")
    assert images_in(result.messages) == []  # the user's latest message has none
    small = Compactor(Limits.for_window(8_000, 1_000))  # an eighth of the room is below one image
    history = [ModelRequest(parts=[UserPromptPart(["fix this", PNG])]), *rounds_of_reads(3)]
    squeezed = await small.compact(history, summarize=summarize, archive=lambda: tmp_path / "b")
    assert images_in(squeezed.messages) == []
