"""Kill-anywhere soak: N real compact-agent runs SIGKILLed at random points; prints losses (must be 0).

    .venv/bin/python benchmarks/kill_soak.py [N=100] [--seed S] [--workers W]

Two scenarios (see tests/reliability/harness.py): "task", one long `compact-agent -p` turn that
spills tool results, writes session notes and compacts (archive + rewrite) several times; and
"turns", several turns in one process so L4 collapse writes its commit log. A reference run of each
counts how often every crash point is reached; then each case kills a fresh run either at a random
hit of a random crash point (inside the archive copy, the atomic rewrite, a spill, a notes write, a
commit-log append, a session append, …) or at a random instant, records what was on disk, SIGKILLs,
checks that the session loads and nothing on disk was lost, and resumes with `--continue` to the
right answer with no temp file left.
"""

from __future__ import annotations

import argparse
import sys
import time
from collections import Counter
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "src"))

from tests.reliability.harness import (  # noqa: E402
    KillResult,
    Zygote,
    kill_and_check,
    random_cases,
    reference_tally,
    scratch_dir,
)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("n", nargs="?", type=int, default=100)
    ap.add_argument("--seed", type=int, default=20260601)
    ap.add_argument("--workers", type=int, default=2)
    args = ap.parse_args()

    zygote = Zygote()
    t0 = time.monotonic()
    try:
        tallies = {s: reference_tally(zygote, scratch_dir(f"ref-{s}-"), s) for s in ("task", "turns")}
        for s, (tally, took) in tallies.items():
            print(f"reference {s}: {took:.1f}s, crash points reached: "
                  + ", ".join(f"{p}×{n}" for p, n in sorted(tally.items())))
        cases = random_cases(args.n, tallies, args.seed)

        def one(case: dict) -> KillResult:
            return kill_and_check(zygote, scratch_dir("kill-"), **case)

        results: list[KillResult] = []
        with ThreadPoolExecutor(max_workers=args.workers) as pool:
            for i, r in enumerate(pool.map(one, cases), 1):
                results.append(r)
                status = "ok" if r.ok else "FAIL"
                print(f"{i:3d} {r.label:32s} killed={'yes' if r.killed else 'no '} on disk={r.saved_at_kill:3d} "
                      f"temps={r.temps_after_kill} lost={len(r.lost)} {status} {r.seconds:.1f}s"
                      + ("" if r.ok else f"  {r.problems[:2]}"), flush=True)
    finally:
        zygote.close()

    killed = [r for r in results if r.killed]
    lost = sum(len(r.lost) for r in results)
    failed = [r for r in results if r.problems]
    points = Counter(r.label.split(":")[0] if "t=" not in r.label else r.label.split("/")[0] + "/random-time"
                     for r in killed)
    print()
    print(f"cases: {len(results)}   killed: {len(killed)} (the rest finished before their moment)   "
          f"messages on disk at the kills: {sum(r.saved_at_kill for r in killed)}")
    print(f"kill points: {', '.join(f'{p}×{n}' for p, n in sorted(points.items()))}")
    print(f"temp files left by kills (removed by the next run): {sum(r.temps_after_kill for r in killed)}")
    print(f"LOST MESSAGES: {lost}   failed checks: {len(failed)}   time: {time.monotonic() - t0:.0f}s")
    return 1 if lost or failed else 0


if __name__ == "__main__":
    raise SystemExit(main())
