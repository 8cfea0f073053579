"""Fixtures shared by the suites: one pre-imported zygote per test process, from which the
reliability harness and the e2e CLI runs fork real compact-agent processes (see
tests/reliability/harness.py) instead of paying the interpreter's start-up each time.

The harness is imported only when a test asks for the zygote: the library's own tests also run
where only pydantic-ai is installed (`make compat`), without the CLI's dependencies."""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING

import pytest

if TYPE_CHECKING:
    from tests.reliability.harness import Zygote


@pytest.fixture(scope="session")
def zygote() -> Iterator[Zygote]:
    from tests.reliability.harness import Zygote

    z = Zygote()
    try:
        yield z
    finally:
        z.close()
