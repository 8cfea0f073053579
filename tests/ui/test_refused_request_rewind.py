"""After a request the provider refuses as it is (HTTP 400), the line says what could change rather
than offer the same request again: the model (`/model`), or the message, which `/rewind` takes back
to edit, as the line says. Edited, the message goes without the refused one."""

from __future__ import annotations

from tests.fakes.openai_server import Reply, user_messages

from .repl_driver import drive


def refuses_otter(req) -> Reply:
    if "OTTER" in req.last_user_text():
        return Reply.error(400, {"error": {"message": "bad word", "type": "invalid_request_error"}})
    return Reply.text("ok")


async def test_rewind_takes_the_refused_message_back_to_edit(tmp_path) -> None:
    run = await drive(tmp_path, refuses_otter, ["remember OTTER\r", "/rewind 0\r", "\x15remember SEAL\r"],
                      answers="y\n")
    assert ("the provider answered HTTP 400: bad word; the session is saved with your message; sent as it is, it "
            "would be refused again: change what the provider's message names (/model switches the model), or "
            "/rewind takes your message back to edit") in " ".join(run.out.split()), run.out
    assert [m["content"] for m in user_messages(run.server.requests[-1])] == ["remember SEAL"], run.out
