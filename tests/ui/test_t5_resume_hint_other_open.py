"""The goodbye offers `-c` only when `-c` will open the session left: not while another session of
the project is open in another compact-agent process (another REPL), whose next turn makes it the
newest. '(or -c for the newest)' sent a user who trusted it to the other REPL's session."""

from __future__ import annotations

import os
from pathlib import Path

from compact_agent.agent.run.options import session_root
from compact_agent.session import locks
from compact_agent.session.answered import continued_id
from tests.fakes.openai_server import Reply

from .repl_driver import drive
from .test_resume_hint_after_clear import hint


async def test_no_c_while_another_session_is_open_elsewhere(tmp_path: Path) -> None:
    await drive(tmp_path, lambda req: Reply.text("ok"), ["in the other window\r"])
    root = session_root((tmp_path / "project").resolve(), tmp_path / "home")
    [other] = [p.stem for p in root.glob("*.jsonl")]
    fd = locks.hold(root / other, other, root)  # as the other REPL holds it
    assert fd is not None
    try:
        run = await drive(tmp_path, lambda req: Reply.text("ok"), ["here\r"])
    finally:
        os.close(fd)
    [here] = [p.stem for p in root.glob("*.jsonl") if p.stem != other]
    assert continued_id(root) == here, run.out  # -c would open it now, and not after the other's next turn
    assert hint(run.out) == [f"resume this session with: compact-agent --resume {here}"], run.out


async def test_c_once_no_other_session_is_open(tmp_path: Path) -> None:
    await drive(tmp_path, lambda req: Reply.text("ok"), ["in the other window\r"])
    run = await drive(tmp_path, lambda req: Reply.text("ok"), ["here\r"])
    assert hint(run.out)[0].endswith("  (or -c for the newest)"), run.out
