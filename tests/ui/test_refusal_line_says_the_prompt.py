"""The line said when a server refuses a request as too long names its figure as what it is: the
prompt's tokens, as the refusal counts them ('7900 in the messages'), without the room the request
asked for its answer, which the server counts too. 'refused a request of 7,900 tokens: its window
is 8,192' read as a request that fitted. It names the session's server as the line of a server
found cutting prompts does (its address, or the provider's API): it said 'the server' of each. The
room for the answer is named only where the request asked for some: the agent's main requests ask
for none (no `max_tokens`), and every line said '(besides the room asked for its answer)'."""

from __future__ import annotations

from compact_agent.agent.run.stream_events import WindowChoice, window_line
from compact_agent.context.plumbing.events import Event
from compact_agent.context.plumbing.overflow import answer_room


def test_a_refusal_s_figure_is_said_to_be_its_prompt_s() -> None:
    line = window_line(Event("window", "learned", 7_900, 8_192, trigger="reactive",
                             detail={"given": 64_000, "room": 950}), WindowChoice("local", given=True))
    assert line.startswith("the server refused a request whose prompt was 7,900 tokens (besides the room asked "
                           "for its answer): its window is 8,192, not the 64,000 given; working within 8,192"), line
    summary = window_line(Event("window", "learned", 0, 8_000, trigger="reactive",
                                detail={"given": 64_000, "request": "summary"}), WindowChoice("local", given=True))
    assert summary.startswith("the server refused a summary request: its window is 8,000"), summary  # no figure said


def test_a_refusal_names_the_session_s_server_as_the_cut_line_does() -> None:
    refused = Event("window", "learned", 7_900, 8_192, trigger="reactive", detail={"given": 64_000})
    cut = Event("window", "learned", 9_000, 5_000, trigger="cut", detail={"given": 64_000})
    for server, named in [("http://10.0.0.5:8000/v1", "the server at http://10.0.0.5:8000/v1"),
                          ("deepseek", "DeepSeek's API"), ("", "the server")]:
        choice = WindowChoice("local", given=True, server=server)
        assert window_line(refused, choice).startswith(f"{named} refused a request whose prompt was 7,900"), server
        assert window_line(cut, choice).startswith(f"{named} cut requests"), server
    notes = window_line(Event("window", "learned", 0, 8_000, trigger="reactive",
                              detail={"given": 64_000, "request": "notes"}), WindowChoice(server="anthropic"))
    assert notes.startswith("Anthropic's API refused a session-notes request: its window is 8,000"), notes


def test_the_answer_s_room_is_named_only_where_the_request_asked_for_some() -> None:
    llama = "request (8612 tokens) exceeds the available context size (8000 tokens), try increasing it"
    openai = ("This model's maximum context length is 8000 tokens. However, you requested 8950 tokens "
              "(8000 in the messages, 950 in the completion).")
    tgi = "`inputs` tokens + `max_new_tokens` must be <= 8192. Given: 8629 `inputs` tokens and 0 `max_new_tokens`"
    assert answer_room(llama) == 0 and answer_room(llama, None) == 0 and answer_room(tgi) == 0
    assert answer_room(llama, {"max_tokens": 1_024}) == 1_024  # a summary request's cap
    assert answer_room(openai) == 950 and answer_room(openai, {"temperature": 0.0}) == 950
    plain = window_line(Event("window", "learned", 8_612, 8_000, trigger="reactive", detail={"given": 64_000}),
                        WindowChoice("local", given=True, server="http://localhost:8000/v1"))
    assert plain.startswith("the server at http://localhost:8000/v1 refused a request whose prompt was 8,612 "
                            "tokens: its window is 8,000, not the 64,000 given"), plain
