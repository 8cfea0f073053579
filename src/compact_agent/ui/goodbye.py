"""What the REPL says as it ends: the command that resumes its session, within the terminal's width.

One line of 103 columns wrapped at 100 split '(or --continue for the newest)' over two lines; the
hint is now 95 columns for a session id as the REPL makes them, and where even that does not fit it
is broken between its parts, never inside the command to copy.
"""

from __future__ import annotations

from pathlib import Path


def resume_hint(session_id: str, width: int, root: Path | None = None) -> list[str]:
    """The lines that say how to resume session `session_id`, each within `width` columns where
    its parts allow (a session id longer than the width is still given whole). `-c` is offered
    only when it opens this session: the newest the model answered in (session/answered.py).
    After `/clear` and `/resume` back to an earlier session, the one `/clear` started is newer, and
    '(or -c for the newest)' sent the user to it. Nor while another session of the project is open
    in another compact-agent process (another REPL): its next turn makes it the newest, and `-c`
    then opens it, not this one; the session's own id is the way back."""
    from ..session.answered import continued_id

    said, command = "resume this session with:", f"compact-agent --resume {session_id}"
    newest = "(or -c for the newest)" if root is None or (
        continued_id(root) == session_id and not open_elsewhere(root, session_id)) else ""
    if len(whole := f"{said} {command}  {newest}".rstrip()) <= width:
        return [whole]
    if len(first := f"{said} {command}") <= width:
        return [first, f"  {newest}"] if newest else [first]
    return [said, f"  {command}", *([f"  {newest}"] if newest else [])]


def open_elsewhere(root: Path, session_id: str) -> bool:
    """Whether a session of `root` other than `session_id` is open in another compact-agent process."""
    from ..session.files import SessionLocked, list_sessions
    from ..session.locks import check_free

    for path in list_sessions(root):
        if path.stem == session_id:
            continue
        try:
            check_free(root, path.stem)
        except SessionLocked:
            return True
    return False
