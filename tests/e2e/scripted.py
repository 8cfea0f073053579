"""A scripted "model" for end-to-end runs: a file-reading task too big for its window.

The task: read data/file_00.txt … data/file_{N-1}.txt one at a time and answer the sum of their
VALUE= numbers. The scripted agent keeps its progress the way a real model does, in what it says
("PROGRESS: done through file_K, sum=S"), so it can only finish if compaction keeps the task and
the progress (the fake summarizer writes what a model would: the task and the last progress line).
It refuses to go on if the original task text is no longer in what it is sent.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from pathlib import Path

from tests.fakes.openai_server import ChatRequest, Reply, message_text

TASK_ID = "TASK-7731"
PROGRESS = re.compile(r"PROGRESS: done through file_(\d+), sum=(\d+)")
VALUE = re.compile(r"VALUE=(\d+)")
SUMMARY_MARK = "CRITICAL: Respond with TEXT ONLY"
NOTES_MARK = "SESSION NOTES UPDATE"  # compact_agent.context.compaction.notes.NOTES_MARK


def task_text(n: int) -> str:
    return (f"{TASK_ID}: read every file data/file_00.txt … data/file_{n - 1:02d}.txt with read_file, one at a "
            f"time, and answer with the sum of their VALUE= numbers.")


def make_project(root: Path, n: int, filler_chars: int = 6_000) -> int:
    """Write the data files; returns the expected sum."""
    (root / "data").mkdir(parents=True, exist_ok=True)
    total = 0
    for k in range(n):
        value = 100 + k * 7
        total += value
        body = "\n".join(f"line {i}: lorem ipsum dolor sit amet {k}-{i}" for i in range(filler_chars // 40))
        (root / "data" / f"file_{k:02d}.txt").write_text(f"VALUE={value}\n{body}\n")
    return total


def is_summary_request(req: ChatRequest) -> bool:
    last = req.messages[-1] if req.messages else {}
    return last.get("role") == "user" and SUMMARY_MARK in message_text(last)


def is_notes_request(req: ChatRequest) -> bool:
    last = req.messages[-1] if req.messages else {}
    return last.get("role") == "user" and NOTES_MARK in message_text(last)


@dataclass
class FileTaskAgent:
    n: int
    summaries: list[ChatRequest] = field(default_factory=list)
    lost_task: list[ChatRequest] = field(default_factory=list)
    notes: list[ChatRequest] = field(default_factory=list)

    def __call__(self, req: ChatRequest) -> Reply:
        if is_summary_request(req):
            return self.summarize(req)
        if is_notes_request(req):
            return self.write_notes(req)
        body = "\n".join(message_text(m) for m in req.messages)
        if TASK_ID not in body:
            self.lost_task.append(req)
            return Reply.text("I no longer know what the task is.")
        done, total = self.progress(req)
        if done == self.n - 1:
            return Reply.text(f"FINAL SUM: {total}")
        nxt = f"data/file_{done + 1:02d}.txt"
        return Reply.tools([("read_file", {"path": nxt})],
                           content=f"PROGRESS: done through file_{done:02d}, sum={total}")

    def progress(self, req: ChatRequest | _Shim) -> tuple[int, int]:
        """Latest stated progress, plus the file read right after it (if its result is here)."""
        done, total = -1, 0
        last_at = -1
        for i, m in enumerate(req.messages):
            for hit in PROGRESS.finditer(message_text(m)):
                done, total, last_at = int(hit.group(1)), int(hit.group(2)), i
        # Results of reads made after that statement (the newest tool messages).
        calls = {}
        # The statement and the call it made share one assistant message.
        for m in req.messages[max(last_at, 0):]:
            for c in m.get("tool_calls") or []:
                calls[c["id"]] = json.loads(c["function"]["arguments"]).get("path", "")
        for m in req.messages[last_at + 1 if last_at >= 0 else 0:]:
            if m.get("role") == "tool" and m.get("tool_call_id") in calls:
                path = calls[m["tool_call_id"]]
                k = int(re.search(r"file_(\d+)", path).group(1)) if re.search(r"file_(\d+)", path) else -1
                v = VALUE.search(message_text(m))
                if k == done + 1 and v:
                    done, total = k, total + int(v.group(1))
        return done, total

    def summarize(self, req: ChatRequest) -> Reply:
        self.summaries.append(req)
        convo = req.messages[:-1]
        body = "\n".join(message_text(m) for m in convo)
        task = next((line for line in body.splitlines() if TASK_ID in line), "")
        done, total = self.progress(_Shim(convo))
        return Reply.text(
            "<analysis>Walking through the conversation: the user asked for a sum over files.</analysis>\n"
            "<summary>\n1. Primary Request and Intent: " + task.strip() + "\n"
            "8. Current Work: reading the data files in order.\n"
            f"9. Next Step: continue. PROGRESS: done through file_{done:02d}, sum={total}\n</summary>")

    def write_notes(self, req: ChatRequest) -> Reply:
        """What a model would write as session notes: the task, the user's words, the latest progress."""
        self.notes.append(req)
        convo = req.messages[:-1]
        body = "\n".join(message_text(m) for m in convo)
        task = next((line.strip() for line in body.splitlines() if TASK_ID in line and "# " not in line), "")
        done, total = self.progress(_Shim(convo))
        return Reply.text(
            "Here are the updated notes.\n<notes>\n"
            f"# Task and intent\n{task}\n\n"
            f"# User instructions and constraints (verbatim)\n- {task}\n\n"
            f"# Files read and changed (current state)\n- data/file_00.txt … data/file_{done:02d}.txt read\n\n"
            "# Decisions\n- read the files one at a time, in order\n\n"
            "# Errors and fixes\n_(nothing yet)_\n\n"
            f"# Current state\nPROGRESS: done through file_{done:02d}, sum={total}\n\n"
            f"# Next steps\n- read data/file_{done + 1:02d}.txt next\n</notes>")


@dataclass
class _Shim:
    messages: list[dict]
