"""How much the replay's stand-in summary remembers against real summaries (run by hand).

At each compaction recorded in the Claude Code sessions of ../shared/data, the recall of the real
summary and of the stand-in's summary of the same messages, over what the responses that follow
needed from before the compaction (`replay/calibration.py`). The stand-in must land within 5 points
of the real summaries in total.

    .venv/bin/python benchmarks/standin_calibration.py [DATA_DIR]
"""

from __future__ import annotations

import sys
from pathlib import Path

from compact_agent.replay.calibration import summary_recall
from compact_agent.replay.importers import load_transcript

DATA = Path(sys.argv[1]) if len(sys.argv) > 1 else Path(__file__).resolve().parents[2] / "shared" / "data"


def main() -> None:
    rows = [r for f in sorted((DATA / "claude-code").glob("*.jsonl")) for r in summary_recall(load_transcript(f))]
    print(f"{'session':10} {'at msg':>6} {'needed':>6} {'real':>12} {'stand-in':>12} {'chars real/stand-in':>20}")
    for r in rows:
        print(f"{Path(r.transcript).name[:8]:10} {r.message_index:6} {r.needed:6} "
              f"{r.real_kept:4} ({100 * r.real:3.0f}%) {r.standin_kept:4} ({100 * r.standin:3.0f}%) "
              f"{r.real_chars:>9,}/{r.standin_chars:,}")
    needed = sum(r.needed for r in rows)
    real, standin = sum(r.real_kept for r in rows), sum(r.standin_kept for r in rows)
    if needed:
        print(f"{'total':10} {'':6} {needed:6} {real:4} ({100 * real / needed:3.0f}%) "
              f"{standin:4} ({100 * standin / needed:3.0f}%)")


if __name__ == "__main__":
    main()
