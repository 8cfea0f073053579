"""The summary's plain-text fallback is sized by the shared request's room.

When the shared summary request fails for another reason than its length, the conversation is sent
again as a transcript in one user message, with no tools. Its transcript was sized by nothing but the
check that a request leaves the summary one token: with a summary model of 2,000 tokens and a
20,000-character answer it took the room the rule keeps for the summary (a quarter of the window,
500 tokens), and the summary was asked for in 426. The transcript, its framing counted, now takes no
more than the shared request's messages could (`Keeper.summary_room`), its longest entries cut to
their beginning and end. Against the fake OpenAI server, over HTTP, with a 2,000-token window.
"""

from __future__ import annotations

from pydantic_ai.messages import ModelMessage, ModelRequest, ModelResponse, TextPart, UserPromptPart
from pydantic_ai.models.openai import OpenAIChatModel
from pydantic_ai.profiles.openai import OpenAIModelProfile
from pydantic_ai.providers.openai import OpenAIProvider

from compact_agent.context import CompactionSettings, ContextManager
from compact_agent.context.compaction.summarizer import transcript_as_data
from compact_agent.context.compaction.summary import MIDDLE_MARK
from tests.fakes.openai_server import ChatRequest, FakeOpenAIServer, Reply

ANSWER = "HEAD " + "y" * 20_000 + " TAIL"
WINDOW = 2_000
SUMMARY_ROOM = WINDOW // 4  # settings.side_room: a quarter of a side model's window for its output


def answer(req: ChatRequest) -> Reply:
    """The shared request (the conversation as messages) is refused, not for its length; the
    separate one (a transcript) is answered."""
    if "<transcript>" not in req.last_user_text():
        return Reply.error(400, {"error": {"message": "this request cannot be served", "type": "invalid_request_error"}})
    return Reply.text("<summary>The module was explained.</summary>")


async def test_the_fallback_leaves_the_summary_its_room() -> None:
    history: list[ModelMessage] = [ModelRequest(parts=[UserPromptPart("Explain the module.")]),
                                   ModelResponse(parts=[TextPart(ANSWER)]),
                                   ModelRequest(parts=[UserPromptPart("Thanks.")])]
    with FakeOpenAIServer(answer, window=WINDOW) as server:
        model = OpenAIChatModel("fake-model", provider=OpenAIProvider(base_url=server.base_url, api_key="k"),
                                profile=OpenAIModelProfile(context_window=WINDOW))
        cm = ContextManager(window=32_000, summary_model=model, settings=CompactionSettings(compaction_records=False))
        compacted = await cm.compact_now(history)
    assert len(compacted) == 1 and "The module was explained." in str(compacted[0].parts[0])
    shared, separate = server.requests
    assert [status for _, status, _ in server.rejected] == [400]  # the shared one, as scripted
    asked = int(separate.body.get("max_completion_tokens") or separate.body["max_tokens"])
    assert asked >= SUMMARY_ROOM and separate.prompt_tokens + asked <= WINDOW  # was 426 of 500
    assert separate.prompt_tokens <= shared.prompt_tokens  # no more than the messages had
    text = separate.last_user_text()
    assert MIDDLE_MARK in text and "HEAD y" in text and "y TAIL" in text  # the answer's two ends


def test_a_transcript_is_cut_to_its_room_longest_entries_first() -> None:
    messages: list[ModelMessage] = [ModelRequest(parts=[UserPromptPart("Explain " + "u" * 300)]),
                                    ModelResponse(parts=[TextPart("a" * 3_000)]),
                                    ModelRequest(parts=[UserPromptPart("w" * 2_000)])]
    whole = transcript_as_data(messages)
    cut = transcript_as_data(messages, max_chars=2_000)
    assert len(cut) <= 2_000 < len(whole)
    lines = cut.splitlines()
    assert [line.split(":")[0] for line in lines] == ["USER", "ASSISTANT", "USER"]
    assert lines[0] == "USER: Explain " + "u" * 300  # the short one is left whole
    assert MIDDLE_MARK in lines[1] and MIDDLE_MARK in lines[2]  # the long ones keep their ends
    assert transcript_as_data(messages, max_chars=10_000) == whole
    assert transcript_as_data(messages, max_chars=10) == whole  # no cut makes it fit: left for the check
