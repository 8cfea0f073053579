"""Kill a real `compact-agent -p` run at a chosen moment and check that nothing saved was lost.

Used by tests/reliability/test_kill.py (a few points) and benchmarks/kill_soak.py (N=100).

How a kill is placed: either at a named crash point inside a durable write (the process is started
with `COMPACT_AGENT_CRASH_AT=<point>:<n>:stop`, see `compact_agent.crashpoints`), or at a random
moment (the harness sends SIGSTOP after a random delay). In both cases the process is *stopped*
first, so the harness can record exactly what was on disk at that instant — every message line of
the session file and of every archive — and only then SIGKILLs it. Nothing runs between the stop
and the kill, so this is the state a real crash at that moment leaves behind.

Then: the session must load (structurally valid, pairs intact), every message on disk at the kill
must still be in the session or an archive, `--continue` must finish the task with the right
answer, and no temp file may be left once the next run has started.
"""

from __future__ import annotations

import asyncio
import json
import os
import random
import signal
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

from compact_agent.agent.runner import AgentSession, SessionOptions
from compact_agent.config import Settings
from compact_agent.session.store import _broken_pairs, load_session_file
from tests.e2e.scripted import FileTaskAgent, task_text
from tests.fakes.openai_server import FakeOpenAIServer
from tests.reliability.drive import TurnsAgent, turn_prompt

REPO = Path(__file__).resolve().parents[2]
N_FILES = 10
WINDOW = 9_000
# Every third file is bigger than the tool-result cap, so spills happen; the window makes L4
# collapse commits and L5 compactions (archive + rewrite) happen several times per run.
SPILL_CAP = 7_000
TURNS = 8
ENV = {
    "COMPACT_AGENT_TOOL_RESULT_MAX_CHARS": str(SPILL_CAP),
    "COMPACT_AGENT_TOOL_RESULT_PREVIEW_CHARS": "1500",
}
# "task": one long turn that L5 compacts (session memory or a summary); L4 is off, or it would hold
# the turn under the threshold. "turns": collapse folds earlier turns from half the threshold on.
SCENARIO_ENV = {
    "task": {"COMPACT_AGENT_COLLAPSE_COMMIT_FRACTION": "0", "COMPACT_AGENT_COLLAPSE_BLOCKING_FRACTION": "0"},
    "turns": {"COMPACT_AGENT_COLLAPSE_COMMIT_FRACTION": "0.5"},
}
# Points a run reaches (the reference run's tally says how often).
POINTS = ("append.partial", "append.done", "archive.partial", "archive.synced", "archive.renamed",
          "rewrite.partial", "rewrite.synced", "rewrite.renamed", "spill.partial", "spill.synced",
          "spill.renamed", "collapse.partial", "collapse.done", "notes.partial", "notes.synced",
          "notes.renamed", "write.partial", "write.synced", "write.renamed")


