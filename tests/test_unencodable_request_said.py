"""A message holding a character no request can carry (a lone surrogate: a byte that was not UTF-8
text) fails as the provider's SDK builds the request, before anything is sent. It was said as 'the
model endpoint sent a reply in a shape this agent cannot read ...; send it again to retry', which
blamed a reply never made and asked for a retry that fails the same way. The real SDK, against the
fake server: the line names the character, and no retry is offered."""

from __future__ import annotations

import openai
import pytest

from compact_agent.error_causes import reply_unreadable
from compact_agent.error_text import describe_error
from tests.fakes.openai_server import FakeOpenAIServer, Reply


def test_a_character_the_request_cannot_carry_is_said_as_such() -> None:
    with FakeOpenAIServer(lambda req: Reply.text("never asked")) as server:
        client = openai.OpenAI(base_url=server.base_url, api_key="k", max_retries=0)
        with pytest.raises(UnicodeEncodeError) as raised:
            client.chat.completions.create(model="fake-model", messages=[{"role": "user", "content": "caf\udce9"}])
    assert server.requests == []  # nothing was sent: no reply to blame
    assert reply_unreadable(raised.value) is None
    said = describe_error(raised.value)
    assert "reply" not in said and "again" not in said and "codec" not in said, said
    assert "cannot be written as UTF-8 (\\udce9 at character" in said and "a byte that was not UTF-8 text" in said
