"""A provider that leaves the model's earlier thinking out of its count (Anthropic's Haiku, Opus
before 4.5 and Sonnet before 4.6 drop the thinking of earlier turns; a server sent DeepSeek's `reasoning_content` back need
not count it) reports far less than our estimate, which counted that thinking. Under half the
estimate, the reports were taken for wrong ones and ignored, so sizes stayed characters/4 of
everything: an 8K session whose replies each carried 2,400 characters of reasoning compacted
"5,414 -> 1,296" where the provider had counted 1,882. The calibration now learns whether the
provider counts that thinking (`Calibration.thinking_counted`), and estimates leave it out where not."""

from __future__ import annotations

from pathlib import Path

from pydantic_ai import Agent
from pydantic_ai.messages import (
    ModelMessage,
    ModelRequest,
    ModelResponse,
    TextPart,
    ThinkingPart,
    UserPromptPart,
)
from pydantic_ai.models.function import AgentInfo, FunctionModel
from pydantic_ai.usage import RequestUsage

from compact_agent.agent.run.options import SessionOptions
from compact_agent.agent.run.runner import AgentSession
from compact_agent.context import ContextManager, Event
from compact_agent.context.plumbing import tokens
from compact_agent.context.plumbing.tokens import Calibration
from tests.fakes.openai_server import FakeOpenAIServer, Reply

THINKING = "Let me weigh the options here carefully. " * 60  # 2,460 characters, about 615 tokens a turn


def test_a_report_that_grew_without_the_thinking_moved_says_it_is_not_counted() -> None:
    c = Calibration()
    assert c.observe(1_000, 1_000)
    # The next turn: our estimate grew by 700, of which 600 is the last turn's thinking, now earlier.
    assert c.observe(1_100, 1_700, unsure=600, earlier=600)
    assert c.thinking_counted is False
    assert c.ratio == 1.0  # learned from 1,100 of 1,100 counted, not from 1,100 of 1,700
    assert c.counted(1_700, 600) == 1_100 and c.last_report() == (1_100, 1_100)
    assert c.kept_report() == (1_100, 1_700, 600, 0)  # no thinking of the turn under way


def test_a_report_that_grew_with_the_thinking_moved_says_it_is_counted() -> None:
    c = Calibration()
    c.observe(1_000, 1_000)
    c.observe(1_700, 1_700, unsure=600, earlier=600)
    assert c.thinking_counted is True
    assert c.counted(1_700, 600) == 1_700


def test_a_report_between_the_two_predictions_or_a_small_move_decides_nothing() -> None:
    between = Calibration()
    between.observe(1_000, 1_000)
    between.observe(1_400, 1_700, unsure=600, earlier=600)  # 300 from each: a quarter of 600 is 150
    assert between.thinking_counted is None
    small = Calibration()
    small.observe(1_000, 1_000)
    small.observe(1_010, 1_060, unsure=50, earlier=50)  # 50 tokens moved: below VOTE_MIN
    assert small.thinking_counted is None
    within = Calibration()
    within.observe(1_000, 1_000, unsure=600, earlier=600)
    within.observe(1_300, 1_300, unsure=600, earlier=600)  # a request of one turn: no thinking moved
    assert within.thinking_counted is None


def test_the_newest_clear_report_holds() -> None:
    c = Calibration()
    c.observe(1_000, 1_000)
    c.observe(1_100, 1_700, unsure=600, earlier=600)
    assert c.thinking_counted is False
    c.observe(1_800, 2_400, unsure=1_200, earlier=1_200)  # grew by 700, the 600 moved included
    assert c.thinking_counted is True
    assert c.last_report() == (1_800, 2_400)


def test_what_a_session_kept_comes_back_with_the_verdict() -> None:
    c = Calibration()
    c.recall_report([1_100, 1_700, 600], {"earlier": False, "current": None, "votes": 1})
    assert c.thinking_counted is False and c.ratio == 1.0 and c.last_report() == (1_100, 1_100)
    old = Calibration()
    old.recall_report([1_100, 1_700])  # kept before the thinking was kept with it
    assert old.thinking_counted is None and old.last_report() == (1_100, 1_700)
    for bad in ([1_100, 1_700, 1_800], [1_100, 1_700, -1], [1_100, 1_700, True]):
        wrong = Calibration()
        wrong.recall_report(bad, {"earlier": "no", "current": None, "votes": 1})
        assert wrong.last_report() is None and wrong.thinking_counted is None


