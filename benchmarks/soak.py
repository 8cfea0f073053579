"""Soak: one scripted session of 1,000 model requests through the fake provider, 5% of them faulty.

    .venv/bin/python benchmarks/soak.py [--requests 1000] [--fault-rate 0.05] [--seed S] [--tracemalloc]

The session is a real `AgentSession` (the code behind the REPL) in this process; the fake
OpenAI-compatible server runs in a child process, so its own bookkeeping does not count towards our
memory. Each turn asks the scripted model to read two of 40 data files and report their values: a
tool call, its results, an answer. The window (16K) fills every few turns, so the whole pipeline
works: spills, session notes, collapse, compactions with archives.

Faults: 5% of request bodies get one, drawn from 429 (retry-after), 500/502/503, a dropped
connection, a reset mid-body, a malformed JSON body, a reply without a finish reason and a slow
reply; one in six of those persists through every retry, so some turns fail and the driver goes on
with the next, like a user. Printed: requests (main / summary+notes / retries), faults by kind,
compactions, surfaced errors (turns that failed, with their one-line messages), lost messages
(messages that were on disk after any turn and are in neither the session nor an archive at the
end, plus messages the agent held after a turn that were not on disk — must be 0), and memory
(RSS, and Python heap with --tracemalloc) over the run: it must stay flat, not grow with the
session's length beyond what the kept context needs.
"""

from __future__ import annotations

import argparse
import asyncio
import gc
import hashlib
import json
import os
import random
import subprocess
import sys
import tempfile
import time
import tracemalloc
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "src"))

N_FILES = 40
WINDOW = 16_000
FAULT_KINDS = ("429", "500", "502", "503", "drop", "reset", "malformed", "no_finish", "slow")


# -- the server process ---------------------------------------------------------------------------------


def serve(seed: int, rate: float, stats_path: str) -> None:
    """Child process: the fake provider with the scripted model and seeded faults."""
    from tests.fakes.openai_server import ChatRequest, FakeOpenAIServer, Fault
    from tests.reliability.drive import TurnsAgent

    rng = random.Random(seed)
    decided: dict[str, tuple[str, bool] | None] = {}
    stats: Counter[str] = Counter()

    def make(kind: str) -> Fault:
        return {"429": lambda: Fault.rate_limit(0.3), "500": lambda: Fault.http(500), "502": lambda: Fault.http(502),
                "503": lambda: Fault.http(503), "drop": Fault.drop, "reset": Fault.reset_mid_stream,
                "malformed": Fault.malformed_json, "no_finish": Fault.no_finish,
                "slow": lambda: Fault.slow(0.3)}[kind]()

    def faults(req: ChatRequest, attempt: int) -> Fault | None:
        internal = req.tool_choice == "none"
        if attempt == 0:
            stats["internal requests" if internal else "main requests"] += 1
        else:
            stats["retried attempts"] += 1
        key = hashlib.sha1(json.dumps(req.body, sort_keys=True).encode()).hexdigest()
        if key not in decided:
            decided[key] = (rng.choice(FAULT_KINDS), rng.random() < 1 / 6) if rng.random() < rate else None
        choice = decided[key]
        if choice is None or (attempt > 0 and not choice[1]):
            return None
        stats[f"fault {choice[0]}{' (persistent)' if choice[1] else ''}"] += 1
        return make(choice[0])

    with FakeOpenAIServer(TurnsAgent(), window=WINDOW, faults=faults) as server:
        print(server.base_url, flush=True)
        sys.stdin.read()  # until the parent closes it
        stats["rejected by the server"] = len([r for r in server.rejected if r[1] == 400])
    Path(stats_path).write_text(json.dumps(stats))


# -- the session ----------------------------------------------------------------------------------------


def rss_mb() -> float:
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE") / 2**20


class Witness:
    """Every message seen on disk after any turn; the session file is re-read when it changed."""

    def __init__(self) -> None:
        from tests.reliability.harness import message_keys

        self.keys = message_keys
        self.ever: set[str] = set()
        self.stamp: tuple[int, int] | None = None

    def after_turn(self, session_file: Path) -> set[str]:
        st = session_file.stat()
        if (st.st_size, st.st_mtime_ns) != self.stamp:
            self.stamp = (st.st_size, st.st_mtime_ns)
            self.current = self.keys(session_file)
            self.ever |= self.current
        return self.current


