"""The REPL's /status before the first message says the session id it shows is not saved yet: no
file holds it until that message (`-r ID` from another terminal finds no such session)."""

from __future__ import annotations

from tests.fakes.openai_server import Reply

from .repl_driver import drive


async def test_status_before_and_after_the_first_message(tmp_path):
    run = await drive(tmp_path, lambda req: Reply.text("ok"), ["/status\r", "hello\r", "/status\r"])
    text = " ".join(run.out.split())
    assert text.count("(not saved yet: your first message saves it)") == 1, run.out