def test_earlier_thinking_is_that_of_turns_before_the_newest_prompt() -> None:
    agent = Agent(FunctionModel(lambda m, i: ModelResponse(parts=[ThinkingPart(THINKING), TextPart("ok")])))
    history = agent.run_sync("one").all_messages()
    assert tokens.earlier_thinking_tokens(history) == 0  # the turn under way
    history = agent.run_sync("two", message_history=history).all_messages()
    thought = tokens.text_tokens(THINKING)
    assert tokens.thinking_tokens(history) == 2 * thought
    assert tokens.earlier_thinking_tokens(history) == thought


def not_counting_earlier_thinking(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
    """A provider that counts what it is sent, less the thinking of earlier turns."""
    counted = tokens.estimate(messages) - tokens.earlier_thinking_tokens(messages)
    return ModelResponse(parts=[ThinkingPart(THINKING), TextPart("Agreed.")],
                         usage=RequestUsage(input_tokens=counted, output_tokens=650))


def test_a_conversation_whose_thinking_is_not_counted_is_measured_as_the_provider_counts_it() -> None:
    events: list[Event] = []
    cm = ContextManager(window=8_000, event_handler=events.append)
    agent = Agent(FunctionModel(not_counting_earlier_thinking), capabilities=[cm])
    history = agent.run_sync("Here is the plan we follow. " * 100).all_messages()
    for turn in range(12):  # the thinking comes to about 7,400 tokens; what is counted, about 1,500
        history = agent.run_sync(f"ok {turn}", message_history=history).all_messages()
    assert cm.calibration.thinking_counted is False
    assert not [e for e in events if e.layer in ("compaction", "window")], [e.layer for e in events]
    assert not [e for e in events if e.layer == "calibration"]  # no report was refused as implausible
    last = history[-1]
    assert isinstance(last, ModelResponse)
    assert abs(cm.last_tokens - (last.usage.input_tokens + last.usage.output_tokens)) <= 1
    assert tokens.estimate(history) > 8_000  # counted in full, the conversation is over the window
    assert cm.measure(history) < 2_500


async def test_a_resumed_session_keeps_leaving_out_what_the_server_does_not_count(tmp_path: Path) -> None:
    """Against the OpenAI-compatible fake, which counts message content but not the
    `reasoning_content` sent back: each `-c -p` run is one request, so what was learned must
    come back with the session or the next run measures the thinking again."""
    with FakeOpenAIServer(lambda req: Reply.text("Agreed.", reasoning_content=THINKING), window=8_000) as server:
        def session(resume: bool) -> AgentSession:
            return AgentSession(SessionOptions(cwd=tmp_path, model="fake-model", base_url=server.base_url,
                                               api_key="k", context_window=8_000, home=tmp_path / "home",
                                               continue_last=resume))
        for turn, prompt in enumerate(["hello", "hi", "ok", "yes", "no", "go on", "and then", "fine", "more"]):
            s = session(resume=turn > 0)
            try:
                if turn >= 2:  # learned at the second turn, from the first turn's report kept, and kept
                    assert s.cm.calibration.thinking_counted is False, turn
                await s.run_turn(prompt)
                assert not s.cm.compactions, f"turn {turn}: {s.cm.compactions[0].event}"
                last = s.messages[-1]
                assert isinstance(last, ModelResponse) and last.usage.input_tokens < 2_000
                # What /status shows: the provider's count of the request and its answer.
                assert s.context_tokens() <= last.usage.input_tokens + last.usage.output_tokens + 50
            finally:
                s.close()
        assert tokens.thinking_tokens(s.messages) > 5_000  # counted, the conversation would be near the window


def test_what_was_learned_of_one_server_is_not_taken_to_another() -> None:
    """A session on a server that leaves earlier thinking out, resumed with a model that counts it:
    its first request was sized without the whole session's thinking and went over the window."""
    from compact_agent.context.wiring import Internals

    def manager(server: str | None) -> ContextManager:
        return ContextManager.wired(Internals(server=server), window=32_000)

    cm = manager("reasoner at http://127.0.0.1:8080/v1")
    cm.calibration.observe(1_000, 1_000)
    cm.calibration.observe(1_100, 1_700, unsure=600, earlier=600)
    state = cm.layer_state()
    assert state["learned"]["measured_at"] == "reasoner at http://127.0.0.1:8080/v1"
    assert state["learned"]["thinking"] == {"earlier": False, "current": None, "votes": 1, "current_votes": 0}
    same = manager("reasoner at http://127.0.0.1:8080/v1")
    same.load_layer_state(state)
    assert same.calibration.thinking_counted is False and same.calibration.last_report() == (1_100, 1_100)
    for other in (manager("opus at http://127.0.0.1:8080/v1"), manager("reasoner at http://10.0.0.2/v1"),
                  manager(None)):
        other.load_layer_state(state)
        assert other.calibration.thinking_counted is None and other.calibration.last_report() is None


def test_a_size_without_the_thinking_is_believed_to_fit_only_once_two_reports_agreed() -> None:
    """One vote lowers the measure (compaction comes when the provider's count says so), but a
    request is judged to fit the window by the whole estimate until a second vote agrees: a wrong
    vote, or a verdict taken back from another model, would otherwise send a request over it."""
    cm = ContextManager(window=8_000)
    agent = Agent(FunctionModel(not_counting_earlier_thinking), capabilities=[cm])
    history = agent.run_sync("Here is the plan we follow. " * 100).all_messages()
    history = agent.run_sync("ok", message_history=history).all_messages()
    assert cm.calibration.thinking_counted is False and not cm.calibration.thinking.trusted()
    left = tokens.earlier_thinking_tokens(history)
    assert left > 600
    assert cm.fit_size(history) - cm.measure(history) >= left * cm.calibration.ratio - 1
    history = agent.run_sync("and again", message_history=history).all_messages()
    assert cm.calibration.thinking.trusted()
    assert cm.fit_size(history) <= cm.measure(history) + 1


def test_a_decision_learns_the_ratio_within_its_bounds() -> None:
    c = Calibration()
    c.observe(2_000, 2_000)
    c.observe(500, 3_495, unsure=3_490, earlier=3_490)  # 500 counted of 5 left: no tokenizer does that
    assert tokens.MIN_RATIO <= c.ratio <= tokens.MAX_RATIO


def test_with_a_token_counter_the_thinking_left_out_is_in_its_units() -> None:
    """The counter counts 4.6 characters a token; the thinking left out is taken from its count, not
    from characters/4, which left the estimate at nothing once the thinking outgrew it."""
    def counter(messages: list[ModelMessage]) -> int:
        chars = sum(len(str(getattr(p, "content", "") or getattr(p, "args", ""))) for m in messages for p in m.parts)
        return max(1, round(chars / 4.6))

    cm = ContextManager(window=16_000, token_counter=counter)
    agent = Agent(FunctionModel(not_counting_earlier_thinking), capabilities=[cm])
    history = agent.run_sync("Here is the plan we follow. " * 100).all_messages()
    for turn in range(6):
        history = agent.run_sync(f"ok {turn}", message_history=history).all_messages()
    assert cm.calibration.thinking_counted is False
    whole = sum(counter([m]) for m in history)
    thought = sum(counter([ModelResponse(parts=[p])]) for m in history if isinstance(m, ModelResponse)
                  for p in m.parts if isinstance(p, ThinkingPart))
    earlier_share = tokens.earlier_thinking_tokens(history) / tokens.thinking_tokens(history)
    assert abs(cm.estimate(history) - (whole - thought * earlier_share)) <= 0.05 * whole


def test_a_verdict_taken_back_is_confirmed_in_this_process_before_sizes_fit_without_the_thinking() -> None:
    from compact_agent.context.plumbing.thinking import ThinkingCounts

    kept = ThinkingCounts.from_json({"earlier": False, "current": True, "votes": 7})
    assert kept.earlier is False and kept.current is True and not kept.trusted()
    assert kept.vote(1.0, grew=700, grew_reported=100, moved=600, added=0) is False  # agrees: nothing changed
    assert kept.trusted()


def test_the_tail_a_compaction_keeps_is_sized_as_the_provider_counts_it() -> None:
    """The verbatim tail after a summary is kept within a budget; sized by characters/4 of thinking
    the provider does not count, it kept about half the rounds that fitted."""
    from compact_agent.context.compaction.cuts import tail_start

    cm = ContextManager(window=32_000)
    agent = Agent(FunctionModel(not_counting_earlier_thinking), capabilities=[cm])
    history = agent.run_sync("Here is the plan we follow. " * 100).all_messages()
    for turn in range(30):
        history = agent.run_sync(f"go on with step {turn} " * 20, message_history=history).all_messages()
    assert cm.calibration.thinking_counted is False and not cm.compactions
    keeper = cm.compactor
    budget = keeper.tail_budget(cm.overhead)
    plan = keeper.preview(history, cm.overhead)
    by_characters = tail_start(history, budget, keeper.keep_results)
    assert plan.cut < by_characters  # more of the conversation kept verbatim
    assert cm.estimate(history[plan.cut:]) <= budget < tokens.estimate(history[plan.cut:])


async def test_a_summary_model_of_its_own_is_sized_with_the_thinking_counted() -> None:
    """The run's provider leaves earlier thinking out (learned, trusted); a summary model of its own
    may be sent that thinking and count it: its request was sized without it, 5,728 tokens with a
    max_tokens of 5,187 in an 8,000 window."""
    seen: list[tuple[int, int]] = []

    def side(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        seen.append((tokens.estimate(messages), (info.model_settings or {}).get("max_tokens") or 0))
        return ModelResponse(parts=[TextPart("<summary>we agreed</summary>")])

    cm = ContextManager(window=8_000)
    agent = Agent(FunctionModel(not_counting_earlier_thinking), capabilities=[cm])
    history = (await agent.run("Here is the plan we follow. " * 100)).all_messages()
    for turn in range(10):
        history = (await agent.run(f"ok {turn} " + "more of the plan " * 40, message_history=history)).all_messages()
    assert cm.calibration.thinking.trusted() and cm.calibration.thinking_counted is False
    await cm.compact_now(history, model=FunctionModel(side, model_name="side"))
    assert seen and all(sent + asked <= 8_000 for sent, asked in seen), seen


def test_trust_is_by_what_each_report_decided() -> None:
    """A report that decides only the turn's own thinking does not confirm what one report said of the
    earlier turns'; a report near no answer takes trust back; a request that shrank decides nothing."""
    from compact_agent.context.plumbing.thinking import ThinkingCounts

    t = ThinkingCounts()
    assert t.vote(1.0, grew=700, grew_reported=100, moved=600, added=0) is True  # the earlier: not counted
    assert (t.earlier, t.votes) == (False, 1) and not t.trusted()
    t.vote(1.0, grew=400, grew_reported=400, moved=0, added=300)  # a step: the turn's own is counted
    assert (t.current, t.current_votes, t.votes) == (True, 1, 1) and not t.trusted()
    t.vote(1.0, grew=700, grew_reported=100, moved=600, added=0)
    assert t.votes == 2 and t.trusted()
    t.vote(1.0, grew=700, grew_reported=400, moved=600, added=0)  # halfway: near no answer
    assert t.votes == 1 and not t.trusted()
    assert t.vote(1.0, grew=-3_000, grew_reported=23, moved=-1_047, added=861) is None  # a compaction between
    assert (t.earlier, t.votes) == (False, 1)


def test_a_report_of_a_prompt_the_server_cut_decides_nothing_of_the_thinking() -> None:
    c = Calibration()
    c.observe(5_100, 5_000)
    c.observe(5_100, 6_400, unsure=1_200, earlier=1_200)  # the same size for a larger request: a cut
    assert c.cut_to() == 5_100 and c.thinking_counted is None


def test_session_notes_the_run_model_writes_are_sized_as_its_provider_counts() -> None:
    """Sized as for a model of its own (all the thinking counted), the notes request the run's own
    model writes was refused in a long session whose provider leaves earlier thinking out: 8,847 of
    the 8,000-token window, where it takes 852."""
    cm = ContextManager(window=8_000)
    agent = Agent(FunctionModel(not_counting_earlier_thinking), capabilities=[cm])
    history = agent.run_sync("Here is the plan we follow. " * 100).all_messages()
    for turn in range(12):
        history = agent.run_sync(f"ok {turn}", message_history=history).all_messages()
    assert cm.calibration.thinking.trusted()
    assert cm.memory is None or cm.memory.notes_model is None  # the notes, when on, go to the run's model
    request = [*history, ModelRequest(parts=[UserPromptPart("write the notes")])]
    cm.check_notes_fits(request)  # fits: no NotesNotSent
    assert cm.summary_output_cap(request) > 4_000
    assert cm.summary_output_cap(request, own=False) < cm.summary_output_cap(request)  # a model of its own
