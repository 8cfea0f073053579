"""A key the provider rejects (HTTP 401) in the REPL: the line gave the advice of a request refused
as it is (HTTP 400), 'change what the provider's message names (/model switches the model), or
/rewind takes your message back to edit', where the key is what to change; and the REPL reads its key
as it starts, so it says to go on with `compact-agent -c` and another key. Over the fake OpenAI server."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.fakes.openai_server import Reply

from .repl_driver import drive

REJECTED = {"error": {"message": "Incorrect API key provided", "type": "invalid_request_error",
                      "code": "invalid_api_key"}}
SAVED = "; the session is saved with your message: `compact-agent -c` with that key goes on from it"


def bad_key(req: object) -> Reply:
    return Reply.error(401, REJECTED)


def _line(out: str) -> str:
    said = " ".join(out.split())
    assert "rejected the API key" in said, out
    assert "/model switches" not in said and "refused again" not in said and "send it again" not in said, out
    return said


async def test_a_key_given_with_api_key_is_given_again_there(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    run = await drive(tmp_path, bad_key, ["hello\r"])
    assert ("the provider rejected the API key given with --api-key at " in _line(run.out)
            and "Incorrect API key provided; give another key with --api-key" + SAVED in _line(run.out)), run.out


async def test_a_key_from_the_variable_is_set_there(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "k")  # the key the session sends
    run = await drive(tmp_path, bad_key, ["hello\r"])
    assert ("give another key: set OPENAI_API_KEY to a key the provider takes, or pass one with --api-key" + SAVED
            in _line(run.out)), run.out
