"""What a tool hands the model beside its result is held to the tool-result budget, as the result is.

pydantic-ai sends `ToolReturn(content=...)` (a fetched page) as a user-role part after the tool's
result, fenced as the tool's (tool_content.py). Layer 1 measured and previewed only the results:
a 20,000-token page beside the short return value `fetched <url>` went to the last resort in a
16,000-token window, which folded everything, left the user's task out, wrote the page in its note
as "the user wrote: ...", and on the wire the run ended in a WindowTooSmallError whose figures
blamed "the notes standing in for what was left out". The same page as the tool's return value was
previewed (head and tail) and the task stayed. Now the content is budgeted like a result: previewed
under its fence line, its whole text spilled, and a fold calls it the tool's.
"""

from __future__ import annotations

import json
from pathlib import Path

from pydantic_ai import Agent, ToolReturn
from pydantic_ai.messages import (
    ModelMessage,
    ModelRequest,
    ModelResponse,
    TextPart,
    ToolCallPart,
    ToolReturnPart,
    UserPromptPart,
)
from pydantic_ai.models.function import AgentInfo, FunctionModel
from pydantic_ai.models.openai import OpenAIChatModel
from pydantic_ai.providers.openai import OpenAIProvider
from pydantic_ai.usage import RequestUsage

from compact_agent.context import ContextManager
from compact_agent.context.decisions.fit import FOLDED, shrink_to_fit
from compact_agent.context.layers.budget import ToolResultBudget
from compact_agent.context.plumbing.settings import CompactionSettings
from compact_agent.context.plumbing.tool_content import fence
from compact_agent.context.testing import reply_to_library_request
from tests.fakes.openai_server import ChatRequest, FakeOpenAIServer, Reply, user_messages

from .folder_store import FolderStore

TASK = "Fetch two pages and compare them."
WINDOW = 16_000


def page(url: str) -> str:
    return f"PAGE {url} START " + "word " * 16_000 + "END"  # about 20,000 tokens


def _size(messages: list[ModelMessage]) -> int:
    return sum(len(str(getattr(p, "content", "") or getattr(p, "args", ""))) for m in messages for p in m.parts) // 4


async def test_a_tools_large_content_is_previewed_and_the_task_stays(tmp_path: Path) -> None:
    seen: list[list[ModelMessage]] = []

    def answer(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        usage = RequestUsage(input_tokens=_size(messages), output_tokens=20)
        if (reply := reply_to_library_request(messages, usage=usage)) is not None:
            return reply
        seen.append(list(messages))
        if len(seen) < 3:
            return ModelResponse(parts=[ToolCallPart("fetch", {"url": f"https://x/{len(seen)}"},
                                                     tool_call_id=f"f{len(seen)}")], usage=usage)
        return ModelResponse(parts=[TextPart("done")], usage=usage)

    agent = Agent(FunctionModel(answer), capabilities=[ContextManager(window=WINDOW, store=FolderStore(tmp_path))])

    @agent.tool_plain
    def fetch(url: str) -> ToolReturn:
        return ToolReturn(return_value=f"fetched {url}", content=page(url))

    result = await agent.run(TASK)
    assert result.output == "done" and len(seen) == 3
    for messages in seen:  # the user's task, verbatim, first in every request; nothing folded
        texts = [p.content for m in messages if isinstance(m, ModelRequest) for p in m.parts
                 if isinstance(p, UserPromptPart)]
        assert texts[0] == TASK
        assert not any(isinstance(t, str) and t.startswith(FOLDED) for t in texts)
        assert _size(messages) < 2_000  # two previews, as two results would be
    shown = [p.content for m in seen[-1] if isinstance(m, ModelRequest) for p in m.parts
             if isinstance(p, UserPromptPart) and p.content != TASK]
    assert len(shown) == 2
    for n, content in enumerate(shown, 1):
        assert isinstance(content, str)
        head, _, preview = content.partition("\n")
        assert head == fence("fetch")  # still the tool's
        assert preview.startswith(f"PAGE https://x/{n} START word") and "END\n\n[Output too large" in preview
        [spilled] = tmp_path.rglob(f"f{n}.content.txt")
        assert str(spilled) in preview and spilled.read_text() == page(f"https://x/{n}")


async def test_on_the_wire_the_run_ends_with_the_models_answer() -> None:
    def responder(req: ChatRequest) -> Reply:
        if req.tool_choice == "none":
            return Reply.text("<summary>fetched pages</summary>")
        if sum(1 for m in req.messages if m.get("role") == "tool") < 2:
            return Reply.tools([("fetch", {"url": f"https://x/{len(req.messages)}"})])
        return Reply.text("compared")

    with FakeOpenAIServer(responder, window=WINDOW) as server:
        model = OpenAIChatModel("fake-model", provider=OpenAIProvider(base_url=server.base_url, api_key="k"))
        agent = Agent(model, capabilities=[ContextManager(window=WINDOW)])

        @agent.tool_plain
        def fetch(url: str) -> ToolReturn:
            return ToolReturn(return_value=f"fetched {url}", content=page(url))

        result = await agent.run(TASK)
    assert result.output == "compared"
    assert not server.rejected
    assert [q.tool_choice for q in server.requests] == ["auto"] * 3  # no compaction was needed
    for q in server.requests:
        assert q.prompt_tokens < 2_000
        assert json.dumps(user_messages(q)[0].get("content")) == json.dumps(TASK)


def test_a_fold_says_the_content_is_the_tools_and_keeps_the_users_task(tmp_path: Path) -> None:
    """Where even previews do not fit (instructions that leave ~150 tokens), the fold's note calls
    the content the tool's, names the file holding its whole text, and the task stays first."""
    cm = ContextManager(window=8_000)
    cm.layers = [ToolResultBudget(CompactionSettings(), tmp_path / "spill")]
    cm.overhead = 7_700
    cm.emit = lambda event: None  # type: ignore[method-assign]
    text = "PAGE START " + "word " * 3_000 + "END"
    view: list[ModelMessage] = [
        ModelRequest(parts=[UserPromptPart(TASK)]),
        ModelResponse(parts=[ToolCallPart("fetch", {"url": "https://x/1"}, tool_call_id="c0")]),
        ModelRequest(parts=[ToolReturnPart("fetch", "fetched https://x/1", tool_call_id="c0"),
                            UserPromptPart(f"{fence('fetch')}\n{text}")]),
    ]
    shrunk, after = shrink_to_fit(cm, list(view), cm.measure(view))
    assert after <= 8_000 - 8_000 // 50
    assert len(shrunk) == 1 and isinstance(shrunk[0], ModelRequest)
    task, note = shrunk[0].parts
    assert isinstance(task, UserPromptPart) and task.content == TASK
    assert isinstance(note, UserPromptPart) and isinstance(note.content, str) and note.content.startswith(FOLDED)
    assert "the user wrote" not in note.content
    line = next(line for line in note.content.splitlines() if "PAGE START" in line)
    spilled = tmp_path / "spill" / "c0.content.txt"
    assert line.startswith(f"- fetch (id c0) also showed beside its result; whole text in {spilled}: ")
    assert spilled.read_text() == text
