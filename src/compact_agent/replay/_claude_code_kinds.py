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
})  # fmt: skip
