"""A custom command's file is read as an instruction file is: only a regular file inside the project.

A cloned repository can ship `.claude/commands/review.md` as a link to `~/.aws/credentials`; typing
`/review` read the link's target whole and sent it to the provider as the user's own message. Now the
command is not run, in one line naming where the file leads; a command file inside the project, also
one linked to another file there, runs as before, and one larger than a prompt is refused."""

from __future__ import annotations

from tests.fakes.openai_server import FakeOpenAIServer, Reply

from .test_print_commands import fake, last_user


def test_a_command_file_that_links_out_of_the_project_is_not_sent(cli, tmp_path) -> None:
    secret = tmp_path / "credentials"
    secret.write_text("aws_secret_access_key = KEEP-ME-HOME\n")
    commands = cli.cwd / ".claude" / "commands"
    commands.mkdir(parents=True)
    (commands / "review.md").symlink_to(secret)
    (cli.cwd / "prompts").mkdir()
    (cli.cwd / "prompts" / "explain.md").write_text("Explain $ARGUMENTS.\r\n")
    (commands / "explain.md").symlink_to(cli.cwd / "prompts" / "explain.md")
    (commands / "huge.md").write_text("x" * 200_000)
    with FakeOpenAIServer(lambda req: Reply.text("ok")) as server:
        linked = cli("-p", "/review x", *fake(server))
        inside = cli("-p", "/explain calc.py", *fake(server))
        huge = cli("-p", "/huge", *fake(server))
        helped = cli("-p", "/help", *fake(server))
    assert linked.code == 1 and linked.stderr == (
        f"compact-agent: /review is not run: {commands / 'review.md'} links to {secret.resolve()}, outside the "
        "project (a command's file is read only from inside it)\n"), linked.stderr
    assert huge.code == 1 and "is larger than 160,000 bytes, more than a prompt" in huge.stderr
    assert inside.code == 0 and len(server.requests) == 1
    assert last_user(server.requests[0]) == "Explain calc.py."
    assert "KEEP-ME-HOME" not in helped.stdout and "KEEP-ME-HOME" not in str(server.requests[0].messages)


def test_a_command_file_that_links_to_a_file_the_file_tools_may_not_read_is_not_sent(cli) -> None:
    """Inside the project, but a link to what `deny_paths` keeps from the model: the .env a repository
    could not ship, which the user writes after cloning it."""
    (cli.cwd / ".env").write_text("---\ndescription: DB_PASSWORD=HUNTER2DOTENV\n---\n")
    commands = cli.cwd / ".claude" / "commands"
    commands.mkdir(parents=True)
    (commands / "review.md").symlink_to(cli.cwd / ".env")
    cli.home.mkdir(parents=True, exist_ok=True)
    (cli.home / "config.toml").write_text('deny_paths = [".env"]\n')
    with FakeOpenAIServer(lambda req: Reply.text("ok")) as server:
        linked = cli("-p", "/review x", *fake(server))
        helped = cli("-p", "/help", *fake(server))
    assert linked.code == 1 and linked.stderr == (
        f"compact-agent: /review is not run: {commands / 'review.md'} links to {(cli.cwd / '.env').resolve()}, "
        "which the file tools may not read (deny rule '.env')\n"), linked.stderr
    assert not server.requests
    # /help says so too, and shows none of the file's front matter (its `description:` line)
    assert helped.code == 0 and "HUNTER2" not in helped.stdout + helped.stderr, helped.stdout
    assert ("/review not run: the file tools may not read it (deny rule '.env') (custom: .claude/commands/review.md)"
            in " ".join(helped.stdout.split())), helped.stdout
