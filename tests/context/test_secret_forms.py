"""Redaction catches the key's common transforms, not only the literal key."""

from __future__ import annotations

import base64

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from compact_agent.context.plumbing import secrets as registry
from compact_agent.context.plumbing.secrets import REDACTED, StreamRedactor, redact, register

KEY = "sk-forms-0123456789abcdefABCDEF"


def _forget(key: str, body: str) -> None:
    registry.registered_keys.discard(key)
    registry._bodies.discard(body.lower())
    registry._compile_pieces()


@pytest.fixture(autouse=True)
def _registered():
    register(KEY)
    yield
    registry.registered_keys.discard(KEY)


@pytest.mark.parametrize("prefix", ["", "x", "xy", "OPENAI_API_KEY=", "K=\n"])
def test_base64_at_any_alignment(prefix: str) -> None:
    enc = base64.b64encode(f"{prefix}{KEY}\n".encode()).decode()
    assert REDACTED in redact(enc)
    wrapped = "\n".join(enc[i:i + 10] for i in range(0, len(enc), 10))  # `base64 -w 10`
    assert REDACTED in redact(wrapped)
    # what is left is the prefix's own encoding and at most a character or two of key bits each side
    left, right = redact(wrapped).replace("\n", "").split(REDACTED)
    assert len(left) <= len(base64.b64encode(prefix.encode())) + 1 and len(right) <= 4


def test_reversed_and_split_by_whitespace() -> None:
    assert redact(f"a {KEY[::-1]} b") == f"a {REDACTED} b"
    assert redact(" ".join(KEY)) == REDACTED
    assert redact("\n".join(KEY[i:i + 7] for i in range(0, len(KEY), 7))) == REDACTED  # `fold -w 7`
    assert redact("\t".join(KEY[::-1])) == REDACTED
    assert redact("ordinary text: s k - f o r m s") == "ordinary text: s k - f o r m s"


@pytest.mark.parametrize("encoding", ["utf-16-le", "utf-16-be", "utf-32-le", "utf-32-be"])
def test_a_key_in_utf16_or_utf32_read_as_8_bit_text(encoding: str) -> None:
    """`cat .env` of a file in UTF-16 (what Windows PowerShell's `>` writes) shows the key with a NUL
    between its characters, UTF-32 with three: it reached the model whole."""
    shown = f"OPENAI_API_KEY={KEY}\n".encode(encoding).decode("latin-1")
    assert KEY not in redact(shown).replace("\0", "")
    assert REDACTED in redact(shown)
    assert REDACTED in redact(KEY[::-1].encode(encoding).decode("latin-1"))
    assert redact("a\0b\0c ordinary") == "a\0b\0c ordinary"


@pytest.mark.parametrize("encoding", ["utf-16-le", "utf-32-be"])
def test_a_key_in_utf16_or_utf32_as_cat_v_or_a_bytes_repr_shows_it(encoding: str) -> None:
    """What the model runs next to see such a file: `cat -A` writes each NUL `^@`, Python prints the
    bytes with `\\x00` between the characters: the same few characters between each two of the key's."""
    raw = f"OPENAI_API_KEY={KEY}\n".encode(encoding)
    shown = raw.decode("latin-1").replace("\0", "^@")
    assert KEY[4:] not in redact(shown).replace("^@", "") and REDACTED in redact(shown)
    assert KEY[4:] not in redact(repr(raw)).replace("\\x00", "") and REDACTED in redact(repr(raw))
    assert redact(".".join(KEY)) == REDACTED
    assert redact("s.k.-.f.o.r.m.s ordinary") == "s.k.-.f.o.r.m.s ordinary"


@given(cuts=st.lists(st.integers(min_value=0, max_value=200), max_size=12),
       form=st.sampled_from(["literal", "reversed", "spread", "base64"]), before=st.text(max_size=60),
       after=st.text(max_size=60))
@settings(max_examples=150, deadline=None)
def test_a_stream_cut_anywhere_shows_no_key(cuts: list[int], form: str, before: str, after: str) -> None:
    """A streamed answer arrives in pieces cut anywhere, a key's form among them: what the
    `StreamRedactor` lets through, piece by piece and at the end, is what `redact` makes of the whole."""
    shown = {"literal": KEY, "reversed": KEY[::-1], "spread": " ".join(KEY),
             "base64": base64.b64encode(KEY.encode()).decode()}[form]
    text = f"{before}{shown}{after}"
    points = sorted({min(c, len(text)) for c in cuts})
    pieces = [text[a:b] for a, b in zip([0, *points], [*points, len(text)], strict=True)]
    stream = StreamRedactor()
    out = [stream.feed(p) for p in pieces]
    out.append(stream.flush())
    assert "".join(out) == redact(text)
    assert KEY not in "".join(out) and KEY[:8] not in "".join(out)


