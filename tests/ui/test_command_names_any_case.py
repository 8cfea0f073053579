"""A command's name in any case is the command: `/Compact`, `/HELP`, `/Status` were refused as
unknown, in the REPL and in print mode. Everywhere a name is matched (dispatch, Tab, print mode, the
"did you mean", a project's own commands), and only the name: what follows it keeps its case."""

from __future__ import annotations

import io

import pytest
from prompt_toolkit.completion import CompleteEvent
from prompt_toolkit.document import Document

from compact_agent.ui import print_commands, render
from compact_agent.ui.command_registry import COMMANDS, ExitRepl, built_in_names
from compact_agent.ui.commands import run_command
from compact_agent.ui.custom_commands import CUSTOM_DIRS, custom_command, custom_commands
from compact_agent.ui.prompt_input import ReplCompleter
from compact_agent.ui.tab_values import command_arguments, options
from compact_agent.ui.typed_answer import LeaveAsked, not_words
from tests.fakes.openai_server import FakeOpenAIServer

from .test_commands_terminal import answer, session
from .test_commands_terminal import show as shown


async def show(s, line: str) -> str:
    return " ".join((await shown(s, line)).split())


async def test_a_name_in_any_case_runs_the_command_and_its_arguments_keep_theirs(tmp_path):
    with FakeOpenAIServer(answer) as server:
        s = session(tmp_path, server)
        try:
            assert await show(s, "/HELP") == await show(s, "/help")
            assert "until auto-compaction" in await show(s, "/Status")
            assert await show(s, "/History") == "no compactions yet no messages yet: the conversation is empty"
            # the argument as typed, not lowercased
            assert (await show(s, "/Memory Two")).startswith("no instruction file Two: none is loaded")
            assert await show(s, "/STATUS now") == "/status takes no arguments; not understood: now"
            # a typo in capitals is still suggested
            assert await show(s, "/CONTEXTT") == "unknown command /CONTEXTT (did you mean /context?); /help lists them"
            for leave in ("/Exit", "/QUIT", "/Q"):
                with pytest.raises(ExitRepl):
                    await run_command(s, leave, render.make_console())
        finally:
            s.close()


def test_tab_completes_a_name_begun_in_capitals_and_its_options_and_values(tmp_path):
    comp = ReplCompleter(lambda: [*COMMANDS, "quit"], tmp_path)
    offered = [c.text for c in comp.get_completions(Document("/Com"), CompleteEvent())]
    assert offered == ["/compact"]
    assert [name for name, _ in options("Compact", "--pre")] == ["--preview"]
    assert [name for name, _ in command_arguments(tmp_path)("MODEL", "deepseek-c")] == ["deepseek-chat"]


def test_print_mode_takes_a_name_in_any_case(tmp_path):
    assert print_commands.slash_command("/Compact keep The Tests") == "/Compact keep The Tests"  # run, words as typed
    assert print_commands.command_name("/MCP") == "mcp"  # what print mode looks for by name (/mcp, /init)
    assert print_commands.refusal("/Status", tmp_path) is None
    assert print_commands.refusal("/CLEAR", tmp_path) == (
        "/clear is a REPL command: -p without -c or -r starts a new session (nothing was sent)")
    assert print_commands.refusal("/CONTEXTT", tmp_path) == (
        "unknown command /CONTEXTT; did you mean /context? (nothing was sent)")


async def test_print_mode_help_in_capitals_is_print_modes_list(tmp_path):
    with FakeOpenAIServer(answer) as server:
        s = session(tmp_path, server)
        try:
            c = render.make_console()
            c.file = io.StringIO()
            c.record = True
            await print_commands.run(s, "/HELP", c)
            out = " ".join(c.export_text().split())
        finally:
            s.close()
    assert "Each run takes one command or one prompt" in out and "Enter sends" not in out, out


def test_a_projects_command_in_another_case_and_a_file_named_as_a_built_in_in_capitals(tmp_path):
    folder = tmp_path / CUSTOM_DIRS[-1]
    folder.mkdir(parents=True)
    (folder / "review.md").write_text("Review $ARGUMENTS.\n")
    (folder / "Plan.md").write_text("my own plan\n")
    (folder / "Deploy.md").write_text("deploy\n")
    (folder / "deploy.md").write_text("deploy, lower\n")
    assert custom_command(tmp_path, "REVIEW") == folder / "review.md"
    assert custom_command(tmp_path, "deploy") == folder / "deploy.md"  # spelled so: that one
    assert custom_command(tmp_path, "DEPLOY") is None  # two in other cases: neither is guessed
    # /Plan is /plan, the built-in: the file is never run, and /help says so, not that it is a command
    assert "Plan" not in custom_commands(tmp_path)
    assert built_in_names(tmp_path, CUSTOM_DIRS) == [folder / "Plan.md"]


async def test_help_says_a_file_named_as_a_built_in_in_capitals_is_not_run(tmp_path):
    folder = tmp_path / "project" / CUSTOM_DIRS[-1]
    folder.mkdir(parents=True)
    (folder / "Plan.md").write_text("my own plan\n")
    with FakeOpenAIServer(answer) as server:
        s = session(tmp_path, server)
        try:
            out = await show(s, "/help")
        finally:
            s.close()
    assert "/Plan " not in out and "Plan.md is not run: /plan is a built-in command (rename the file to use it)" in out, out


def test_exit_in_capitals_where_the_model_is_told_what_to_do_instead_leaves(tmp_path):
    with pytest.raises(LeaveAsked):
        not_words("/Exit")
    assert not_words("/Quit now") == "/Quit takes no arguments; alone, it leaves now"
