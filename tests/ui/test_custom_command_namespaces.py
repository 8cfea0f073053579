"""A custom command in a subfolder of a command folder is namespaced by it: `.claude/commands/git/commit.md`
is `/git:commit` (it was left out: /help did not list it, and `/git:commit` was an unknown command),
listed in /help and offered by Tab, run in the REPL and by `-p`, read only from inside the project as
any command's file is. Of two files of one name, one goes first and /help says the other is not run.
A space in a name, where a typed command's name ends, is a hyphen: `my cmd.md` is `/my-cmd` (it was
listed as `/my cmd`, which ran nothing: the command typed was `/my`)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from prompt_toolkit.completion import CompleteEvent
from prompt_toolkit.document import Document

from compact_agent.agent.integrations.instructions import command_name
from compact_agent.ui import print_commands
from compact_agent.ui.command_registry import COMMANDS, CommandError
from compact_agent.ui.custom_commands import custom_command, custom_commands, custom_prompt
from compact_agent.ui.prompt_input import ReplCompleter
from tests.fakes.openai_server import Reply

from .repl_driver import drive


def folders(tmp_path: Path) -> tuple[Path, Path, Path]:
    project = tmp_path / "project"
    ours, claude = project / ".compact-agent" / "commands", project / ".claude" / "commands"
    (ours / "git").mkdir(parents=True)
    (claude / "git").mkdir(parents=True)
    return project, ours, claude


def completions(cwd: Path, line: str) -> list[str]:
    comp = ReplCompleter(lambda: [*COMMANDS, "quit", *custom_commands(cwd)], cwd)  # as the REPL gives them
    return [c.text for c in comp.get_completions(Document(line), CompleteEvent(completion_requested=True))]


def test_names_of_files_in_subfolders_and_with_spaces() -> None:
    assert command_name("review.md") == "review"
    assert command_name("git/commit.md") == "git:commit"
    assert command_name("ops/deploy/prod.md") == "ops:deploy:prod"
    assert command_name("my cmd.md") == "my-cmd"
    assert command_name("my  team\tnotes/weekly report.md") == "my-team-notes:weekly-report"
    assert command_name(" .md") == ""


def test_a_subfolder_is_a_namespace_listed_and_completed(tmp_path: Path) -> None:
    project, ours, claude = folders(tmp_path)
    (claude / "git" / "commit.md").write_text("Commit the staged changes. $ARGUMENTS\n")
    (claude / "ops" / "deploy").mkdir(parents=True)
    (claude / "ops" / "deploy" / "prod.md").write_text("Deploy to production.\n")
    (claude / ".drafts").mkdir()
    (claude / ".drafts" / "wip.md").write_text("not a command\n")
    found = custom_commands(project)
    assert found == {"git:commit": claude / "git" / "commit.md", "ops:deploy:prod": claude / "ops" / "deploy" / "prod.md"}
    assert completions(project, "/git") == ["/git:commit"]
    assert completions(project, "/ops:d") == ["/ops:deploy:prod"]
    assert custom_prompt(found["git:commit"], "with a short message") == \
        "Commit the staged changes. with a short message"
    assert print_commands.custom(project, "/git:commit now") == (claude / "git" / "commit.md", "now", "")


def test_a_space_in_a_name_is_a_hyphen(tmp_path: Path) -> None:
    project, _, claude = folders(tmp_path)
    (claude / "my cmd.md").write_text("Say what $ARGUMENTS means.\n")
    assert custom_commands(project) == {"my-cmd": claude / "my cmd.md"}
    assert completions(project, "/my") == ["/my-cmd"]  # never `/my cmd`, which runs /my
    assert custom_command(project, "my-cmd") == claude / "my cmd.md"


def test_of_two_files_of_one_name_one_goes_first(tmp_path: Path) -> None:
    project, ours, claude = folders(tmp_path)
    (ours / "git" / "commit.md").write_text("Ours.\n")
    (claude / "git" / "commit.md").write_text("Claude's.\n")
    (claude / "git:push.md").write_text("Spelled so.\n")  # a folder's own file before its subfolder's
    (claude / "git" / "push.md").write_text("In the folder.\n")
    (claude / "my-cmd.md").write_text("Spelled so.\n")  # a name as spelled before one whose space became a hyphen
    (claude / "my cmd.md").write_text("Spaced.\n")
    found = custom_commands(project)
    assert found["git:commit"] == ours / "git" / "commit.md"
    assert found["git:push"] == claude / "git:push.md"
    assert found["my-cmd"] == claude / "my-cmd.md"


def test_a_file_in_a_subfolder_is_read_only_from_inside_the_project(tmp_path: Path) -> None:
    project, _, claude = folders(tmp_path)
    (project / "prompts").mkdir()
    (project / "prompts" / "review.md").write_text("Review it closely.\n")
    (claude / "git" / "review.md").symlink_to(project / "prompts" / "review.md")  # inside: run
    assert custom_prompt(custom_commands(project)["git:review"], "") == "Review it closely."
    (tmp_path / "secret.txt").write_text("KEY=1\n")
    (claude / "git" / "leak.md").symlink_to(tmp_path / "secret.txt")
    with pytest.raises(CommandError, match=r"^/git:leak is not run: .* outside the project"):
        custom_prompt(custom_commands(project)["git:leak"], "")


async def test_the_repl_runs_them_and_help_says_which_file_is_not_run(tmp_path: Path) -> None:
    project, ours, claude = folders(tmp_path)
    (ours / "git" / "commit.md").write_text("---\ndescription: Commit the staged changes\n---\nCommit: $ARGUMENTS\n")
    (claude / "git" / "commit.md").write_text("Claude's commit.\n")
    (claude / "my cmd.md").write_text("Explain $ARGUMENTS.\n")
    run = await drive(tmp_path, lambda req: Reply.text("done"),
                      ["/git:commit fix the typo\r", "/my-cmd the diff\r", "/commit\r", "/help\r"])
    assert run.out.count("unknown command") == 1, run.out
    assert "unknown command /commit (did you mean /git:commit?)" in run.out, run.out  # Claude Code's name now
    assert [p.splitlines()[0] for p in run.prompts] == ["Commit: fix the typo", "Explain the diff."], run.out
    listed = " ".join(run.out.split("/help")[-1].split())  # the table's lines joined
    assert "/git:commit Commit the staged changes; .claude/commands/git/commit.md, /git:commit too, is not run " \
           "(custom: .compact-agent/commands/git/commit.md)" in listed, listed
    assert "/my-cmd custom: .claude/commands/my cmd.md" in listed, listed
    assert not re.search(r"(^| )/my cmd", listed), listed  # a row of its own, which ran /my
