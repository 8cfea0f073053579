"""Redaction catches the key's common transforms, not only the literal key."""

from __future__ import annotations

import base64

import pytest

from compact_agent.context.plumbing import secrets as registry
from compact_agent.context.plumbing.secrets import REDACTED, redact, register

KEY = "sk-forms-0123456789abcdefABCDEF"


@pytest.fixture(autouse=True)
def _registered():
    register(KEY)
    yield
    registry._secrets.discard(KEY)


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
