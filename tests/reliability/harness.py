"""Kill a real `compact-agent` run at a chosen moment and check that nothing saved was lost.

Used by tests/reliability/test_kill.py (a few points) and benchmarks/kill_soak.py (N=100).

How a kill is placed: either at a named crash point inside a durable write (the process runs with
`COMPACT_AGENT_CRASH_AT=<point>:<n>:stop`, see `compact_agent.crashpoints`), or at a random moment
(the harness sends SIGSTOP after a random delay). Either way the process is *stopped* first, so the
harness can record exactly what was on disk at that instant — every message line of the session
file and of every archive — and only then SIGKILLs it. Nothing runs between the stop and the kill,
so this is the state a real crash at that moment leaves behind.

Then: the session must load (structurally valid, pairs intact), every message on disk at the kill
must still be in the session or an archive, `--continue` must finish the task with the right
answer, and no temp file may be left once the next run has started.

Runs are real processes forked from a pre-imported zygote (`zygote.py`) that call the real entry
points (`compact_agent.cli.main()`, or the multi-turn driver); that skips the 2-3 s of importing
pydantic-ai per run, which is most of a short run.
"""

from __future__ import annotations

import hashlib
import json
import os
import queue
import random
import socket
import subprocess
import sys
import tempfile
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from compact_agent.session.loading import _broken_pairs
from compact_agent.session.store import load_session_file
from tests.e2e.scripted import FileTaskAgent, task_text
from tests.fakes.openai_server import FakeOpenAIServer
from tests.reliability.drive import TurnsAgent, turn_prompt

