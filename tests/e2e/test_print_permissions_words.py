"""`-p /permissions` says what can be allowed in print mode: it said '(none yet: answer [a]lways,
or --allowed-tools)', an answer print mode never asks for; with --yes, that everything is."""

from __future__ import annotations

from tests.fakes.openai_server import FakeOpenAIServer, Reply


def test_always_allowed_in_print_mode(cli):
    with FakeOpenAIServer(lambda r: Reply.text("ok")) as server:
        args = ("-p", "/permissions", "--model", "fake-model", "--base-url", server.base_url, "--api-key", "k")
        refusing, allowing, listed = cli(*args), cli(*args, "--yes"), cli(*args, "--allowed-tools", "edit_file")
    assert "always allowed   (none: print mode does not ask; --allowed-tools, or --yes)\n" in refusing.stdout
    assert "[a]lways" not in refusing.stdout + allowing.stdout + listed.stdout
    assert "always allowed   (everything, with --yes)\n" in allowing.stdout
    assert "always allowed   edit_file\n" in listed.stdout
    assert not server.requests


def test_the_mcp_servers_rules_are_listed(cli):
    """A server's allow_tools and deny_tools (mcp_calls.py) say which of its tools run unasked or never:
    /permissions listed the bash rules and --allowed-tools, not these."""
    cli.home.mkdir(parents=True, exist_ok=True)
    (cli.home / "config.toml").write_text('[mcp_servers.docs]\ncommand = "docs-server"\nallow_tools = ["search", "list_*"]\n'
                                          '[mcp_servers.shell]\ncommand = "shell-server"\ndeny_tools = ["run"]\n')
    with FakeOpenAIServer(lambda r: Reply.text("ok")) as server:
        out = cli("-p", "/permissions", "--model", "fake-model", "--base-url", server.base_url, "--api-key", "k").stdout
    assert "mcp allowed      docs: search, list_*\n" in out, out
    assert "mcp denied       shell: run\n" in out, out
