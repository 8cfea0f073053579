"""The text a tool returns beside an image is held to the tool-result budget.

Layer 1 measured only a result that was text: one carrying files (an image) beside its text went
out whole whatever the size of its text, so a tool returning a megabyte of text and a screenshot
filled the window, and the request could not fit. Now the text of such a result is measured,
spilled and shown as its preview, followed by the files as the tool returned them."""

from __future__ import annotations

from pathlib import Path

from pydantic_ai import Agent
from pydantic_ai.messages import (
    BinaryContent,
    ModelMessage,
    ModelRequest,
    ModelResponse,
    TextPart,
    ToolCallPart,
    ToolReturnPart,
)
from pydantic_ai.models.function import AgentInfo, FunctionModel

from compact_agent.context import CompactionSettings, ContextManager
from compact_agent.context.layers.budget import ToolResultBudget
from compact_agent.context.plumbing import rounds, tokens
from compact_agent.context.testing import reply_to_library_request

from .strategies import Conv, big_text, budget_for

PNG = BinaryContent(b"\x89PNG\r\n\x1a\n" + b"\0" * 64, media_type="image/png")
WINDOW = 8_000
LOG = big_text("log", 200_000)  # 50,000 tokens as text: six windows
SPILL = "Full output saved to "


def results(messages: list[ModelMessage]) -> list[ToolReturnPart]:
    return [p for m in messages if isinstance(m, ModelRequest) for p in m.parts if isinstance(p, ToolReturnPart)]


async def test_a_long_text_beside_an_image_goes_out_as_its_preview_with_the_image() -> None:
    sent: list[list[ModelMessage]] = []

    def model(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        library = reply_to_library_request(messages)
        if library is not None:
            return library
        sent.append(list(messages))
        if not results(messages):
            return ModelResponse(parts=[ToolCallPart("screenshot", {}, tool_call_id="shot")])
        return ModelResponse(parts=[TextPart("The page shows the log.")])

    agent = Agent(FunctionModel(model), capabilities=[ContextManager(window=WINDOW)])

    @agent.tool_plain
    def screenshot() -> list[object]:
        """The page's log and a picture of it."""
        return [LOG, PNG]

    run = await agent.run("What does the page show?")
    assert run.output == "The page shows the log."
    assert len(sent) == 2
    after = sent[1]
    assert tokens.estimate(after) < WINDOW  # it went out whole: 50,000 tokens in an 8,000-token window
    [shown] = results(after)
    assert isinstance(shown.content, list) and shown.files == [PNG]
    [preview] = [item for item in shown.content if isinstance(item, str)]
    assert shown.content[-1] == PNG and preview.startswith(LOG[:100]) and len(preview) < len(LOG) // 10
    assert "Output too large for the context (200,000 characters" in preview
    # The history the run keeps has the tool's own result, every call answered.
    [kept] = results(run.all_messages())
    assert kept.content == [LOG, PNG]
    assert rounds.unpaired(after) == (set(), set()) and rounds.unpaired(run.all_messages()) == (set(), set())


def test_the_text_is_spilled_and_written_again_from_the_session_when_its_file_is_gone(tmp_path: Path) -> None:
    conv = Conv().user("look").call("screenshot", {}, ["caption", big_text("t", 60_000), PNG]).say("done")
    layer = ToolResultBudget(CompactionSettings(), tmp_path)
    result = layer.apply(conv.messages, budget_for(conv.messages, conv.t))
    [shown] = results(result.messages)
    assert isinstance(shown.content, list) and shown.content[1:] == [PNG] and isinstance(shown.content[0], str)
    assert SPILL in shown.content[0] and [e.action for e in result.events] == ["spill"]
    spilled = Path(layer.actions[shown.tool_call_id]["path"])
    whole = "caption\n\n" + big_text("t", 60_000)
    assert spilled.read_text() == whole
    # A restarted session whose spill file is gone writes it again, and sends the same bytes.
    spilled.unlink()
    again = ToolResultBudget(CompactionSettings(), tmp_path)
    again.load_state(layer.state_to_json())
    second = again.apply(conv.messages, budget_for(conv.messages, conv.t))
    assert results(second.messages)[0].content == shown.content and spilled.read_text() == whole
    # The last resort cuts it shorter, from the whole text, and the image stays.
    view, ids = again.shrink(second.messages, need=10_000, short=True)
    [short] = results(view)
    assert ids == [shown.tool_call_id] and isinstance(short.content, list) and short.content[1:] == [PNG]
    assert len(short.content[0]) < len(shown.content[0]) and spilled.read_text() == whole
