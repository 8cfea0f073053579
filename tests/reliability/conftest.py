"""One pre-imported zygote for the whole reliability suite: tests that run the real CLI many times
fork it from there instead of paying the interpreter's start-up each time (see harness.py)."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from .harness import Zygote


@pytest.fixture(scope="session")
def zygote() -> Iterator[Zygote]:
    z = Zygote()
    try:
        yield z
    finally:
        z.close()
