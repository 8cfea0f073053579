"""What a compaction says of the files the model changed, when the user changed them since.

The files changed since the previous compaction come back after it read from disk as it is now
(`Restoring`, the agent's `Restorer.reread`). Found by a trial where the user acted mid-session:
a file grown past the read limit came back as a read_file call whose result was the over-the-limit
error; a file deleted or replaced by a folder, a FIFO or a link stayed listed as `a.py (edited)` and
the restore left it out unsaid; and a file the user changed came back as it is now with nothing to
tell the model it was no longer what it had read or written.
"""

from __future__ import annotations

import asyncio
import os
from pathlib import Path

from pydantic_ai.messages import (
    ModelMessage,
    ModelRequest,
    ModelResponse,
    TextPart,
    ToolCallPart,
    ToolReturnPart,
    UserPromptPart,
)

from compact_agent.agent.safety.permissions import Permissions
from compact_agent.agent.tools.base import ToolEnv
from compact_agent.agent.tools.file_state import ReadFileState
from compact_agent.agent.tools.toolset import Restoring
from compact_agent.config import Settings
from compact_agent.context import Compactor, Limits
from compact_agent.context.compaction.restore import Restorer
from compact_agent.context.plumbing.rounds import unpaired

ORIGINAL = "def greet(name):\n    return 'hello ' + name\n\n\nVALUE = 6\n"


def _session(tmp_path: Path, settings: Settings | None = None) -> tuple[ToolEnv, Path]:
    """a.py as the model's edit left it, recorded so (the read state holds what it wrote)."""
    env = ToolEnv(tmp_path, settings or Settings(), ReadFileState(), Permissions(tmp_path, "yes"))
    f = tmp_path / "a.py"
    f.write_text(ORIGINAL)
    env.read_state.record(f, f.stat().st_mtime_ns, written=ORIGINAL.encode())
    return env, f


def _compact(env: ToolEnv, f: Path) -> tuple[str, list[ToolReturnPart]]:
    """Compact a history that edited a.py with the agent's restore: the compaction message's text and
    the restored results."""
    restoring = Restoring(env)
    restorer = Restorer(recent_files=lambda: [f], resolve=lambda s: env.cwd / s, state=restoring.state,
                        reread=lambda paths, n: restoring.reread(paths, n, "c1"))
    msgs: list[ModelMessage] = [
        ModelRequest.user_text_prompt("set VALUE to 6 in a.py"),
        ModelResponse(parts=[ToolCallPart("edit_file", {"path": "a.py", "old_string": "VALUE = 1",
                                                        "new_string": "VALUE = 6"}, tool_call_id="e1")]),
        ModelRequest(parts=[ToolReturnPart("edit_file", "ok", tool_call_id="e1")])]
    for k in range(8):  # later work, so that the edit is summarised
        msgs += [ModelResponse(parts=[ToolCallPart("glob", {"pattern": f"*{k}"}, tool_call_id=f"g{k}")]),
                 ModelRequest(parts=[ToolReturnPart("glob", "x " * 3000, tool_call_id=f"g{k}")])]
    msgs.append(ModelResponse(parts=[TextPart("Done.")]))

    async def summarize(messages: list[ModelMessage], prompt: str) -> str:
        return "<summary>Edited a.py.</summary>"

    compactor = Compactor(Limits.for_window(32_000, 4_000), restorer)
    result = asyncio.run(compactor.compact(msgs, summarize=summarize, archive=lambda: None))
    assert unpaired(result.messages) == (set(), set())
    head = result.messages[0]
    assert isinstance(head, ModelRequest) and isinstance(head.parts[0], UserPromptPart)
    restored = [p for m in result.messages if isinstance(m, ModelRequest) for p in m.parts
                if isinstance(p, ToolReturnPart) and p.tool_call_id.startswith("restore_")]
    return str(head.parts[0].content), restored


def _listed(text: str) -> str:
    """The line of a.py in the compaction message's list of files changed."""
    return next(line for line in text.splitlines() if line.startswith("- a.py ("))


def test_a_file_as_the_model_left_it_comes_back_with_nothing_added(tmp_path: Path) -> None:
    env, f = _session(tmp_path)
    text, [copy] = _compact(env, f)
    assert _listed(text) == "- a.py (edited)"
    assert str(copy.content).startswith("     1\tdef greet(name):")


def test_a_file_changed_on_disk_since_says_so(tmp_path: Path) -> None:
    env, f = _session(tmp_path)
    f.write_text(ORIGINAL + "USER_LINE = 42\n")
    text, [copy] = _compact(env, f)
    assert str(copy.content).startswith("[a.py changed on disk since you last read or edited it]\n     1\tdef greet")
    assert "USER_LINE = 42" in str(copy.content)  # the file as it is now
    assert _listed(text) == "- a.py (edited)"


def test_a_change_that_kept_the_time_and_size_is_seen_by_its_digest(tmp_path: Path) -> None:
    env, f = _session(tmp_path)
    was = f.stat()
    f.write_text(ORIGINAL.replace("hello", "HELLO"))
    os.utime(f, ns=(was.st_atime_ns, was.st_mtime_ns))
    _, [copy] = _compact(env, f)
    assert str(copy.content).startswith("[a.py changed on disk since you last read or edited it]\n")


def test_a_file_grown_past_the_read_limit_comes_back_as_its_first_lines(tmp_path: Path) -> None:
    env, f = _session(tmp_path, Settings(read_max_bytes=2_000))
    f.write_text("".join(f"x_{i} = {i}  # padding padding\n" for i in range(5_000)))  # ~150 KB
    text, [copy] = _compact(env, f)
    content = str(copy.content)
    assert "read limit" not in content and "x_0 = 0" in content
    assert "[truncated to ~" in content and "offset=" in content  # cut to the per-file budget, said where to go on
    assert copy.tool_call_id.startswith("restore_")
    assert _listed(text) == "- a.py (edited)"


def test_a_file_deleted_since_stays_listed_saying_so(tmp_path: Path) -> None:
    env, f = _session(tmp_path)
    f.unlink()
    text, restored = _compact(env, f)
    assert restored == []
    assert _listed(text) == "- a.py (edited; deleted since)"


def test_a_file_replaced_by_a_folder_a_fifo_or_a_link_says_what_it_is_now(tmp_path: Path) -> None:
    env, f = _session(tmp_path)
    f.unlink()
    f.mkdir()
    text, restored = _compact(env, f)
    assert (restored, _listed(text)) == ([], "- a.py (edited; now a folder)")
    f.rmdir()
    os.mkfifo(f)
    text, restored = _compact(env, f)
    assert (restored, _listed(text)) == ([], "- a.py (edited; now a FIFO)")
    f.unlink()
    (tmp_path / "b.py").write_text("B = 1\n")
    f.symlink_to("b.py")
    text, _ = _compact(env, f)
    assert _listed(text) == "- a.py (edited; now a link to b.py)"


def test_a_file_that_cannot_be_shown_is_left_out_and_said(tmp_path: Path) -> None:
    env, f = _session(tmp_path)
    f.write_bytes(b"\0\1\2" * 50)
    text, restored = _compact(env, f)
    assert restored == []  # not a read_file call answered with an error
    assert _listed(text) == "- a.py (edited; not restored: a binary file (150 bytes))"
