"""`-p "/model NAME"` switches the model for that run only: a one-shot command that prints is
read-only for the session. On a `-c` session it changed what the session remembers, so every later
`-c` ran the other model (or window) without saying so. Now it says the switch is not remembered,
and the command line that does go on with it. The REPL's `/model` is still remembered."""

from __future__ import annotations

import json

from compact_agent.session import remembered
from tests.fakes.openai_server import FakeOpenAIServer, Reply


def answer(req) -> Reply:
    return Reply.text("ok")


def init(res) -> dict:
    first = json.loads(res.stdout.splitlines()[0])
    assert first["type"] == "init", res.stdout
    return first


def test_a_model_switch_in_print_mode_is_for_that_run_only_and_says_so(cli):
    with FakeOpenAIServer(answer, serves=["other-model"]) as server:
        url = server.base_url
        started = cli("-p", "hello", "--model", "fake-model", "--base-url", url, "--api-key", "k",
                      "--context-window", "16k")
        [path] = cli.sessions()
        kept = remembered.options_of(path)
        switched = cli("-c", "-p", "/model other-model", "--api-key", "k")
        wider = cli("-c", "-p", "/model --window 20k", "--api-key", "k")
        after = cli("-c", "-p", "/model", "--api-key", "k", "--output-format", "stream-json")
    for res in (started, switched, wider, after):
        assert res.code == 0, res.stdout + res.stderr
    assert remembered.options_of(path) == kept == {"model": "fake-model", "base_url": url,
                                                   "context_window": 16_000, "ran_with": "fake-model"}
    assert (init(after)["model"], init(after)["window"]) == ("fake-model", 16_000), init(after)
    assert "model fake-model → other-model · window 16,000" in switched.stdout, switched.stdout
    assert (f"for this run only: the session does not remember a switch made with -p (to go on with it: "
            f"compact-agent -r {path.stem} --model other-model)\n") in switched.stdout, switched.stdout
    assert "window 16,000 → 20,000 · model fake-model, as it was" in wider.stdout, wider.stdout
    assert f"compact-agent -r {path.stem} --model fake-model --context-window 20000)" in wider.stdout
    assert len(server.requests) == 1  # a switch sends nothing


def test_without_a_session_file_the_command_line_to_use_has_no_id(cli):
    with FakeOpenAIServer(answer, serves=["other-model"]) as server:
        res = cli("-p", "/model other-model", "--model", "fake-model", "--base-url", server.base_url,
                  "--api-key", "k")
    assert res.code == 0, res.stderr
    assert "(to go on with it: compact-agent --model other-model)\n" in res.stdout, res.stdout
    assert cli.sessions() == []


def test_a_switch_in_print_mode_to_a_smaller_window_leaves_the_saved_history_as_it_was(cli):
    """The run ends with the command and sends nothing to the model: compacting the saved history for
    a window this run alone had rewrote the session for good (36K → 3K), for a switch it forgot."""
    long = "the ordinary words of a long answer, said at length. " * 1_200  # 15,900 tokens
    with FakeOpenAIServer(lambda req: Reply.text(long if len(req.messages) < 3 else "ok"),
                          serves=["other-model"]) as server:
        started = cli("-p", "hello", "--model", "fake-model", "--base-url", server.base_url, "--api-key", "k",
                      "--context-window", "64k")
        more = cli("-c", "-p", "and then?", "--api-key", "k")
        [path] = cli.sessions()
        saved = path.read_bytes()
        switched = cli("-c", "-p", "/model other-model --window 16k", "--api-key", "k")
        status = cli("-c", "-p", "/status", "--api-key", "k")
    for res in (started, more, switched, status):
        assert res.code == 0, res.stdout + res.stderr
    assert "model fake-model → other-model · window 16,000" in switched.stdout, switched.stdout
    assert "not compacted: the context (" in switched.stdout and (
        "but this run ends here and sends nothing to the model: the session keeps its history as it was, and a "
        "run that goes on with the switch compacts it first\n") in switched.stdout, switched.stdout
    assert "compacted (manual" not in switched.stdout
    assert path.read_bytes()[:len(saved)] == saved and b'"compaction"' not in path.read_bytes()[len(saved):]
    assert not list(path.parent.glob("**/compact-history/*")) and "compactions 0" in status.stdout, status.stdout
    assert len(server.requests) == 2  # a switch sends nothing
