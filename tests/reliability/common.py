"""Shared helpers: an in-process session against the fake server, the CLI in a subprocess, and
small histories with tool call/result pairs."""

from __future__ import annotations

import asyncio
import json
import os
import shutil
import subprocess
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from pydantic_ai.messages import (
    ModelMessage,
    ModelRequest,
    ModelResponse,
    TextPart,
    ToolCallPart,
    ToolReturnPart,
    UserPromptPart,
)

from compact_agent.agent.run.options import SessionOptions
from compact_agent.agent.run.runner import AgentSession
from compact_agent.config import Settings
from tests.fakes.openai_server import FakeOpenAIServer

if TYPE_CHECKING:
    from .harness import Zygote

REPO = Path(__file__).resolve().parents[2]
KEY = "sk-test-0123456789abcdef0123456789abcdef"  # key-shaped, so a leak is easy to grep for


def l5_settings(**kw: object) -> Settings:
    """Every compaction an L5 summary at the threshold: no session memory, no L4 collapse (which would
    otherwise hold a long single turn under the threshold), no pricing (which would move compactions
    before or past it) — for tests about compaction requests."""
    base: dict[str, object] = dict(memory_enabled=False, collapse_commit_fraction=0.0, collapse_blocking_fraction=0.0,
                                   priced_compaction=False, adaptive_output_reserve=False, tool_result_room_share=1.0)
    return Settings(**{**base, **kw})  # type: ignore[arg-type]


def session(home: Path, cwd: Path, server: FakeOpenAIServer, *, window: int = 9_000, continue_last: bool = False,
            settings: Settings | None = None, api_key: str = KEY, **kw: object) -> AgentSession:
    cwd.mkdir(parents=True, exist_ok=True)
    opts = SessionOptions(cwd=cwd, model="fake-model", base_url=server.base_url, api_key=api_key,
                          context_window=window, permission_mode="yes", home=home, continue_last=continue_last,
                          settings=settings or Settings(), **kw)  # type: ignore[arg-type]
    return AgentSession(opts)


@dataclass
class CliRun:
    code: int
    stdout: str
    stderr: str

    def json(self) -> dict:
        return json.loads(self.stdout)

    def stderr_lines(self) -> list[str]:
        return [ln for ln in self.stderr.splitlines() if ln.strip()]


def cli(home: Path, cwd: Path, *args: str, env: dict[str, str] | None = None, timeout: float = 120,
        zygote: Zygote | None = None, fresh: bool = False) -> CliRun:
    """The real CLI (no inherited API keys or COMPACT_AGENT_ settings): a process forked from the
    pre-imported zygote (`zygote`, else the test process's own: the same `main()`, without the
    1.5 s of CPU a fresh interpreter spends importing), or with `fresh`, a fresh interpreter (for
    what is set as Python starts: the locale's encodings, PYTHON* variables)."""
    full = {k: v for k, v in os.environ.items() if not k.endswith("_API_KEY") and not k.startswith("COMPACT_AGENT_")}
    full.update({"COMPACT_AGENT_HOME": str(home), "PYTHONPATH": str(REPO / "src")}, **(env or {}))
    if not fresh:
        from tests.forked_cli import shared_zygote

        zygote = zygote or shared_zygote()
        out = Path(tempfile.mkdtemp(prefix="cli-"))
        try:
            child = zygote.spawn("cli", list(args), full, cwd, out / "stdout", out / "stderr")
            code = child.wait(timeout)
            return CliRun(code, child.out.read_text(), child.err.read_text())
        finally:  # the run's output files, read: left behind, every run added a folder to the temp dir
            shutil.rmtree(out, ignore_errors=True)
    proc = subprocess.run([sys.executable, "-m", "compact_agent.cli", *args], cwd=cwd, capture_output=True,
                          text=True, timeout=timeout, env=full)
    return CliRun(proc.returncode, proc.stdout, proc.stderr)


def cli_args(server: FakeOpenAIServer, prompt: str, *extra: str, window: int = 9_000) -> list[str]:
    return ["-p", prompt, "--model", "fake-model", "--base-url", server.base_url, "--context-window", str(window),
            "--yes", "--output-format", "json", *extra]


def pairs_history(n: int, *, big: int = 0) -> list[ModelMessage]:
    """`n` rounds of user prompt → tool call → tool result → answer."""
    out: list[ModelMessage] = []
    for i in range(n):
        out += [
            ModelRequest(parts=[UserPromptPart(f"question {i}")]),
            ModelResponse(parts=[ToolCallPart("read_file", {"path": f"f{i}.txt"}, tool_call_id=f"call_{i}")]),
            ModelRequest(parts=[ToolReturnPart("read_file", f"content {i} " + "x" * big, tool_call_id=f"call_{i}")]),
            ModelResponse(parts=[TextPart(f"answer {i}")]),
        ]
    return out


def all_files(root: Path) -> list[Path]:
    return [p for p in root.rglob("*") if p.is_file()]


def answered_session(home: Path, cwd: Path, server: FakeOpenAIServer) -> AgentSession:
    """A session (`session`) whose one turn `hi` the server answered, closed: its files on disk."""
    s = session(home, cwd, server)

    async def first() -> None:
        try:
            await s.run_turn("hi")
        finally:
            await s.aclose()

    asyncio.run(first())
    return s


def not_a_file(path: Path, kind: str) -> None:
    """A FIFO (`fifo`) or a link to /dev/zero (any other `kind`) in the place of `path`."""
    path.parent.mkdir(parents=True, exist_ok=True)
    path.unlink(missing_ok=True)
    if kind == "fifo":
        os.mkfifo(path)
    else:
        path.symlink_to("/dev/zero")
