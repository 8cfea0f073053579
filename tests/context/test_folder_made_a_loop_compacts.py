"""A folder the model wrote into and read from, replaced since by a link to itself, does not stop a
compaction.

The model wrote `d/x.txt`, read it, and a command then ran `rm -r d; ln -s d d`. Every name the
compaction asks the restorer's `resolve` for `d/x.txt` now raises: as a file changed since the last
compaction (keep.py, `restorable`: which files come back), as a read kept verbatim in the tail
(the files not to restore beside it), and as a read among those summarised whose result may be kept
beside the summary (restore.py, `reads_one_of`: not when the file is restored whole). Each goes
through `ledger.named` and the compaction goes on. tests/context/test_unresolvable_path_compacts.py
covers a path that never resolved, whose read failed: none of these three sees it.

`resolve` is a plain one over a real folder, Python's own `Path.resolve` (RuntimeError for the loop).
"""

from __future__ import annotations

import os
import shutil
from collections.abc import Callable
from pathlib import Path

import pytest
from pydantic_ai import Agent
from pydantic_ai.messages import (
    ModelMessage,
    ModelRequest,
    ModelResponse,
    TextPart,
    ToolCallPart,
    ToolReturnPart,
)
from pydantic_ai.models.function import AgentInfo, FunctionModel

from compact_agent.context import Compactor, ContextManager, Limits, Prices
from compact_agent.context.compaction.restore import Restorer
from compact_agent.context.testing import reply_to_library_request
from compact_agent.context.wiring import Internals

WINDOW = 16_000
PAGES = 8


def _resolver(root: Path) -> Callable[[str], Path]:
    def resolve(text: str) -> Path:
        return (root / Path(text).expanduser()).resolve()
    return resolve


def _reads(messages: list[ModelMessage]) -> list[str]:
    """The paths of the read_file calls in `messages` that returned."""
    calls = {p.tool_call_id: p for m in messages if isinstance(m, ModelResponse)
             for p in m.parts if isinstance(p, ToolCallPart)}
    return [str(calls[p.tool_call_id].args_as_dict()["path"]) for m in messages if isinstance(m, ModelRequest)
            for p in m.parts if isinstance(p, ToolReturnPart) and p.tool_call_id in calls
            and calls[p.tool_call_id].tool_name == "read_file"]


async def test_a_folder_written_in_then_made_a_loop_leaves_the_compaction_going(tmp_path: Path) -> None:
    resolve = _resolver(tmp_path)
    steps = iter([
        ("write_file", {"path": "notes.txt", "content": "the plan\n" * 20}),  # restored whole after
        ("write_file", {"path": "d/x.txt", "content": "x first\n" * 20}),
        ("read_file", {"path": "d/x.txt", "limit": 10}),  # summarised; in use: may be kept beside it
        *(("read_file", {"path": f"page{k}.txt"}) for k in range(PAGES)),
        ("read_file", {"path": "d/x.txt"}),  # kept verbatim in the tail
        ("bash", {"command": "rm -r d; ln -s d d"}),
    ])

    def model(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        if (reply := reply_to_library_request(messages, "Wrote the notes and d/x.txt; read the pages.")) is not None:
            return reply
        step = next(steps, None)
        return ModelResponse(parts=[ToolCallPart(*step)] if step else [TextPart("done")])

    agent = Agent(FunctionModel(model))

    @agent.tool_plain
    def write_file(path: str, content: str) -> str:
        """Write a file of the project."""
        (tmp_path / path).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / path).write_text(content)
        return f"wrote {path}"

    @agent.tool_plain
    def read_file(path: str, limit: int = 2000) -> str:
        """Read a file of the project."""
        if path.startswith("page"):
            return "\n".join(f"{path} line {k}: worker ok, queue depth {k * 7 % 13}" for k in range(200))
        return "\n".join((tmp_path / path).read_text().splitlines()[:limit])

    @agent.tool_plain
    def bash(command: str) -> str:
        """Run a command in the project."""
        assert command == "rm -r d; ln -s d d"
        shutil.rmtree(tmp_path / "d")
        os.symlink("d", tmp_path / "d")
        return ""

    history = (await agent.run("Write the notes and d/x.txt, then read the pages.")).all_messages()
    with pytest.raises((OSError, RuntimeError)):  # the callback itself fails on it now
        resolve("d/x.txt")

    def reread(paths: list[Path], most: int) -> list[ModelMessage]:
        """The agent's read again of the files changed: each whole, marked so."""
        out: list[ModelMessage] = []
        for i, p in enumerate(paths):
            name = str(p.relative_to(tmp_path.resolve()))
            out += [ModelResponse(parts=[ToolCallPart("read_file", {"path": name}, tool_call_id=f"back{i}")]),
                    ModelRequest(parts=[ToolReturnPart("read_file", p.read_text(), tool_call_id=f"back{i}",
                                                       metadata={"compact_agent": {"whole": True}})])]
        return out

    restorer = Restorer(recent_files=lambda: [(tmp_path / "notes.txt").resolve()], reread=reread, resolve=resolve)
    limits = Limits.for_window(WINDOW, 8_192)
    compactor = Compactor(limits, restorer)
    compactor.hot = lambda call_id: True  # every result in use: each is one a compaction may keep
    cm = ContextManager.wired(Internals(limits=limits, compactor=compactor), window=WINDOW, prices=Prices(known=False))

    compacted = await cm.compact_now(history, model=FunctionModel(model))

    assert len(compacted) < len(history) and cm.compactions
    assert _reads(compacted[-5:]) == ["d/x.txt"], _reads(compacted)  # the tail kept the read, then the command
    assert "notes.txt" in _reads(compacted), _reads(compacted)  # restored: the file changed, read again whole