@pytest.mark.parametrize(("text", "shown"), [
    ('{"provider_url":"http://bob:pw12@127.0.0.1:42501/v1/"}', '{"provider_url":"http://bob:***@127.0.0.1:42501/v1/"}'),
    ("see https://a:b@c.d/e and http://x:y@z", "see https://a:***@c.d/e and http://x:***@z"),
    ("ssh://git@github.com/x and mailto:a@b.c", "ssh://git@github.com/x and mailto:a@b.c"),  # no password
    ("http://[::1]:8080/v1 and http://host:8080/p@x", "http://[::1]:8080/v1 and http://host:8080/p@x"),
])
def test_an_address_password_never_reaches_a_file(text: str, shown: str) -> None:
    """Whatever its length (a registered key needs MIN_LEN characters): an endpoint given with a
    password comes back in every response pydantic-ai records (`provider_url`)."""
    assert redact(text) == shown
    assert registry.redact_bytes(text.encode()) == shown.encode()


def test_a_long_text_of_near_addresses_is_scrubbed_in_linear_time() -> None:
    text = "x://" + "a" * 200_000 + ":" + "b" * 200_000  # no @: nothing to hide, and no backtracking blow-up
    assert redact(text) == text
    many = "http://u:p@h/ " * 20_000
    assert redact(many) == "http://u:***@h/ " * 20_000


def test_pieces_of_the_key_cut_by_a_program_are_redacted_whole() -> None:
    """`cut -c20-30 .env`, `${KEY:10:8}`, the key printed in halves by two commands: each piece of
    its random part of FRAGMENT characters or more goes, as far as it matches the key."""
    key = "sk-3f9a1c7e5b2d48f6a0e9c3b7d1f5a2e8"  # as a provider makes them: its kind, then random
    register(key)
    try:
        body = key[3:]
        half = len(key) // 2
        assert (redact(f"first: {key[:half]}\nsecond: {key[half:]}\n")
                == f"first: sk-{REDACTED}\nsecond: {REDACTED}\n")
        assert redact(f"x={body[5:5 + registry.FRAGMENT]};") == f"x={REDACTED};"
        assert redact(f"[{body[3:20]}]") == f"[{REDACTED}]"  # one piece, one mark
        assert redact(body[:registry.FRAGMENT - 1]) == body[:registry.FRAGMENT - 1]  # shorter: not caught
    finally:
        _forget(key, body)


def test_what_every_key_of_its_kind_holds_and_plain_runs_stay() -> None:
    """The kind before a key's random part (`sk-`, `sk-ant-api03-`) names every key of that kind, and
    a key typed by hand may hold a run of digits or letters that ordinary text holds too."""
    typed = "sk-ant-api03-local1234567890abcdefghij"
    register(typed)
    try:
        text = "keys look like sk-ant-api03-… ; line 12345678, id 1234567890, abcdefghij"
        assert redact(text) == text
        assert redact(f"({typed[20:32]})") == f"({REDACTED})"  # a mixed piece of its random part
    finally:
        _forget(typed, typed[len("sk-ant-api03-"):])


def test_a_stream_cut_inside_a_piece_shows_none_of_it() -> None:
    piece = KEY[12:26]
    for cut in range(1, 40):
        text = "x" * 50 + f" {piece} " + "y" * 50
        stream = StreamRedactor()
        out = stream.feed(text[:cut + 40]) + stream.feed(text[cut + 40:]) + stream.flush()
        assert out == redact(text) and piece[:registry.FRAGMENT] not in out


def test_the_key_in_another_case_is_redacted() -> None:
    """`echo $KEY | tr a-z A-Z` left the key a few million guesses away: the key, its reverse and its
    pieces go in any case; ordinary text in capitals stays."""
    upper = KEY.upper()
    assert redact(f"key: {upper}") == f"key: {REDACTED}"
    assert redact(KEY.lower()) == REDACTED and redact(KEY[::-1].swapcase()) == REDACTED
    assert redact(" ".join(upper)) == REDACTED  # `tr` then `fold`
    body = KEY[len("sk-forms-"):]
    assert redact(f"[{body[2:14].upper()}]") == f"[{REDACTED}]"  # `${KEY:11:12} | tr a-z A-Z`
    assert redact("SK-FORMS-ORDINARY WORDS 2024") == "SK-FORMS-ORDINARY WORDS 2024"
    for cut in range(1, len(upper) + 10):  # streamed, cut anywhere
        text = f"printed: {upper} done"
        stream = StreamRedactor()
        out = stream.feed(text[:cut]) + stream.feed(text[cut:]) + stream.flush()
        assert out == f"printed: {REDACTED} done", cut
