"""Fixtures shared by the suites: one pre-imported zygote per test process, from which the
reliability harness and the e2e CLI runs fork real compact-agent processes (see
tests/reliability/harness.py) instead of paying the interpreter's start-up each time."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from tests.reliability.harness import Zygote


@pytest.fixture(scope="session")
def zygote() -> Iterator[Zygote]:
    z = Zygote()
    try:
        yield z
    finally:
        z.close()
