"""A file read, then its folder replaced by a link to itself (`rm -r d; ln -s d d`): the session goes on.

With no attacker: the model read d/x.txt, then a command replaced the folder d by a link to itself.
The read's path could not be followed any more: the compaction's end (which reads stay in view) and
every later turn (a checkpoint of the reads, file_state.current_json) failed on it."""

from __future__ import annotations

from collections.abc import Callable

from tests.fakes.openai_server import ChatRequest, FakeOpenAIServer, Reply

from .scripted import FileTaskAgent, is_summary_request, make_project, task_text

N = 24
WINDOW = "12000"
FULL_SUMMARY = {"COMPACT_AGENT_MEMORY_ENABLED": "false", "COMPACT_AGENT_COLLAPSE_ENABLED": "false",
                "COMPACT_AGENT_COMPACTION_RECORDS": "false", "COMPACT_AGENT_MICROCOMPACT_TRIGGER": "1000"}


def read_then_loop(agent: FileTaskAgent) -> Callable[[ChatRequest], Reply]:
    steps = [Reply.tools([("read_file", {"path": "d/x.txt"})], content="First the notes."),
             Reply.tools([("bash", {"command": "rm -r d; ln -s d d"})], content="Now the folder goes.")]

    def responder(req: ChatRequest) -> Reply:
        if steps and not is_summary_request(req):
            return steps.pop(0)
        return agent(req)
    return responder


def test_the_session_goes_on_after_a_folder_read_became_a_loop(cli) -> None:
    (cli.cwd / "d").mkdir()
    (cli.cwd / "d" / "x.txt").write_text("the notes\n")
    expected = make_project(cli.cwd, N)
    agent = FileTaskAgent(N)
    with FakeOpenAIServer(read_then_loop(agent), window=128_000) as server:
        first = cli("-p", task_text(N), "--model", "fake-model", "--base-url", server.base_url, "--api-key", "k",
                    "--context-window", WINDOW, "--yes", env=FULL_SUMMARY)
        again = cli("-c", "-p", "go on", "--api-key", "k", "--context-window", WINDOW, "--yes", env=FULL_SUMMARY)
        manual = cli("-c", "-p", "/compact", "--api-key", "k", env=FULL_SUMMARY)
    assert (cli.cwd / "d").is_symlink()
    assert first.code == 0, first.stderr
    assert f"FINAL SUM: {expected}" in first.stdout
    assert agent.summaries
    assert "hook:" not in first.stderr + manual.stderr and "loop" not in first.stderr, first.stderr
    assert again.code == 0, again.stderr
    assert manual.code == 0, manual.stderr
