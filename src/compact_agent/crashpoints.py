"""The crash points of every durable write, armed from `COMPACT_AGENT_CRASH_AT` / `_TALLY`.

The points live in the library (`compact_agent.context.plumbing.crashpoints`), which never reads the
environment; importing this module (the agent and its session store do) arms them from it. It is
the library's module itself, so `configure`, `hit` and the counters are shared.
"""

from __future__ import annotations

import os
import sys
from typing import TYPE_CHECKING

from .context.plumbing import crashpoints as _points

if TYPE_CHECKING:  # what this module is at run time, as type checkers see it
    from .context.plumbing.crashpoints import *  # noqa: F403

_points.arm_from_environment(os.environ)
sys.modules[__name__] = _points
