"""The REPL's `/model` says of a name what the command line's `-m` says: `/model deepseek-chta` was
taken silently ('model fake-model → deepseek-chta · window 32,000 …') and the next request failed
with HTTP 404, while `-m deepseek-chta` says `note: model 'deepseek-chta' goes to URL; did you mean
deepseek-chat?`. Now /model prints the same note, from the same function."""

from __future__ import annotations

from compact_agent.models import routing_note
from tests.fakes.openai_server import FakeOpenAIServer, Reply

from .repl_driver import drive


async def test_model_names_a_likely_typo_as_the_command_line_does(tmp_path):
    # A server that lists no models: one that does refuses a name it does not list (test_model_not_served.py)
    with FakeOpenAIServer(lambda req: Reply.text("ok"), lists_models=False) as server:
        run = await drive(tmp_path, server.responder, ["/model deepseek-chta\r", "/model other-local\r"],
                          server=server)
    out = " ".join(run.out.split())
    note = routing_note("deepseek-chta", run.opts.base_url, None, "/model deepseek-chta --window N")
    assert note is not None and "did you mean deepseek-chat?" in note
    assert f"note: {' '.join(note.split())}" in out, run.out
    assert out.count("note:") == 1, run.out  # a local server's own model: no note, as with -m
    assert "--context-window" not in out  # a flag of the command line, not of /model


def test_the_command_line_note_names_its_own_flag():
    note = routing_note("deepseek-chta", None, None)
    assert note is not None and "(set the real one with --context-window)" in note


def test_the_note_quotes_the_name_as_written():
    """Python's form of the name put one holding a quote in double quotes and doubled each backslash."""
    assert routing_note("it's\\x", None, 8000) == ("model 'it's\\x' is not a known model; it goes to OpenAI "
                                                    "(use --base-url for another OpenAI-compatible server)")
    assert routing_note("deepseek-chat'\\", "http://localhost:8000/v1", 8000) == (
        "model 'deepseek-chat'\\' goes to http://localhost:8000/v1; did you mean deepseek-chat?")
