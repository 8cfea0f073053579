"""The file-reading task with edits at the end: what forgetting costs, live.

After reading every file and keeping the sum (tests/e2e/scripted.py), the scripted model edits line 3
of early files (file_00, file_02, …) with edit_file. Like a careful model it only writes an
old_string it can see: before each edit it checks that the exact old line is in the text of the
request it was sent; when a compaction dropped it, it reads the file again first (a look-again,
one more request paid like any other) and only then edits. It keeps its edit progress the way it
keeps the sum, in what it says ("EDITS: K done"), so a summary that keeps that line lets it go on.
`rereads` counts the look-agains: the price of forgetting, in requests.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path

from tests.e2e.scripted import TASK_ID, FileTaskAgent, _Shim, is_notes_request, is_summary_request, task_text
from tests.fakes.openai_server import ChatRequest, Reply, message_text

EDITS_DONE = re.compile(r"EDITS: (\d+) done")
MAX_FAILED_EDITS = 3


def edit_targets(n: int, edits: int) -> list[tuple[str, str, str]]:
    """(path, old line, new line) of each edit, in order: line 3 of file_00, file_02, …"""
    if edits < 0 or (edits and 2 * (edits - 1) >= n):
        raise ValueError(f"{edits} edits of every other file need at least {2 * edits - 1} files, not {n}")
    out = []
    for i in range(edits):
        k = 2 * i
        out.append((f"data/file_{k:02d}.txt", f"line 3: lorem ipsum dolor sit amet {k}-3", f"line 3: edited {k}-3"))
    return out


def edit_task_text(n: int, edits: int) -> str:
    """The task, with edits named by file and line number only: the exact old text must be seen."""
    if not edits:
        return task_text(n)
    last = 2 * (edits - 1)
    return (task_text(n)[:-1] + f", after you have changed, with edit_file, the line that starts 'line 3:' in "
            f"every other file from data/file_00.txt to data/file_{last:02d}.txt to read 'line 3: edited K-3' "
            "(K: the file's number).")


@dataclass
class FileEditTaskAgent(FileTaskAgent):
    edits: int = 10
    rereads: int = 0
    """Look-agains: read_file calls made because an edit's old line was no longer in the prompt."""
    reread_paths: list[str] = field(default_factory=list)
    failed_edits: int = 0

    def __post_init__(self) -> None:
        self.targets = edit_targets(self.n, self.edits)

    def __call__(self, req: ChatRequest) -> Reply:
        if is_summary_request(req) or is_notes_request(req) or TASK_ID not in req.all_text():
            return super().__call__(req)
        done, total = self.progress(req)
        if done < self.n - 1:
            return super().__call__(req)
        edited = self.edits_done(req)
        if edited >= len(self.targets):
            return Reply.text(f"FINAL SUM: {total}")
        if self._last_edit_failed(req):
            self.failed_edits += 1
            if self.failed_edits >= MAX_FAILED_EDITS:
                return Reply.text(f"I could not make edit {edited + 1}; giving up.")
        path, old, new = self.targets[edited]
        state = f"PROGRESS: done through file_{done:02d}, sum={total}. EDITS: {edited} done"
        seen = "\n".join(message_text(m) for m in req.messages)
        if old in seen:
            return Reply.tools([("edit_file", {"path": path, "old_string": old, "new_string": new})], content=state)
        self.rereads += 1
        self.reread_paths.append(path)
        return Reply.tools([("read_file", {"path": path})], content=state)

    def edits_done(self, req: ChatRequest | _Shim) -> int:
        """Latest stated edit count, plus the edits that succeeded after that statement."""
        count, last_at = 0, -1
        for i, m in enumerate(req.messages):
            for hit in EDITS_DONE.finditer(message_text(m)):
                count, last_at = int(hit.group(1)), i
        calls = {c["id"]: c["function"]["name"] for m in req.messages[max(last_at, 0):]
                 for c in m.get("tool_calls") or []}
        for m in req.messages[last_at + 1:]:
            if m.get("role") == "tool" and calls.get(m.get("tool_call_id")) == "edit_file" \
                    and message_text(m).startswith("Edited"):
                count += 1
        return count

    @staticmethod
    def _last_edit_failed(req: ChatRequest) -> bool:
        names = {c["id"]: c["function"]["name"] for m in req.messages for c in m.get("tool_calls") or []}
        last = req.messages[-1] if req.messages else {}
        return (last.get("role") == "tool" and names.get(last.get("tool_call_id")) == "edit_file"
                and not message_text(last).startswith("Edited"))

    def summarize(self, req: ChatRequest) -> Reply:
        reply = super().summarize(req)
        edited = self.edits_done(_Shim(req.messages[:-1]))
        return Reply.text((reply.content or "").replace("</summary>", f"EDITS: {edited} done\n</summary>"))

    def write_notes(self, req: ChatRequest) -> Reply:
        reply = super().write_notes(req)
        edited = self.edits_done(_Shim(req.messages[:-1]))
        return Reply.text((reply.content or "").replace("\n\n# Next steps", f"\nEDITS: {edited} done\n\n# Next steps"))


def edits_applied(root: Path, n: int, edits: int) -> int:
    """How many of the edits are on disk (for checking a run, not for the model)."""
    return sum(1 for path, _old, new in edit_targets(n, edits) if new in (root / path).read_text())
