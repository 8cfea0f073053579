"""How `compact-agent analyze` scales with the size of a user's history (run by hand).

Builds a folder holding the shared transcripts N times over (symbolic links, each copy in its own
subfolder), runs the real CLI on it (`analyze DIR --totals --json`), and reports wall time, the
peak resident memory of the parent process and the peak of the whole process tree (parent plus
workers, sampled every 0.1 s from /proc). With transcripts streamed to the workers the parent holds
only figures and each worker one transcript at a time, so memory should stay flat as N grows while
the time grows linearly.

    .venv/bin/python benchmarks/scaling.py [--scales 1 10 50] [--strategy S ...] [--data DIR]
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

DATA = Path(__file__).resolve().parents[2] / "shared" / "data"


def rss_kb(pid: int) -> int:
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    except OSError:
        pass
    return 0


def children(pid: int) -> list[int]:
    out: list[int] = []
    try:
        for task in Path(f"/proc/{pid}/task").iterdir():
            text = (task / "children").read_text().split()
            out += [int(c) for c in text]
    except OSError:
        pass
    return out


def tree(pid: int) -> list[int]:
    found, todo = [], [pid]
    while todo:
        p = todo.pop()
        found.append(p)
        todo += children(p)
    return found


def replicate(data: Path, n: int, into: Path) -> int:
    """`n` copies of every transcript file under `data`, as links; returns the bytes they stand for."""
    files = [f for f in data.rglob("*") if f.is_file() and f.suffix in (".jsonl", ".json", ".traj")]
    total = 0
    for k in range(n):
        for f in files:
            target = into / f"copy{k:03d}" / f.relative_to(data)
            target.parent.mkdir(parents=True, exist_ok=True)
            target.symlink_to(f.resolve())
            total += f.stat().st_size
    return total


def run(folder: Path, strategies: list[str]) -> tuple[float, int, int, int]:
    """(seconds, parent peak KB, tree peak KB, transcripts replayed) of one analyzer run."""
    cli = [sys.executable, "-c", "from compact_agent.cli import main; main()", "analyze", str(folder),
           "--totals", "--json", *[a for s in strategies for a in ("--strategy", s)]]
    start = time.monotonic()
    proc = subprocess.Popen(cli, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    parent_peak = tree_peak = 0
    while proc.poll() is None:
        parent_peak = max(parent_peak, rss_kb(proc.pid))
        tree_peak = max(tree_peak, sum(rss_kb(p) for p in tree(proc.pid)))
        time.sleep(0.1)
    out = proc.stdout.read() if proc.stdout else ""
    elapsed = time.monotonic() - start
    if proc.returncode != 0:
        raise SystemExit(f"analyze failed with exit code {proc.returncode}")
    import json

    return elapsed, parent_peak, tree_peak, json.loads(out)["transcripts"]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--scales", type=int, nargs="+", default=[1, 10, 50])
    ap.add_argument("--strategy", action="append", default=[])
    ap.add_argument("--data", type=Path, default=DATA)
    args = ap.parse_args()
    print(f"cpus {os.cpu_count()}, strategies {', '.join(args.strategy) or 'all'}")
    print(f"{'scale':>5} {'transcripts':>11} {'data MB':>8} {'seconds':>8} {'parent MB':>10} {'all procs MB':>13}")
    for n in args.scales:
        with tempfile.TemporaryDirectory(prefix="compact-agent-scaling-") as tmp:
            size = replicate(args.data, n, Path(tmp))
            seconds, parent, total, count = run(Path(tmp), args.strategy)
        print(f"{n:>5} {count:>11} {size / 1e6:>8.1f} {seconds:>8.1f} {parent / 1024:>10.1f} {total / 1024:>13.1f}",
              flush=True)


if __name__ == "__main__":
    main()