REPO = Path(__file__).resolve().parents[2]
N_FILES = 10
WINDOW = 9_000
# Every third file is bigger than the tool-result cap, so spills happen; the window makes session
# notes, L4 collapse commits and L5 compactions (archive + rewrite) happen several times per run.
SPILL_CAP = 7_000
TURNS = 8
ENV = {
    "COMPACT_AGENT_TOOL_RESULT_MAX_CHARS": str(SPILL_CAP),
    "COMPACT_AGENT_TOOL_RESULT_PREVIEW_CHARS": "1500",
    # Every durable write must happen in a short run: notes on, and the threshold where the
    # configured reserve puts it (the adaptive one would let the short task finish uncompacted).
    "COMPACT_AGENT_MEMORY_ENABLED": "true",
    "COMPACT_AGENT_ADAPTIVE_OUTPUT_RESERVE": "false",
    "COMPACT_AGENT_PRICED_COMPACTION": "false",
    "COMPACT_AGENT_TOOL_RESULT_ROOM_SHARE": "1",
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
    """A digest of the canonical JSON of every message line complete on disk (a torn line was never
    saved); a digest, so that a soak's witness does not hold the transcript in memory."""
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
            keys.add(hashlib.sha1(json.dumps(entry.get("message"), sort_keys=True).encode()).hexdigest())
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


# -- processes ----------------------------------------------------------------------------------------


class Zygote:
    """Client of `zygote.py`: forks real compact-agent processes, signals them, and reports their
    stops and exits. Children are known by a token, not a pid (pids are reused). With `served`, the
    socket of a `zygote.py --serve` process, its zygote is one forked from that process for this one
    (tests/forked_cli.py: the test processes of a run share its imports); else one of its own."""

    def __init__(self, served: str | None = None) -> None:
        self.proc: subprocess.Popen[str] | None = None
        self._conn: socket.socket | None = None
        if served:
            self._conn = socket.socket(socket.AF_UNIX)
            self._conn.connect(served)
            self._in, self._out = self._conn.makefile("w", buffering=1), self._conn.makefile("r")
        else:
            env = {**os.environ, "PYTHONPATH": f"{REPO}{os.pathsep}{REPO / 'src'}"}
            self.proc = subprocess.Popen([sys.executable, "-m", "tests.reliability.zygote"], cwd=REPO, env=env,
                                         stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, bufsize=1)
            assert self.proc.stdin is not None and self.proc.stdout is not None
            self._in, self._out = self.proc.stdin, self.proc.stdout
        self._lock = threading.Lock()
        self._events: dict[str, queue.Queue[tuple[str, int]]] = {}
        self._count = 0
        self._reader = threading.Thread(target=self._read, daemon=True)
        self._reader.start()

    def _queue(self, token: str) -> queue.Queue[tuple[str, int]]:
        with self._lock:
            return self._events.setdefault(token, queue.Queue())

    def _read(self) -> None:
        for line in self._out:
            msg = json.loads(line)
            if "stopped" in msg:
                self._queue(msg["token"]).put(("stopped", 0))
            elif "exit" in msg:
                self._queue(msg["token"]).put(("exit", msg["exit"]))
            else:
                self._queue(msg["token"]).put(("pid", msg["pid"]))

    def _send(self, obj: dict[str, Any]) -> None:
        with self._lock:
            self._in.write(json.dumps(obj) + "\n")
            self._in.flush()

    def spawn(self, kind: str, argv: list[str], env: dict[str, str], cwd: Path, out: Path, err: Path,
              **extra: str) -> Child:
        """`extra`: `stdin=` a named pipe's path, or `tty=` a terminal's (zygote.py)."""
        with self._lock:
            self._count += 1
            token = f"c{self._count}"
        events = self._queue(token)
        self._send({"op": "spawn", "token": token, "kind": kind, "argv": argv, "env": env, "cwd": str(cwd),
                    "out": str(out), "err": str(err), **extra})
        what, pid = events.get(timeout=60)
        assert what == "pid"
        return Child(self, token, pid, events, out, err)

    def signal(self, token: str, sig: str) -> None:
        self._send({"op": "signal", "token": token, "sig": sig})

    def close(self) -> None:
        self._in.close()
        if self._conn is not None:  # its zygote ends at the end of what it reads, closing its side
            self._conn.shutdown(socket.SHUT_WR)
            self._reader.join(timeout=10)
            self._out.close()
            self._conn.close()
        else:
            assert self.proc is not None
            self.proc.wait(timeout=10)


@dataclass
class Child:
    zygote: Zygote
    token: str
    pid: int
    events: queue.Queue[tuple[str, int]]
    out: Path
    err: Path
    code: int | None = None

    def next_event(self, timeout: float) -> tuple[str, int]:
        """("stopped", 0) or ("exit", code)."""
        kind, code = self.events.get(timeout=timeout)
        if kind == "exit":
            self.code = code
        return kind, code

    def wait(self, timeout: float) -> int:
        deadline = time.monotonic() + timeout
        while self.code is None:
            self.next_event(max(0.1, deadline - time.monotonic()))
        return self.code

    def stop(self) -> None:
        self.zygote.signal(self.token, "STOP")

    def kill(self) -> None:
        self.zygote.signal(self.token, "KILL")


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
        env.update({"COMPACT_AGENT_HOME": str(self.home), "PYTHONPATH": f"{REPO}{os.pathsep}{REPO / 'src'}", **ENV})
        env.update(extra or {})
        return env

    def cli_argv(self, server: FakeOpenAIServer, prompt: str, *extra: str) -> list[str]:
        return ["-p", prompt, "--model", "fake-model", "--base-url", server.base_url, "--api-key", "sk-test",
                "--context-window", str(WINDOW), "--yes", "--output-format", "json", *extra]

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


def _start(zygote: Zygote, ws: Workspace, server: FakeOpenAIServer, scenario: str, run: int,
           extra: dict[str, str], name: str) -> Child:
    """Start a run: one long print-mode turn ("task"), or several turns in one process ("turns").
    Run 0 starts the work; later runs resume it with --continue, as a user would after a crash
    ("turns": each run sends the next TURNS prompts)."""
    out, err = ws.root / f"{name}.out", ws.root / f"{name}.err"
    if scenario == "task":
        resume = run > 0 and bool(ws.sessions())
        argv = ws.cli_argv(server, "continue the task" if resume else task_text(N_FILES),
                           *(("--continue",) if resume else ()))
        return zygote.spawn("cli", argv, ws.env(extra), ws.cwd, out, err)
    first = run * TURNS
    prompts = [turn_prompt(k, [2 * k % N_FILES, (2 * k + 1) % N_FILES]) for k in range(first, first + TURNS)]
    return zygote.spawn("drive", [server.base_url, str(WINDOW), *prompts], ws.env(extra), ws.cwd, out, err)


def reference_tally(zygote: Zygote, root: Path, scenario: str = "task") -> tuple[dict[str, int], float]:
    """Run a scenario once without a kill; how often each crash point is reached, and how long it took."""
    ws = Workspace(root)
    tally = root / "tally.json"
    responder = FileTaskAgent(N_FILES) if scenario == "task" else TurnsAgent()
    with FakeOpenAIServer(responder, window=WINDOW) as server:
        t0 = time.monotonic()
        child = _start(zygote, ws, server, scenario, 0,
                       {**SCENARIO_ENV[scenario], "COMPACT_AGENT_CRASH_TALLY": str(tally)}, "ref")
        code = child.wait(120)
        took = time.monotonic() - t0
    if code != 0:
        raise RuntimeError(f"reference run failed: {child.err.read_text()[-2000:]}")
    return json.loads(tally.read_text()), took


def _kill_at(child: Child, ws: Workspace, delay: float | None, timeout: float) -> tuple[bool, set[str], int]:
    """Wait for the stop (a crash point's SIGSTOP, or ours after `delay`), record what is on disk,
    then SIGKILL. Returns (killed, messages on disk at that instant, exit code if it ended first)."""
    if delay is not None:
        try:
            kind, code = child.next_event(delay)  # it may end (or stop at a point) before the delay
        except queue.Empty:
            child.stop()
            kind, code = child.next_event(timeout)
    else:
        kind, code = child.next_event(timeout)
    if kind == "exit":
        return False, saved_messages(ws.home), code
    before = saved_messages(ws.home)  # stopped: nothing runs between the stop and the kill
    child.kill()
    while child.code is None:
        child.next_event(timeout)
    return True, before, -9


def _check_loads(ws: Workspace, result: KillResult) -> None:
    for s in ws.sessions():
        try:
            loaded = load_session_file(s)
        except Exception as e:  # noqa: BLE001 - reported, not raised: the soak counts them
            result.problems.append(f"session does not load after the kill: {e!r}")
            continue
        if _broken_pairs(loaded.messages):
            result.problems.append("loaded history has unpaired tool calls")
        if any("\n" in w for w in loaded.warnings):
            result.problems.append(f"multi-line warning: {loaded.warnings}")


def kill_chain(zygote: Zygote, root: Path, steps: list[dict[str, Any]], *, scenario: str = "task",
               timeout: float = 120) -> list[KillResult]:
    """Kill a run at each step's moment in turn — each later run resumes the killed session — then
    finish the work with `compact-agent --continue -p` and check everything.

    A step is `{"point": name, "nth": n}` (a crash point, see compact_agent.crashpoints) or
    `{"delay": seconds, "retries": k}` (a run that ends before the delay is followed by up to k
    more with half the delay each time; without retries it is reported as not killed). After every
    kill: the session loads as a valid conversation and every message that was on disk at any kill
    so far is still in the session or an archive. At the end:
    the task is finished with the right answer, nothing was lost, and no temp file is left.
    scenario "task": `compact-agent -p` reading files until the sum is known (spills, notes, L5).
    scenario "turns": many turns per process (adds L4 collapse commit-log writes).
    """
    ws = Workspace(root)
    responder = FileTaskAgent(N_FILES) if scenario == "task" else TurnsAgent()
    results: list[KillResult] = []
    ever_saved: set[str] = set()
    runs = 0
    with FakeOpenAIServer(responder, window=WINDOW) as server:
        for step in steps:
            point, delay, nth = step.get("point"), step.get("delay"), int(step.get("nth", 1))
            label = f"{scenario}/{point}:{nth}" if point else f"{scenario}/t={float(delay):.2f}s"
            result = KillResult(label, killed=False)
            t0 = time.monotonic()
            extra = dict(SCENARIO_ENV[scenario])
            if point:
                extra["COMPACT_AGENT_CRASH_AT"] = f"{point}:{nth}:stop"
            # A moment given as a delay means "somewhere in the run": a run that ends sooner (a fast
            # machine) is followed by another with half the delay, up to `retries` more times.
            for attempt in range(1 + (int(step.get("retries", 0)) if delay is not None else 0)):
                child = _start(zygote, ws, server, scenario, runs, extra, f"run{runs}")
                runs += 1
                wait = None if delay is None else float(delay) / 2**attempt
                result.killed, before, code = _kill_at(child, ws, wait, timeout)
                if result.killed or code != 0:
                    break
                ever_saved |= before
            if not result.killed and code != 0:
                result.problems.append(f"run ended with {code} without a kill: {child.err.read_text()[-500:]}")
            result.saved_at_kill = len(before)
            ever_saved |= before
            result.temps_after_kill = len(temp_files(ws.home))
            _check_loads(ws, result)
            result.lost = sorted(ever_saved - saved_messages(ws.home))
            result.seconds = time.monotonic() - t0
            results.append(result)

        # The next run resumes with --continue (or starts, if nothing was saved) and finishes.
        final = results[-1]
        t0 = time.monotonic()
        sessions = ws.sessions()
        args = ("--continue",) if sessions else ()
        if scenario == "task":
            prompt, expect = ("continue the task" if sessions else task_text(N_FILES)), f"FINAL SUM: {ws.expected}"
        else:
            prompt, expect = turn_prompt(99, [0, 1]), "TURN 99 values: 100, 107."
        last = zygote.spawn("cli", ws.cli_argv(server, prompt, *args), ws.env(SCENARIO_ENV[scenario]), ws.cwd,
                            root / "final.out", root / "final.err")
        code = last.wait(timeout)
        stdout, stderr = last.out.read_text(), last.err.read_text()  # created by the zygote before the fork
        if code != 0:
            final.problems.append(f"the next run failed ({code}): {stderr[-800:]}")
        else:
            out = json.loads(stdout)
            if not str(out["result"]).startswith(expect):
                final.problems.append(f"the next run answered {out['result'][:80]!r}, expected {expect!r}")
            if sessions and out["session_id"] != sessions[-1].stem:
                final.problems.append("--continue did not resume the killed session")
        if any(not ln.startswith("compact-agent:") for ln in stderr.splitlines() if ln.strip()):
            final.problems.append(f"stderr is not one-line messages: {stderr[-800:]}")
        if server.rejected:
            final.problems.append(f"the provider rejected a request: {server.rejected[0][2]}")
        # Nothing saved before any kill went missing in the next run, and no temp file is left.
        final.lost = sorted(set(final.lost) | (ever_saved - saved_messages(ws.home)))
        leftovers = temp_files(ws.home)
        if leftovers:
            final.problems.append(f"temp files left: {[p.name for p in leftovers]}")
        final.seconds += time.monotonic() - t0
    return results


def kill_and_check(zygote: Zygote, root: Path, *, point: str | None = None, nth: int = 1,
                   delay: float | None = None, scenario: str = "task", timeout: float = 120) -> KillResult:
    """One kill (at `point`'s `nth` hit, or after `delay` seconds), then resume and check."""
    step: dict[str, Any] = {"point": point, "nth": nth} if point else {"delay": delay}
    return kill_chain(zygote, root, [step], scenario=scenario, timeout=timeout)[0]


def random_cases(n: int, tallies: dict[str, tuple[dict[str, int], float]], seed: int) -> list[dict[str, Any]]:
    """`n` kill cases over the scenarios: two thirds at a random hit of a random crash point the
    scenario's reference run reached, one third at a random instant of the run."""
    rng = random.Random(seed)
    cases: list[dict[str, Any]] = []
    names = sorted(tallies)
    for i in range(n):
        scenario = names[i % len(names)]
        tally, seconds = tallies[scenario]
        points = [p for p in POINTS if tally.get(p)]
        if i % 3 == 2 or not points:
            cases.append({"scenario": scenario, "delay": round(rng.uniform(0.05, max(0.1, 0.9 * seconds)), 2)})
        else:
            p = rng.choice(points)
            cases.append({"scenario": scenario, "point": p, "nth": rng.randint(1, tally[p])})
    return cases


def scratch_dir(prefix: str) -> Path:
    return Path(tempfile.mkdtemp(prefix=prefix))
