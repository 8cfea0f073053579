"""The toolset marks a call its permissions refused as one that did not run (`"ran": false` beside the
error mark), apart from a call that ran and failed: a compaction keeps the failing build the model
was citing, not the refusal of its re-run (compaction/runs.py)."""

from __future__ import annotations

import asyncio

from compact_agent.agent.tools.base import NotRun, ToolFailure
from compact_agent.agent.tools.never_raises import never_raises
from compact_agent.context.plumbing.markers import KEY


def test_a_refused_call_is_marked_as_not_run_and_a_failed_one_as_failed() -> None:
    async def refused() -> str:
        return NotRun("permission denied: bash(rm -rf x) was declined")

    async def failed() -> str:
        return ToolFailure("exit code 2")

    marks = [asyncio.run(never_raises(fn)()).metadata[KEY]["tool"] for fn in (refused, failed)]  # type: ignore[union-attr]
    assert marks == [{"error": True, "ran": False}, {"error": True}]
