"""What /status says of the next automatic compaction (session_views.due_words). With decisions
priced, the context may grow past the threshold until a compaction pays, at the hard limit at the
latest: /status said "0 tokens until auto-compaction" of a 5K window's context at 98%, which went on
growing, as if one were overdue."""

from __future__ import annotations

from compact_agent.ui.session_views import due_words


def test_under_the_threshold_it_counts_the_tokens_left() -> None:
    assert due_words(3_000, 3_250, 4_690, paused=False) == "250 tokens until auto-compaction"
    assert due_words(3_000, 3_250, None, paused=False) == "250 tokens until auto-compaction"


def test_past_the_threshold_with_decisions_priced_it_says_where_one_comes_at_the_latest() -> None:
    said = due_words(4_886, 3_250, 4_690, paused=False)
    assert said == "past the threshold: auto-compaction comes when it pays, at 4,690 tokens at the latest"
    assert "0 tokens until" not in said


def test_past_the_threshold_with_thresholds_deciding_the_count_is_zero_and_a_pause_is_said() -> None:
    assert due_words(4_886, 3_250, None, paused=False) == "0 tokens until auto-compaction"
    assert due_words(4_886, 3_250, 4_690, paused=True) == "auto-compaction paused"


async def test_status_says_it_of_a_context_past_the_threshold(tmp_path) -> None:
    """/status of a session whose history is past its threshold: with the model's prices known and
    priced compaction on, where the next compaction comes at the latest; with thresholds deciding,
    the count to the threshold, as before."""
    from pydantic_ai.messages import ModelRequest, ModelResponse, TextPart, UserPromptPart

    from compact_agent.agent.run.options import SessionOptions
    from compact_agent.agent.run.runner import AgentSession
    from compact_agent.config import Settings
    from tests.fakes.openai_server import FakeOpenAIServer

    from .test_command_names_any_case import show
    from .test_commands_terminal import answer

    history = [ModelRequest(parts=[UserPromptPart("lorem ipsum dolor " * 4_800)]), ModelResponse(parts=[TextPart("ok")])]
    with FakeOpenAIServer(answer) as server:
        for priced, said in ((True, "past the threshold: auto-compaction comes when it pays, at "),
                             (False, "0 tokens until auto-compaction")):
            (cwd := tmp_path / "project").mkdir(exist_ok=True)
            s = AgentSession(SessionOptions(cwd=cwd, model="deepseek-chat", base_url=server.base_url, api_key="k",
                                            home=tmp_path / "home", context_window=32_000,
                                            settings=Settings(priced_compaction=priced)))
            try:
                s.messages = list(history)
                shown = await show(s, "/status")
            finally:
                s.close()
            assert said in shown, shown
