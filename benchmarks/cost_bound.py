"""How far below every replayed strategy a cost goal lies: the best-of-parts bound (run by hand).

The analyzer splits each strategy's cost into parts. Two groups of them trade against each other
inside any strategy, so no strategy can be judged on one part alone:

* **bringing content in**: the uncached input of the main requests (each new message once, and the
  history a compaction rebuilds) and the side requests (summaries, notes). A strategy that
  summarises the newest tool results away before sending them pays in its summaries what another
  pays in misses;
* **holding it and looking again**: the cache hits of every request and the look-agains a stall
  costs. Holding less means looking again more.

The output tokens are the transcript's own, the same for every strategy. A strategy that had the
cheapest of each group among the strategies compared (ours and the rivals that send no more
requests over the window than ours, the issue's rule) would cost their sum with the output: the
*bound*. A cost goal below it asks for a strategy that beats every one replayed in a group, not
for a better balance of what exists.

    .venv/bin/python benchmarks/cost_bound.py [--data DIR] [--windows 32000 64000 128000 200000]
    .venv/bin/python benchmarks/cost_bound.py --json FILE ...   # figures `analyze --json` wrote

Replaying the four windows takes about a minute on two cores.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
DATA = ROOT.parent / "shared" / "data"
BRING_IN = ("miss", "summary", "notes")
HOLD = ("hit", "reread")


def part(row: dict[str, Any], keys: tuple[str, ...]) -> float:
    return float(sum(row["cost_parts"][k] for k in keys))


def bound(totals: list[dict[str, Any]]) -> dict[str, Any]:
    """The best-of-parts bound over ours and the rivals with no more requests over the window."""
    ours = next(r for r in totals if r["strategy"] == "ours")
    compared = [r for r in totals if r["over_window"] <= ours["over_window"]]
    rivals = [r for r in compared if r is not ours]
    cheapest = min(rivals, key=lambda r: r["cost"])
    bring = min(compared, key=lambda r: part(r, BRING_IN))
    hold = min(compared, key=lambda r: part(r, HOLD))
    total = ours["cost_parts"]["output"] + part(bring, BRING_IN) + part(hold, HOLD)
    return {"cheapest": cheapest, "ours": ours, "bring": bring, "hold": hold, "bound": total}


def report(window: int, b: dict[str, Any]) -> str:
    cheap, ours = b["cheapest"], b["ours"]
    ratio = ours["cost"] / cheap["cost"]
    return (f"{window // 1000:>4}K  {cheap['strategy']:<15} ${cheap['cost']:6.3f}  ${ours['cost']:6.3f} {ratio:5.3f}  "
            f"${b['bound']:6.3f} {b['bound'] / cheap['cost']:5.3f}  "
            f"{b['bring']['strategy']:<15} ${part(b['bring'], BRING_IN):5.3f} (ours ${part(ours, BRING_IN):5.3f})  "
            f"{b['hold']['strategy']:<15} ${part(b['hold'], HOLD):5.3f} (ours ${part(ours, HOLD):5.3f})")


def read(path: Path) -> dict[str, Any]:
    """`analyze --json` figures from `path`, or the run ends in one line saying what is wrong."""
    try:
        fig = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError) as e:
        sys.exit(f"cost_bound: cannot read {path}: {getattr(e, 'strerror', None) or e}")
    except ValueError:
        sys.exit(f"cost_bound: {path} is not JSON; write it with compact-agent analyze DIR --window W --json")
    try:
        rows = fig["totals"]
        int(fig["window"])
        ours = [r for r in rows if r["strategy"] == "ours"]
        for r in rows:
            part(r, BRING_IN + HOLD)
            float(r["cost"]), int(r["over_window"])
    except (TypeError, KeyError, ValueError):
        sys.exit(f"cost_bound: {path} is not what compact-agent analyze --json writes (window, totals with cost parts)")
    if not ours:
        sys.exit(f"cost_bound: {path} has no row for ours: replay with ours among the strategies")
    if len(ours) == len(rows):
        sys.exit(f"cost_bound: {path} has no rival to compare with: replay with the rivals too")
    return fig  # type: ignore[no-any-return]


def replayed(data: Path, window: int) -> dict[str, Any]:
    out = subprocess.run([str(ROOT / ".venv" / "bin" / "compact-agent"), "analyze", str(data), "--window", str(window),
                          "--json", "--totals"], capture_output=True, text=True, check=True)
    loaded: dict[str, Any] = json.loads(out.stdout)
    return loaded


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    ap.add_argument("--data", type=Path, default=DATA)
    ap.add_argument("--windows", type=int, nargs="+", default=[32_000, 64_000, 128_000, 200_000])
    ap.add_argument("--json", type=Path, nargs="+", help="read `analyze --json` output instead of replaying")
    a = ap.parse_args()
    figures = [read(p) for p in a.json] if a.json else [replayed(a.data, w) for w in a.windows]
    print(f"{'window':>5}  {'cheapest rival':<15} {'cost':>7}  {'ours':>7} {'/it':>5}  {'bound':>7} {'/it':>5}  "
          f"{'bringing in: cheapest':<37} holding and looking again: cheapest")
    for fig in figures:
        print(report(fig["window"], bound(fig["totals"])))


if __name__ == "__main__":
    main()
