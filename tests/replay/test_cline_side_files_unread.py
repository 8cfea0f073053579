"""The files Cline keeps beside a conversation, read with it, are read only as regular files: a Cline
task's `ui_messages.json` and the compaction beside a session of its SDK (`<id>.compaction.json`).
Either one linked to /dev/zero filled memory and ended the whole run ('analysis failed: unexpected
error'), and a pipe in its place kept the run waiting for a writer for ever. Now each is said in one
note and the conversation is replayed without it.

Each load runs in a process of its own, with a limit on its memory and a time limit, so that the
failure this guards against fails the test rather than the machine or the suite."""

from __future__ import annotations

import json
import os
import resource
import subprocess
import sys
from pathlib import Path

import pytest

from .test_cline_sidecar import SID, answer, said
from .test_cline_task_folder import history

pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="FIFOs and /dev/zero")

#: What the process may map: far past what the import needs (~70 MB), far short of what /dev/zero fills.
MEMORY = 512 << 20
LOAD = """
import json, sys
from pathlib import Path
from compact_agent.replay import load_transcript
t = load_transcript(Path(sys.argv[1]))
print(json.dumps({"responses": sum(m.kind == "response" for m in t.messages), "warnings": t.warnings}))
"""


def _limited() -> None:
    resource.setrlimit(resource.RLIMIT_AS, (MEMORY, MEMORY))


def load_apart(path: Path) -> dict[str, object]:
    """What `load_transcript(path)` gives, loaded in a process of its own (memory and time limited)."""
    try:
        done = subprocess.run([sys.executable, "-c", LOAD, str(path)], capture_output=True, text=True, timeout=30,
                              preexec_fn=_limited)
    except subprocess.TimeoutExpired:
        pytest.fail(f"loading {path.name} was still waiting after 30 s")
    assert done.returncode == 0, done.stderr[-2_000:]
    result: dict[str, object] = json.loads(done.stdout)
    return result


def task(tmp_path: Path) -> Path:
    folder = tmp_path / "tasks" / "1760000000000"
    folder.mkdir(parents=True)
    (folder / "api_conversation_history.json").write_text(json.dumps(history()))
    return folder


def sdk_session(tmp_path: Path) -> Path:
    folder = tmp_path / "sessions" / SID
    folder.mkdir(parents=True)
    messages = [said(1, '<user_input mode="act">rename it</user_input>', 1_760_000_000_000),
                answer(2, "Renamed.", 5_200, 0.0162, 1_760_000_001_000)]
    (folder / f"{SID}.messages.json").write_text(json.dumps(
        {"version": 1, "updated_at": "2026-08-20T10:00:00.000Z", "agent": "lead", "sessionId": SID,
         "messages": messages}))
    return folder


def put(path: Path, what: str) -> None:
    if what == "pipe":
        os.mkfifo(path)
    else:
        path.symlink_to("/dev/zero")


def refused(what: str) -> str:
    """Why a side file `put` made is not read: a pipe is no regular file; a link is not followed
    (test_cline_side_file_links.py), whatever it leads to."""
    return ("is not a regular file (a pipe, a device or a folder)" if what == "pipe"
            else "is a link (to /dev/zero), which the analyzer does not follow")


@pytest.mark.parametrize("what", ["pipe", "/dev/zero"])
def test_a_tasks_ui_messages_that_is_no_regular_file_is_not_read(tmp_path: Path, what: str) -> None:
    folder = task(tmp_path)
    put(folder / "ui_messages.json", what)
    loaded = load_apart(folder / "api_conversation_history.json")
    assert loaded["responses"] == 2
    assert (f"ui_messages.json beside it {refused(what)}, not read: its "
            "recorded usage is not used") in loaded["warnings"]  # type: ignore[operator]


@pytest.mark.parametrize("what", ["pipe", "/dev/zero"])
def test_an_sdk_sessions_compaction_that_is_no_regular_file_is_not_read(tmp_path: Path, what: str) -> None:
    folder = sdk_session(tmp_path)
    put(folder / f"{SID}.compaction.json", what)
    loaded = load_apart(folder / f"{SID}.messages.json")
    assert loaded["responses"] == 1
    assert (f"{SID}.compaction.json beside it, Cline's compaction of the session, {refused(what)}, not read: the "
            "sizes it recorded after that compaction are fitted as if there was none") in loaded["warnings"]  # type: ignore[operator]
