"""What is typed into the REPL reaches the model whatever bytes the terminal sends for it.

A terminal set to Latin-1 sends `é` as the one byte 0xE9, which is not UTF-8: Python read it as a
lone surrogate, which no request can carry, and the turn failed before a request was made ("the
model endpoint sent a reply in a shape this agent cannot read ...: send it again to retry"), on
every retry. A REPL whose stdout is ASCII (`PYTHONIOENCODING=ascii`, a C locale) did not start at
all (`'ascii' codec can't encode character '\\xb7'`), and read UTF-8 typed into it the same way.
Now such a byte is read as Latin-1 reads it (Windows-1252 where it names one), as piped input is,
and UTF-8 is read as UTF-8 whatever the locale says."""

from __future__ import annotations

from pathlib import Path

from tests.fakes.openai_server import FakeOpenAIServer, Reply, message_text

from .pty_driver import Terminal


def answered(req) -> Reply:
    return Reply.text("ANSWERED")


def sent(server: FakeOpenAIServer) -> list[str]:
    return [message_text(m) for req in server.requests for m in req.messages if m.get("role") == "user"]


def test_a_latin1_byte_typed_is_sent_as_its_character(tmp_path: Path) -> None:
    with FakeOpenAIServer(answered) as server:
        term = Terminal(tmp_path, server.base_url)
        try:
            at = term.prompt(term.read_until("/help for commands"))
            term.type("caf\xe9 au lait, 80\x80\r".encode("latin-1"))  # 0x80: Windows-1252's euro sign
            term.prompt(term.read_until("ANSWERED", at))
            assert "reply in a shape" not in term.text(at)
            assert term.finish() == 0
        finally:
            term.close()
    assert any("café au lait, 80€" in text for text in sent(server)), sent(server)


def test_a_repl_whose_stdout_is_ascii_starts_and_reads_utf8(tmp_path: Path) -> None:
    with FakeOpenAIServer(answered) as server:
        term = Terminal(tmp_path, server.base_url, env={"PYTHONIOENCODING": "ascii"}, fresh=True)
        try:
            at = term.prompt(term.read_until("/help for commands"))
            assert "fake-model - window" in term.text()  # the banner's `·` as ASCII
            term.type("日本語 hello\r")
            term.prompt(term.read_until("ANSWERED", at))
            assert term.finish() == 0
        finally:
            term.close()
    assert any("日本語 hello" in text for text in sent(server)), sent(server)