async def soak(args: argparse.Namespace) -> int:
    from tests.reliability.drive import turn_prompt
    from tests.reliability.harness import make_project, message_keys

    from compact_agent.agent.run.options import SessionOptions
    from compact_agent.agent.run.runner import AgentSession
    from compact_agent.config import Settings
    from compact_agent.error_text import describe_error
    from compact_agent.session.entries import _dump_message

    tmp = Path(tempfile.mkdtemp(prefix="soak-"))
    cwd, home = tmp / "project", tmp / "home"
    make_project(cwd, N_FILES)
    stats_file = tmp / "server-stats.json"
    server = subprocess.Popen([sys.executable, __file__, "--serve", str(args.seed), str(args.fault_rate),
                               str(stats_file)], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True,
                              env={**os.environ, "PYTHONPATH": f"{ROOT}{os.pathsep}{ROOT / 'src'}"})
    assert server.stdout is not None and server.stdin is not None
    base_url = server.stdout.readline().strip()

    opts = SessionOptions(cwd=cwd, model="fake-model", base_url=base_url, api_key="sk-soak", context_window=WINDOW,
                          permission_mode="yes", home=home, settings=Settings())
    s = AgentSession(opts)
    if args.tracemalloc:
        tracemalloc.start(int(os.environ.get("SOAK_FRAMES", "1")))
    witness = Witness()
    errors: list[str] = []
    unsaved = 0
    memory: list[tuple[int, float, float]] = []
    early: tracemalloc.Snapshot | None = None
    late: tracemalloc.Snapshot | None = None
    t0 = time.monotonic()
    turn = 0
    rng = random.Random(args.seed)
    try:
        while s.cm.requests < args.requests:
            files = rng.sample(range(N_FILES), 2)
            try:
                await s.run_turn(turn_prompt(turn, files))
                # Everything the agent holds after a turn is on disk.
                on_disk = witness.after_turn(s.store.path)
                unsaved += sum(1 for m in s.messages if hashlib.sha1(json.dumps(_dump_message(m), sort_keys=True)
                                                                     .encode()).hexdigest() not in on_disk)
            except Exception as e:  # noqa: BLE001 - a surfaced error: counted, and the user goes on
                errors.append(describe_error(e))
                witness.after_turn(s.store.path)
            turn += 1
            if turn % 25 == 0 or s.cm.requests >= args.requests:
                gc.collect()
                heap = tracemalloc.get_traced_memory()[0] / 2**20 if args.tracemalloc else 0.0
                memory.append((s.cm.requests, rss_mb(), heap))
                if args.tracemalloc and len(memory) == 2:
                    early = tracemalloc.take_snapshot()
                if args.tracemalloc and s.cm.requests >= args.requests:
                    late = tracemalloc.take_snapshot()
                print(f"  {s.cm.requests:5d} requests  {turn:4d} turns  {len(s.cm.compactions):3d} compactions  "
                      f"RSS {memory[-1][1]:6.1f} MB" + (f"  heap {heap:6.1f} MB" if args.tracemalloc else ""),
                      flush=True)
    finally:
        await s.aclose()
        server.stdin.close()
        server.wait(timeout=30)
    took = time.monotonic() - t0

    final: set[str] = message_keys(s.store.path)
    for archive in s.store.archive_dir.glob("*.jsonl"):
        final |= message_keys(archive)
    lost = len(witness.ever - final)
    stats = json.loads(stats_file.read_text())
    events = s.store.event_log.read()
    compactions = Counter(e["action"] for e in events if e.get("layer") == "compact")
    ours = sum(1 for e in events if e.get("layer") == "provider" and e.get("action") == "retry")
    faults = {k.removeprefix("fault "): v for k, v in stats.items() if k.startswith("fault ")}
    print()
    print(f"requests: {s.cm.requests} model requests of the conversation in {turn} turns, {took:.0f}s "
          f"(server saw {stats.get('main requests', 0)} main + {stats.get('internal requests', 0)} summary/notes "
          f"bodies, {stats.get('retried attempts', 0)} retried attempts)")
    print(f"faults injected: {sum(faults.values())} ({', '.join(f'{k} {v}' for k, v in sorted(faults.items()))})")
    print(f"retries: {stats.get('retried attempts', 0)} attempts repeated (SDK: 429/5xx/connection; "
          f"ours: {ours} for malformed replies)")
    print(f"compactions: {sum(v for k, v in compactions.items() if k != 'failed')} "
          f"({', '.join(f'{k} {v}' for k, v in sorted(compactions.items()))}), "
          f"archives: {len(list(s.store.archive_dir.glob('*.jsonl')))}")
    print(f"surfaced errors: {len(errors)} turns failed with one line each, e.g.:")
    for line in sorted(set(errors))[:6]:
        print(f"    compact-agent: {line[:150]}")
    print(f"rejected by the server as invalid: {stats.get('rejected by the server', 0)}")
    print(f"LOST MESSAGES: {lost} (on disk after some turn, gone at the end) + {unsaved} (held but not on disk)")
    first, mid, last = memory[min(1, len(memory) - 1)], memory[len(memory) // 2], memory[-1]
    print(f"memory: RSS {first[1]:.1f} MB at {first[0]} requests, {mid[1]:.1f} MB at {mid[0]}, {last[1]:.1f} MB at "
          f"{last[0]} (growth {last[1] - first[1]:+.1f} MB)"
          + (f"; Python heap {first[2]:.1f} → {mid[2]:.1f} → {last[2]:.1f} MB" if args.tracemalloc else ""))
    if args.tracemalloc:
        print("Python heap growth since the second sample, by allocation site:")
        group = "traceback" if os.environ.get("SOAK_FRAMES") else "lineno"
        for stat in late.compare_to(early, group)[:8] if early and late else []:
            print(f"    {stat}")
            if group == "traceback":
                print("\n".join(f"        {line}" for line in stat.traceback.format()[-12:]))
    sizes = {p.name: p.stat().st_size for p in (s.store.path, s.store.dir / "layers.json") if p.exists()}
    print(f"files: session {sizes.get(s.store.path.name, 0) / 1024:.0f} KB, layer state "
          f"{sizes.get('layers.json', 0) / 1024:.0f} KB, in {home}")
    return 1 if lost or unsaved or stats.get("rejected by the server", 0) else 0


def main() -> int:
    if len(sys.argv) > 1 and sys.argv[1] == "--serve":
        serve(int(sys.argv[2]), float(sys.argv[3]), sys.argv[4])
        return 0
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--requests", type=int, default=1_000)
    ap.add_argument("--fault-rate", type=float, default=0.05)
    ap.add_argument("--seed", type=int, default=7)
    ap.add_argument("--tracemalloc", action="store_true", help="also trace the Python heap (slower)")
    return asyncio.run(soak(ap.parse_args()))


if __name__ == "__main__":
    raise SystemExit(main())
