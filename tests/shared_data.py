"""Where the tests find the shared transcripts the analyzer's tests replay: the folder named by
SHARED_TRANSCRIPTS when it is set, else `../shared/data` beside the checkout. A test that needs them
is skipped without them, with a reason naming the variable.

The variable is not a `COMPACT_AGENT_*` one: the product warns of every such variable that is no
setting of its own (setting_names.py), and would say so in each command the tests run.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path

import pytest

VARIABLE = "SHARED_TRANSCRIPTS"
BESIDE = Path(__file__).resolve().parents[1].parent / "shared" / "data"


def data_dir(environ: Mapping[str, str] = os.environ) -> Path:
    """The shared transcripts' folder: the variable's (`~` expanded), else the one beside the checkout."""
    given = environ.get(VARIABLE, "").strip()
    return Path(given).expanduser().resolve() if given else BESIDE


def missing(data: Path) -> str:
    return (f"shared transcript data not found at {data}: set {VARIABLE} to its folder "
            f"(default: ../shared/data beside the checkout)")


DATA = data_dir()
NO_DATA = missing(DATA)
requires_data = pytest.mark.skipif(not DATA.is_dir(), reason=NO_DATA)
