"""The words of a session another holder has locked, as a library program that locks a `SessionStore`
itself reads them: they told it to "/exit in its REPL" or to "start a new session without
--continue/--resume", the terminal agent's ways out, which a program has none of. The terminal
agent's own run (runner.py, `lock(cli=True)`) keeps them. (One process holds both stores here: a
lock is its open file's, so the second is refused as another process's would be, its pid unknown.)"""

from __future__ import annotations

from pathlib import Path

import pytest

from compact_agent.session.files import SessionLocked
from compact_agent.session.locks import in_use_message
from compact_agent.session.store import SessionStore


def test_a_program_is_told_of_the_other_holder_and_not_of_the_terminal_agents_flags(tmp_path: Path) -> None:
    first = SessionStore(tmp_path, "s1")
    first.lock()
    with pytest.raises(SessionLocked) as program:
        SessionStore(tmp_path, "s1").lock()
    assert str(program.value) == ("session s1 is in use by another process (it holds the session's lock until its "
                                  "unlock() or its end): wait for it, or use another session")
    with pytest.raises(SessionLocked) as agent:
        SessionStore(tmp_path, "s1").lock(cli=True)
    assert str(agent.value) == in_use_message("s1")
    assert "--continue/--resume" in str(agent.value)
    first.unlock()
    again = SessionStore(tmp_path, "s1")
    again.lock()  # free again
    again.unlock()


def test_with_the_holders_pid_known_it_is_named() -> None:
    assert in_use_message("s1", 4321, cli=False) == (
        "session s1 is in use by another process, pid 4321 (it holds the session's lock until its unlock() or "
        "its end): wait for it, or use another session")
