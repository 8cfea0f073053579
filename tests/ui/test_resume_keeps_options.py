"""A session picked from `-r`'s list or switched to with the REPL's `/resume` runs with the options it
was started with (`--context-window 16k` ...), as `-c` and `-r ID` run it, unless this command line
gives them: it ran with the options of the run, or of the session the REPL left. After `/resume` the
REPL says in one line what it now uses when that is another model or window; options it cannot use
are said in one line too, and it goes on with those it has."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from compact_agent.cli_resume import CommandLine
from compact_agent.session import remembered
from compact_agent.settings_file import load
from tests.fakes.openai_server import FakeOpenAIServer, Reply

from .repl_driver import drive

WINDOW = {"context_window": 16_000, "ran_with": "fake-model"}


def answer(req) -> Reply:
    return Reply.text("noted")


@pytest.fixture
def server(tmp_path, monkeypatch):
    monkeypatch.setenv("COMPACT_AGENT_HOME", str(tmp_path / "home"))
    monkeypatch.setenv("COMPACT_AGENT_CONFIG", str(tmp_path / "none.toml"))  # not the user's own
    with FakeOpenAIServer(answer, serves=["deepseek-chat"]) as srv:
        yield srv


def command_line(tmp_path: Path, server: FakeOpenAIServer, **given) -> CommandLine:
    """`compact-agent --model fake-model --base-url URL [given]` in the test's project."""
    given = {"model": "fake-model", "base_url": server.base_url, **given}
    work = (tmp_path / "project").resolve()
    flags = {"model": given["model"], "base_url": given["base_url"], "context_window": given.get("context_window")}
    return CommandLine(work, given, load(work, flags))


async def sessions(tmp_path: Path, server: FakeOpenAIServer, started: dict) -> tuple[str, str]:
    """Two sessions: one started with the options `started` (remembered as the command line saves
    them), then one started without any; their ids."""
    window = started.get("context_window")
    with remembered.remembering(remembered.ToRemember(started)):
        await drive(tmp_path, answer, ["in the first session\r"], server=server,
                    context_window=window if window and window >= 16_000 else None)
    await drive(tmp_path, answer, ["in the second session\r"], server=server)
    return holding(tmp_path, "in the first session"), holding(tmp_path, "in the second session")


def holding(tmp_path: Path, text: str) -> str:
    """The id of the session that holds `text` (ids made in the same second do not sort by time)."""
    [path] = [p for p in (tmp_path / "home" / "projects").glob("*/*.jsonl") if text in p.read_text()]
    return path.stem


def said(out: str, what: str) -> str:
    """The REPL's line that begins with `what`, as one line (the console wraps a long one)."""
    flat = " ".join(out.split())
    at = flat.find(what)
    assert at >= 0, f"nothing said {what!r}:\n{out}"
    return flat[at:]


async def test_a_session_picked_from_the_list_runs_with_its_window(tmp_path, server):
    first, _ = await sessions(tmp_path, server, WINDOW)
    run = await drive(tmp_path, answer, ["2\r", "/model\r"], server=server, pick_session=True,
                      options_for=command_line(tmp_path, server).for_session)
    assert f"window 16,000 · session {first}" in run.out, run.out
    assert "now: fake-model (OpenAI-compatible) · window 16,000" in run.out, run.out


async def test_resume_switches_to_the_window_the_session_was_started_with_and_says_so(tmp_path, server):
    first, second = await sessions(tmp_path, server, WINDOW)
    run = await drive(tmp_path, answer, ["/resume 1\r", "/model\r", "/resume 1\r", "/model\r"], server=server,
                      continue_last=True, options_for=command_line(tmp_path, server).for_session)
    assert f"window 32,768 (assumed) · session {second}" in run.out  # -c: the newest, started without options
    assert f"session {first} runs with fake-model · window 16,000, as it last ran\n" in run.out, run.out
    assert f"session {second} runs with fake-model · window 32,768\n" in run.out, run.out
    assert re.findall(r"now: fake-model \(OpenAI-compatible\) · window ([\d,]+)", run.out) == ["16,000", "32,768"], run.out


async def test_an_option_given_on_the_command_line_wins_and_a_note_says_so(tmp_path, server):
    """The window given wins over the one the session remembers, and one line says so (it went on
    at the flag's window without a word); the window the session it left had is no news."""
    first, _ = await sessions(tmp_path, server, WINDOW)
    run = await drive(tmp_path, answer, ["/resume 1\r", "/model\r"], server=server, continue_last=True,
                      context_window=20_000,
                      options_for=command_line(tmp_path, server, context_window=20_000).for_session)
    assert "runs with" not in run.out and "now: fake-model (OpenAI-compatible) · window 20,000" in run.out, run.out
    assert said(run.out, "--context-window").startswith(
        "--context-window 20,000 overrides 16,000, which the session remembers now:"), run.out


async def test_options_a_session_remembers_that_cannot_be_used_are_said_and_it_goes_on(tmp_path, server):
    """A window remembered too small for the tools (a hand-edited file): one line, naming the window
    as the session's (this command line gave none), and the session goes on with the window it has."""
    first, _ = await sessions(tmp_path, server, {"context_window": 3_000, "ran_with": "fake-model"})
    run = await drive(tmp_path, answer, ["/resume 1\r", "still here?\r", "/model\r"], server=server,
                      continue_last=True, options_for=command_line(tmp_path, server).for_session)
    line = said(run.out, f"could not run session {first}")
    assert line.startswith(f"could not run session {first} with fake-model, as it last ran (a 3,000-token context "
                           "window cannot hold the system prompt and tool definitions"), line
    assert "(remembered --context-window 3,000)); it goes on with fake-model · window 32,768 " in line, line
    assert "now: fake-model (OpenAI-compatible) · window 32,768" in run.out and run.prompts[-1] == "still here?", run.out


