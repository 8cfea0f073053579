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
