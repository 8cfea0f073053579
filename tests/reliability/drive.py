"""Run several user turns in one real `AgentSession` process, as the REPL does (for kill tests).

Print mode is one turn per process, and L4 collapse only folds rounds of *earlier* turns, so a
collapse commit-log write happens only in a process that runs several turns. This driver is that
process: `python -m tests.reliability.drive BASE_URL WINDOW PROMPT...` in the project directory,
with COMPACT_AGENT_HOME set; it continues the newest session if there is one, prints one JSON line
per finished turn and exits 0.
"""

from __future__ import annotations

import asyncio
import json
import re
import sys
from pathlib import Path

from compact_agent.agent.run.options import SessionOptions
from compact_agent.agent.run.runner import AgentSession
from compact_agent.config import Settings
from compact_agent.context.compaction.notes import SECTIONS
from tests.fakes.openai_server import ChatRequest, Reply, message_text, tool_results

NOTES_MARK = "SESSION NOTES UPDATE"
SUMMARY_MARK = "CRITICAL: Respond with TEXT ONLY"
TURN = re.compile(r"TURN (\d+): read ((?:data/file_\d+\.txt ?)+)")


def turn_prompt(k: int, files: list[int]) -> str:
    return f"TURN {k}: read " + " ".join(f"data/file_{i:02d}.txt" for i in files) + " and report their VALUE= lines."


class TurnsAgent:
    """Answers `turn_prompt` turns: reads the files it names, then reports their values.

    Summary and notes requests get a short, well-formed reply naming every turn seen, so
    compaction and session memory work as with a real model.
    """

    def __call__(self, req: ChatRequest) -> Reply:
        last = message_text(req.messages[-1]) if req.messages else ""
        seen = sorted(set(re.findall(r"TURN \d+", "\n".join(message_text(m) for m in req.messages))))
        if SUMMARY_MARK in last:
            return Reply.text("<analysis>turns so far</analysis>\n<summary>1. Primary Request and Intent: "
                              f"answer file-reading turns. Seen: {', '.join(seen)}</summary>")
        if NOTES_MARK in last:
            body = {"Task and intent": "Answer file-reading turns.", "Current state": f"Seen: {', '.join(seen)}"}
            return Reply.text("<notes>\n" + "\n\n".join(f"# {s}\n{body.get(s, '- none')}" for s in SECTIONS)
                              + "\n</notes>")
        at = next((i for i in range(len(req.messages) - 1, -1, -1) if req.messages[i].get("role") == "user"
                   and TURN.search(message_text(req.messages[i]))), None)
        hit = TURN.search(message_text(req.messages[at])) if at is not None else None
        if at is None or not hit:
            return Reply.text("ok")
        wanted = hit.group(2).split()
        # Results of this turn's reads only: a crash can leave an earlier turn's results just before it.
        results = [m for m in tool_results(req) if req.messages.index(m) > at]
        if not results:
            return Reply.tools([("read_file", {"path": p}) for p in wanted])
        values = re.findall(r"VALUE=(\d+)", "\n".join(message_text(m) for m in results))
        return Reply.text(f"TURN {hit.group(1)} values: {', '.join(values)}. " + "Details follow. " * 60)


async def main(base_url: str, window: int, prompts: list[str]) -> None:
    opts = SessionOptions(cwd=Path.cwd(), model="fake-model", base_url=base_url, api_key="sk-test",
                          context_window=window, permission_mode="yes", continue_last=True, settings=Settings())
    session = AgentSession(opts)
    try:
        for p in prompts:
            turn = await session.run_turn(p)
            print(json.dumps({"output": turn.output[:80], "compactions": len(turn.compactions)}), flush=True)
    finally:
        session.close()


if __name__ == "__main__":
    asyncio.run(main(sys.argv[1], int(sys.argv[2]), sys.argv[3:]))
