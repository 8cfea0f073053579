"""What a turn costs the files kept beside a session, as the session grows: /rewind's checkpoint list
and the collapse log.

    .venv/bin/python benchmarks/turn_growth.py [--turns 1500] [--commits 100]

Checkpoints: a real `Checkpoints` in a temp folder, each turn opening a checkpoint and writing one
of 40 files through it as the file tools do (`begin`, `before_write`, `wrote`). Printed per stretch
of turns: the median time of a turn (fsyncs included, so on a loaded machine the figures vary), the
bytes the process wrote per turn (`wchar` of /proc/self/io, Linux), and the list and its log on
disk. A list written whole at each save makes both grow with the number of turns; appending what
changed keeps them flat.

Collapse log: the time of one request's collapse layer (`ContextCollapse.apply`) over a 40-message
conversation with the log of a long session read back at a restart, `--commits` commits of
conversations a compaction replaced (each tried, and failing, on every request), against the same
with the log trimmed as `forget_absent` leaves it.
"""

from __future__ import annotations

import argparse
import contextlib
import statistics
import sys
import tempfile
import time
from datetime import timedelta
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "src"))


def written() -> int:
    """Bytes this process has passed to write() so far (0 where /proc is not there)."""
    with contextlib.suppress(OSError):
        for line in Path("/proc/self/io").read_text().splitlines():
            if line.startswith("wchar:"):
                return int(line.split()[1])
    return 0


def checkpoints(turns: int, folder: Path) -> None:
    from compact_agent.agent.tools.checkpoints import Checkpoints

    work, store = folder / "work", folder / "store"
    work.mkdir()
    cps = Checkpoints(store)
    step = max(1, turns // 6)
    print(f"checkpoints: {turns} turns, one file written per turn")
    print(f"{'turns':>6} {'ms/turn (median)':>17} {'KB written/turn':>16} {'list KB':>8} {'log KB':>7}")
    times: list[float] = []
    bytes_at = written()
    for turn in range(turns):
        t = time.perf_counter()
        cps.begin(turn, 4 * turn, f"change file {turn % 40} so that it prints the number {turn}, and say why it had to")
        path, data = work / f"f{turn % 40}.py", f"print({turn})\n".encode() * 20
        cps.before_write(path, data)
        path.write_bytes(data)
        cps.wrote(path, data)
        times.append(time.perf_counter() - t)
        if (turn + 1) % step == 0 or turn + 1 == turns:
            now = written()
            n = len(times)
            log = store / "checkpoints.log"
            print(f"{turn + 1:>6} {statistics.median(times) * 1000:>17.2f} {(now - bytes_at) / n / 1024:>16.1f} "
                  f"{(store / 'checkpoints.json').stat().st_size / 1024:>8.0f} "
                  f"{(log.stat().st_size if log.exists() else 0) / 1024:>7.0f}")
            times, bytes_at = [], now


def collapse(commits: int, folder: Path) -> None:
    from tests.context.strategies import BASE
    from tests.context.test_collapse import budget, long_conv

    from compact_agent.config import Settings
    from compact_agent.context.layers.collapse import ContextCollapse
    from compact_agent.context.plumbing.tokens import estimate

    log_path = folder / "commits.jsonl"
    layer = ContextCollapse(Settings(), log_path)
    for k in range(commits):  # one commit per conversation, each replaced since by a compaction
        conv = long_conv(turns=3, start=BASE + timedelta(days=k)).messages
        layer.apply(conv, budget(conv, estimate(conv)))
    now = long_conv(turns=3, start=BASE + timedelta(days=commits)).messages
    size = log_path.stat().st_size

    def per_request(restarted: ContextCollapse) -> float:
        b = budget(now, estimate(now) * 10)  # under the commit threshold: projection only
        runs = []
        for _ in range(20):
            t = time.perf_counter()
            restarted.apply(now, b)
            runs.append(time.perf_counter() - t)
        return statistics.median(runs) * 1000

    stale = per_request(ContextCollapse(Settings(), log_path))
    layer.forget_absent(now)
    trimmed = per_request(ContextCollapse(Settings(), log_path))
    print(f"collapse log after {commits} compacted commits: {size / 1024:.0f} KB, "
          f"{stale:.2f} ms per request read back whole; trimmed: {log_path.stat().st_size / 1024:.0f} KB, "
          f"{trimmed:.2f} ms per request")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--turns", type=int, default=1500)
    ap.add_argument("--commits", type=int, default=100)
    args = ap.parse_args()
    with tempfile.TemporaryDirectory(prefix="turn-growth-") as tmp:
        checkpoints(args.turns, Path(tmp))
    with tempfile.TemporaryDirectory(prefix="turn-growth-") as tmp:
        collapse(args.commits, Path(tmp))


if __name__ == "__main__":
    main()