def make_project(root: Path, n: int = N_FILES) -> int:
    """Data files for the scripted task; every third is larger than the spill cap. Returns the sum."""
    (root / "data").mkdir(parents=True, exist_ok=True)
    total = 0
    for k in range(n):
        value = 100 + k * 7
        total += value
        chars = 9_000 if k % 3 == 2 else 4_000
        body = "\n".join(f"line {i}: lorem ipsum dolor sit amet {k}-{i}" for i in range(chars // 40))
        (root / "data" / f"file_{k:02d}.txt").write_text(f"VALUE={value}\n{body}\n")
    return total


def message_keys(path: Path) -> set[str]:
    """Canonical JSON of every message line that is complete on disk (a torn line was never saved)."""
    keys: set[str] = set()
    try:
        raw = path.read_bytes()
    except OSError:
        return keys
    for line in raw.splitlines():
        try:
            entry = json.loads(line)
        except (ValueError, UnicodeDecodeError):
            continue
        if isinstance(entry, dict) and entry.get("kind") == "message":
            keys.add(json.dumps(entry.get("message"), sort_keys=True))
    return keys


def saved_messages(home: Path) -> set[str]:
    """Every message in any session file or archive under `home`."""
    keys: set[str] = set()
    for p in (home / "projects").glob("*/*.jsonl"):
        keys |= message_keys(p)
    for p in (home / "projects").glob("*/compact-history/*.jsonl"):
        keys |= message_keys(p)
    return keys


def temp_files(home: Path) -> list[Path]:
    return [p for p in home.rglob("*") if p.name.endswith(".tmp")]


@dataclass
class Workspace:
    root: Path
    home: Path = field(init=False)
    cwd: Path = field(init=False)
    expected: int = field(init=False)

    def __post_init__(self) -> None:
        self.home, self.cwd = self.root / "home", self.root / "project"
        self.cwd.mkdir(parents=True, exist_ok=True)
        self.expected = make_project(self.cwd)

    def env(self, extra: dict[str, str] | None = None) -> dict[str, str]:
        env = {k: v for k, v in os.environ.items()
               if not k.endswith("_API_KEY") and not k.startswith("COMPACT_AGENT_")}
        env.update({"COMPACT_AGENT_HOME": str(self.home), "PYTHONPATH": str(REPO / "src"), **ENV})
        env.update(extra or {})
        return env

    def argv(self, server: FakeOpenAIServer, prompt: str, *extra: str) -> list[str]:
        return [sys.executable, "-m", "compact_agent.cli", "-p", prompt, "--model", "fake-model",
                "--base-url", server.base_url, "--api-key", "sk-test", "--context-window", str(WINDOW),
                "--yes", "--output-format", "json", *extra]

    def run(self, server: FakeOpenAIServer, prompt: str, *extra: str, env: dict[str, str] | None = None,
            timeout: float = 120) -> subprocess.CompletedProcess[str]:
        return subprocess.run(self.argv(server, prompt, *extra), cwd=self.cwd, env=self.env(env),
                              capture_output=True, text=True, timeout=timeout)

    def sessions(self) -> list[Path]:
        return sorted((self.home / "projects").glob("*/*.jsonl"))


@dataclass
class KillResult:
    label: str
    killed: bool  # False: the run finished before the chosen moment
    saved_at_kill: int = 0
    temps_after_kill: int = 0  # temp files the kill left (the next run must remove them)
    lost: list[str] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)
    seconds: float = 0.0

    @property
    def ok(self) -> bool:
        return not self.lost and not self.problems


def reference_tally(root: Path, scenario: str = "task") -> tuple[dict[str, int], float]:
    """Run a scenario once without a kill; how often each crash point is reached, and how long it took."""
    ws = Workspace(root)
    tally = root / "tally.json"
    responder = FileTaskAgent(N_FILES) if scenario == "task" else TurnsAgent()
    with FakeOpenAIServer(responder, window=WINDOW) as server:
        t0 = time.monotonic()
        proc = _first_run(ws, server, scenario, {**SCENARIO_ENV[scenario], "COMPACT_AGENT_CRASH_TALLY": str(tally)},
                          root / "ref.out", root / "ref.err")
        code = proc.wait(timeout=120)
        took = time.monotonic() - t0
    if code != 0:
        raise RuntimeError(f"reference run failed: {(root / 'ref.err').read_text()[-2000:]}")
    return json.loads(tally.read_text()), took


def _wait_stopped(pid: int, deadline: float) -> int | None:
    """Wait until `pid` stops (returns None) or exits (returns its status)."""
    while True:
        got, status = os.waitpid(pid, os.WUNTRACED | os.WNOHANG)
        if got == pid:
            return None if os.WIFSTOPPED(status) else status
        if time.monotonic() > deadline:
            raise TimeoutError(f"process {pid} neither stopped nor exited")
        time.sleep(0.005)


def _first_run(ws: Workspace, server: FakeOpenAIServer, scenario: str, extra: dict[str, str],
               out: Path, err: Path) -> subprocess.Popen[bytes]:
    """Start the run to be killed: one long print-mode turn ("task"), or many turns in one process ("turns")."""
    if scenario == "task":
        argv = ws.argv(server, task_text(N_FILES))
    else:
        prompts = [turn_prompt(k, [2 * k % N_FILES, (2 * k + 1) % N_FILES]) for k in range(TURNS)]
        argv = [sys.executable, "-m", "tests.reliability.drive", server.base_url, str(WINDOW), *prompts]
        extra = {"PYTHONPATH": f"{REPO}{os.pathsep}{REPO / 'src'}", **extra}
    with open(out, "w") as o, open(err, "w") as e:
        return subprocess.Popen(argv, cwd=ws.cwd, env=ws.env(extra), stdout=o, stderr=e)


def kill_and_check(root: Path, *, point: str | None = None, nth: int = 1, delay: float | None = None,
                   scenario: str = "task", via_cli: bool = True, timeout: float = 120) -> KillResult:
    """One case: kill at `point` (its `nth` hit) or after `delay` seconds, then check everything.

    scenario "task": `compact-agent -p` reading files until the sum is known (spills, notes, L5).
    scenario "turns": many turns in one process (adds L4 collapse commit-log writes).
    via_cli: resume with `compact-agent --continue -p` in a subprocess; False resumes in this process
    (`SessionOptions(continue_last=True)`, what `--continue` sets) to save a start-up.
    """
    label = f"{scenario}/{point}:{nth}" if point else f"{scenario}/t={delay:.2f}s"
    ws = Workspace(root)
    responder = FileTaskAgent(N_FILES) if scenario == "task" else TurnsAgent()
    t0 = time.monotonic()
    result = KillResult(label, killed=False)
    with FakeOpenAIServer(responder, window=WINDOW) as server:
        extra = dict(SCENARIO_ENV[scenario])
        if point:
            extra["COMPACT_AGENT_CRASH_AT"] = f"{point}:{nth}:stop"
        proc = _first_run(ws, server, scenario, extra, root / "run1.out", root / "run1.err")
        deadline = time.monotonic() + timeout
        if delay is not None:
            time.sleep(delay)
            if proc.poll() is None:
                os.kill(proc.pid, signal.SIGSTOP)
        status = None if proc.returncode is not None else _wait_stopped(proc.pid, deadline)
        if proc.returncode is None and status is None:
            # Stopped at the chosen instant: this is what a crash right now leaves on disk.
            before = saved_messages(ws.home)
            result.killed, result.saved_at_kill = True, len(before)
            os.kill(proc.pid, signal.SIGKILL)
            os.waitpid(proc.pid, 0)
            proc.returncode = -9
        else:
            before = saved_messages(ws.home)
            if status is not None:
                proc.returncode = os.waitstatus_to_exitcode(status)
            if proc.returncode != 0:
                result.problems.append(f"run ended with {proc.returncode} without a kill: "
                                       + (root / "run1.err").read_text()[-500:])

        result.temps_after_kill = len(temp_files(ws.home))
        # 1. What is on disk now loads, as a valid conversation, and keeps every saved message.
        sessions = ws.sessions()
        for s in sessions:
            try:
                loaded = load_session_file(s)
            except Exception as e:  # noqa: BLE001 - reported, not raised: the soak counts them
                result.problems.append(f"session does not load after the kill: {e!r}")
                continue
            if _broken_pairs(loaded.messages):
                result.problems.append("loaded history has unpaired tool calls")
            if any("\n" in w for w in loaded.warnings):
                result.problems.append(f"multi-line warning: {loaded.warnings}")
        result.lost = sorted(before - saved_messages(ws.home))

        # 2. The next run resumes with --continue (or starts, if nothing was saved) and finishes.
        args = ("--continue",) if sessions else ()
        if scenario == "task":
            prompt, expect = ("continue the task" if sessions else task_text(N_FILES)), f"FINAL SUM: {ws.expected}"
        else:
            prompt, expect = turn_prompt(99, [0, 1]), "TURN 99 values: 100, 107."
        if via_cli:
            second = ws.run(server, prompt, *args, env=SCENARIO_ENV[scenario], timeout=timeout)
        else:
            second = _continue_in_process(ws, server, prompt, bool(sessions), SCENARIO_ENV[scenario])
        if second.returncode != 0:
            result.problems.append(f"the next run failed ({second.returncode}): {second.stderr[-800:]}")
        else:
            out = json.loads(second.stdout)
            if not str(out["result"]).startswith(expect):
                result.problems.append(f"the next run answered {out['result'][:80]!r}, expected {expect!r}")
            if sessions and out["session_id"] != sessions[-1].stem:
                result.problems.append("--continue did not resume the killed session")
        lines = [ln for ln in second.stderr.splitlines() if ln.strip()]
        if any(not ln.startswith("compact-agent:") for ln in lines):
            result.problems.append(f"stderr is not one-line messages: {second.stderr[-800:]}")
        if server.rejected:
            result.problems.append(f"the provider rejected a request: {server.rejected[0][2]}")

        # 3. Nothing saved before the kill went missing in the next run, and no temp file is left.
        result.lost = sorted(set(result.lost) | (before - saved_messages(ws.home)))
        leftovers = temp_files(ws.home)
        if leftovers:
            result.problems.append(f"temp files left: {[p.name for p in leftovers]}")
    result.seconds = time.monotonic() - t0
    return result


def _continue_in_process(ws: Workspace, server: FakeOpenAIServer, prompt: str, resume: bool,
                         env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    """The `--continue -p` run, in this process; shaped like the CLI's result."""
    settings = Settings(**{k.removeprefix("COMPACT_AGENT_").lower(): v for k, v in {**ENV, **env}.items()})
    opts = SessionOptions(cwd=ws.cwd, model="fake-model", base_url=server.base_url, api_key="sk-test",
                          context_window=WINDOW, permission_mode="yes", continue_last=resume,
                          settings=settings, home=ws.home)

    async def go() -> str:
        session = AgentSession(opts)
        try:
            turn = await session.run_turn(prompt)
        finally:
            await session.aclose()
        return json.dumps({"result": turn.output, "session_id": session.session_id})

    try:
        return subprocess.CompletedProcess([], 0, asyncio.run(go()), "")
    except Exception as e:  # noqa: BLE001 - reported like a failed CLI run
        return subprocess.CompletedProcess([], 1, "", f"compact-agent: {e!r}")


def random_cases(n: int, tallies: dict[str, tuple[dict[str, int], float]], seed: int) -> list[dict[str, object]]:
    """`n` kill cases over the scenarios: two thirds at a random hit of a random crash point the
    scenario's reference run reached, one third at a random instant of the run."""
    rng = random.Random(seed)
    cases: list[dict[str, object]] = []
    names = sorted(tallies)
    for i in range(n):
        scenario = names[i % len(names)]
        tally, seconds = tallies[scenario]
        points = [p for p in POINTS if tally.get(p)]
        if i % 3 == 2 or not points:
            cases.append({"scenario": scenario, "delay": round(rng.uniform(0.3, max(1.0, seconds)), 2)})
        else:
            p = rng.choice(points)
            cases.append({"scenario": scenario, "point": p, "nth": rng.randint(1, tally[p])})
    return cases


def scratch_dir(prefix: str) -> Path:
    return Path(tempfile.mkdtemp(prefix=prefix))
