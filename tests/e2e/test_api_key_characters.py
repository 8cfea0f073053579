"""A key with what an HTTP header cannot carry — the carriage return `$(cat key.txt)` keeps from a
file saved with Windows line ends, a space at its end, a letter that is not ASCII — was sent: the
client refused the header and the line said `cannot reach the model endpoint (Illegal header value
b'Bearer sk-…\\r'); check the network`, or, for a letter not ASCII, that the server's reply had a
shape the agent cannot read. It is refused before anything is sent, naming where the key came from."""

from __future__ import annotations

import pytest

from compact_agent.models import ConfigError, api_key_for

KEY = "sk-proj-abcdef1234567890XYZ"


@pytest.mark.parametrize("key, said", [
    (KEY + "\r", "holds a line break, which the request header the key goes in cannot carry (a key file saved "
                 "with Windows line ends?): give the key alone"),
    (KEY + "\n", "holds a line break"),
    ("sk-proj-abc\tdef1234567890XYZ", "holds a control character, which the request header the key goes in "
                                      "cannot carry: give the key alone"),
    ("sk-proj-abcdéf1234567890XYZ", "holds a character that is not ASCII"),
    (KEY + " ", "holds a space at its end"),
])
def test_a_key_a_header_cannot_carry_is_refused_by_where_it_came_from(monkeypatch, key, said) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", key)
    with pytest.raises(ConfigError) as e:
        api_key_for("gpt-4o", None, None)
    assert str(e.value).startswith("OPENAI_API_KEY " + said), e.value
    assert KEY[8:] not in str(e.value)  # nothing of the key itself
    with pytest.raises(ConfigError, match=r"^--api-key holds "):
        api_key_for("fake-model", "http://127.0.0.1:9/v1", key)
    assert api_key_for("fake-model", "http://127.0.0.1:9/v1", " " + KEY) == " " + KEY  # one before: sent


def test_the_command_line_says_it_in_one_line_and_sends_nothing(cli) -> None:
    res = cli("-p", "hi", "--model", "fake-model", "--base-url", "http://127.0.0.1:9/v1",
              env={"OPENAI_API_KEY": KEY + "\r"})
    assert res.code == 1 and res.stdout == "", (res.code, res.stdout)
    assert res.stderr == ("compact-agent: OPENAI_API_KEY holds a line break, which the request header the key goes "
                          "in cannot carry (a key file saved with Windows line ends?): give the key alone\n")