async def test_a_model_switch_is_remembered_by_the_session_and_by_one_clear_starts_next(tmp_path, server):
    run = await drive(tmp_path, answer, ["hello\r", "/model fake-model --window 20k\r", "/clear\r", "hi\r"],
                      server=server)
    assert "window 32,768 → 20,000 · model fake-model, as it was" in run.out, run.out
    files = sorted((tmp_path / "home" / "projects").glob("*/*.jsonl"))
    assert len(files) == 2
    for path in files:
        assert remembered.options_of(path) == {"model": "fake-model", "context_window": 20_000,
                                               "ran_with": "fake-model"}, path


def test_the_command_line_opens_a_picked_or_resumed_session_with_its_options(tmp_path):
    """Through the real command line: `compact-agent -r` and the picker, then `/resume`."""
    from .pty_driver import Terminal

    def session(*args: str, line: str) -> None:
        term = Terminal(tmp_path, srv.base_url, *args)
        try:
            term.prompt()
            term.type(line + "\r")
            term.prompt(term.read_until("noted"))
            assert term.finish() == 0
        finally:
            term.close()

    with FakeOpenAIServer(answer, serves=["deepseek-chat"]) as srv:
        session("--context-window", "16k", line="the first session")
        session(line="the second session")
        first, second = holding(tmp_path, "the first session"), holding(tmp_path, "the second session")
        term = Terminal(tmp_path, srv.base_url, "-r", cols=200)
        try:
            term.read_until("resume which?")
            term.type("2\r")  # the oldest: the first session
            term.prompt(term.read_until(f"window 16,000 · session {first}"))
            term.type("/resume 1\r")
            end = term.read_until(f"session {second} runs with fake-model · window 32,768")
            term.prompt(end)
            assert term.finish() == 0
        finally:
            term.close()


async def test_a_switch_back_to_the_model_the_window_was_given_for_is_remembered_with_that_window(tmp_path, server):
    """`--context-window 16k -m fake-model`, `/model deepseek-chat` (its own window), `/model fake-model`:
    the switch back runs at 16,000 again, and `-c` must too, not at the 32,768 assumed for a model
    the registry does not know."""
    line = command_line(tmp_path, server, context_window=16_000)
    with remembered.remembering(remembered.ToRemember({"context_window": 16_000, "ran_with": "fake-model"})):
        run = await drive(tmp_path, answer, ["hello\r", "/model deepseek-chat\r", "/model fake-model\r"],
                          server=server, context_window=16_000, settings=line.loaded.settings, config=line.loaded)
    assert "model deepseek-chat → fake-model · window 16,000" in run.out, run.out
    [path] = (tmp_path / "home" / "projects").glob("*/*.jsonl")
    assert remembered.options_of(path)["context_window"] == 16_000
    resumed = command_line(tmp_path, server).for_session(path)  # `compact-agent -c`
    assert resumed.get("context_window") == 16_000
    again = await drive(tmp_path, answer, ["/model\r"], server=server, continue_last=True,
                        context_window=resumed.get("context_window"))
    assert "now: fake-model (OpenAI-compatible) · window 16,000" in again.out, again.out


async def test_a_window_from_the_config_file_stays_the_files_after_a_switch_back(tmp_path, server):
    (tmp_path / "none.toml").write_text("context_window = 16000\n")  # the user's config file
    line = command_line(tmp_path, server)
    assert line.loaded.sources["context_window"] == "user file"
    run = await drive(tmp_path, answer, ["hello\r", "/model deepseek-chat\r", "/model fake-model\r"],
                      server=server, settings=line.loaded.settings, config=line.loaded)
    assert "model deepseek-chat → fake-model · window 16,000" in run.out, run.out
    [path] = (tmp_path / "home" / "projects").glob("*/*.jsonl")
    assert "context_window" not in remembered.options_of(path)


async def test_resume_says_the_model_the_session_last_ran_with_not_as_it_was_started(tmp_path, server):
    """A session switched with `/model` runs, once resumed, with the model it was switched to (what it
    remembers): the line said `as it was started`, of a session started with another model."""
    with FakeOpenAIServer(answer, serves=["other-model"]) as other:
        await switched_and_resumed(tmp_path, other)


async def switched_and_resumed(tmp_path: Path, server: FakeOpenAIServer) -> None:
    work = (tmp_path / "project").resolve()
    settings = load(work, {"model": "fake-model", "base_url": server.base_url})  # the model from the settings
    options_for = CommandLine(work, {"base_url": server.base_url}, settings).for_session
    await drive(tmp_path, answer, ["in the first session\r", "/model other-model --window 20k\r", "after it\r"],
                server=server, options_for=options_for)
    first = holding(tmp_path, "in the first session")
    run = await drive(tmp_path, answer, ["in the second session\r", f"/resume {first}\r"], server=server,
                      options_for=options_for)
    assert f"session {first} runs with other-model · window 20,000, as it last ran\n" in run.out, run.out
    assert "as it was started" not in run.out, run.out
