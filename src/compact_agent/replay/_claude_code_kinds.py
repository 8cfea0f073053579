"""The kinds of line a Claude Code session file holds, as `_claude_code` tells them: those that mark
a file as Claude Code's, and those that hold nothing the model reads (the session's metadata and
UI bookkeeping), which are passed over without a note; any other kind is counted as unknown."""

from __future__ import annotations

RECORD_TYPES = frozenset(
    {"user", "assistant", "system", "progress", "file-history-snapshot", "queue-operation", "summary", "attachment"}
)
IGNORED_TYPES = frozenset({
    "progress", "file-history-snapshot", "file-history-delta", "summary", "custom-title", "ai-title", "last-prompt",
    "mode", "permission-mode", "agent-name", "pr-link", "bridge-session", "atis-latch", "cost-state",
    "worktree-state",
    # The session's metadata lines newer versions write, none of them sent to the model: agent-setting (the
    # --agent definition's name), frame-link and relocated are in pedropaulovc/claude-code-types, index.d.ts
    # (TranscriptEntry, at 1cface881961b5c1526df0dd7916354b81954a43); tag (a /resume search tag), agent-color,
    # attribution-snapshot (characters Claude wrote, for commit attribution), speculation-accept (time a
    # speculative run saved) and task-summary (a summary for `claude ps`) are in Claude Code's own Entry union
    # (src/types/logs.ts), as ports and write-ups of its source in the code index give it. Not here, because
    # they change what the model reads: content-replacement, marble-origami-* (context collapse), fork-context-ref.
    "tag", "agent-color", "agent-setting", "attribution-snapshot", "speculation-accept", "task-summary",
    "frame-link", "relocated",
})  # fmt: skip
