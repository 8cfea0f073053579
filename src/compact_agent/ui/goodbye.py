"""What the REPL says as it ends: the command that resumes its session, within the terminal's width.

One line of 103 columns wrapped at 100 split '(or --continue for the newest)' over two lines; the
hint is now 95 columns for a session id as the REPL makes them, and where even that does not fit it
is broken between its parts, never inside the command to copy.
"""

from __future__ import annotations


def resume_hint(session_id: str, width: int) -> list[str]:
    """The lines that say how to resume session `session_id`, each within `width` columns where
    its parts allow (a session id longer than the width is still given whole)."""
    said, command, newest = "resume this session with:", f"compact-agent --resume {session_id}", "(or -c for the newest)"
    if len(whole := f"{said} {command}  {newest}") <= width:
        return [whole]
    if len(first := f"{said} {command}") <= width:
        return [first, f"  {newest}"]
    return [said, f"  {command}", f"  {newest}"]
