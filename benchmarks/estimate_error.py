"""How far is our context-size estimate from what the provider counted? (run by hand)

For every Claude Code and DeepSeek (mini-swe-agent) transcript in ../shared/data, walk the recorded
requests before the agent's own first compaction and predict each request's prompt size the way
the live pipeline does: `tokens.estimate` of the messages plus the request overhead, scaled by the
`Calibration` learnt from every earlier response's reported usage (`whole`: the ratio, and the fixed
part once two reports of requests of different sizes tell it apart). The overhead (system
prompt and tool schemas, absent from transcripts) is taken from the first request, as the live
agent knows its own. Compared with: the raw estimate plus that overhead (no calibration), and the
"last reported usage + estimate of what came after" measure (Claude Code's, seed 000's). SHARE
(default 1) takes that share of the first request's overhead as our estimate of it: below 1, as when
a provider counts the tool definitions as more than we estimate them.

    .venv/bin/python benchmarks/estimate_error.py [DATA_DIR [SHARE]]
"""

from __future__ import annotations

import statistics
import sys
from pathlib import Path

from pydantic_ai.messages import ModelMessage, ModelResponse

from compact_agent.context.plumbing import tokens
from compact_agent.replay.importers import load_transcript
from compact_agent.replay.simulate import recorded_points

DATA = Path(sys.argv[1]) if len(sys.argv) > 1 else Path(__file__).resolve().parents[2] / "shared" / "data"
SHARE = float(sys.argv[2]) if len(sys.argv) > 2 else 1.0
SOURCES = {"Claude Code": ["claude-code/*.jsonl", "claude-code/*/subagents/agent-a[!c]*.jsonl"],
           "DeepSeek (mini-swe-agent)": ["mini-swe-agent-deepseek/**/*.traj.json"],
           "Codex": ["codex/raw/sessions/*.jsonl"]}


def errors_for(path: Path) -> dict[str, list[float]]:
    t = load_transcript(path)
    pts = recorded_points(t, t.messages)
    out: dict[str, list[float]] = {"calibrated": [], "thinking learned": [], "uncalibrated": [],
                                   "last usage + estimate": []}
    if len(pts) < 2:
        return out
    overhead = round(SHARE * (pts[0][1] - pts[0][0]))
    cal, learns = tokens.Calibration(), tokens.Calibration()
    cal.observe(pts[0][1], pts[0][0] + overhead)
    first = next(i for i, m in enumerate(t.messages) if isinstance(m, ModelResponse))
    learns.observe(pts[0][1], pts[0][0] + overhead, *thinking(t.messages[:first]))
    prev_used = None
    idx = 0
    for i, m in enumerate(t.messages):
        if not isinstance(m, ModelResponse):
            continue
        if idx >= len(pts):
            break
        est, recorded = pts[idx]
        if idx > 0:
            out["calibrated"].append(abs(cal.whole(est + overhead) - recorded) / recorded)
            out["uncalibrated"].append(abs(est + overhead - recorded) / recorded)
            if prev_used is not None:
                new = tokens.estimate(t.messages[prev_used[0] + 1:i])
                out["last usage + estimate"].append(abs(prev_used[1] + new - recorded) / recorded)
            cal.observe(recorded, est + overhead)
            thought = thinking(t.messages[:i])
            counted = learns.counted(est + overhead, thought[1], thought[0] - thought[1])
            out["thinking learned"].append(abs(learns.whole(counted) - recorded) / recorded)
            learns.observe(recorded, est + overhead, *thought)
        if m.usage.input_tokens:
            prev_used = (i, m.usage.input_tokens + m.usage.output_tokens)
        idx += 1
    return out


def thinking(request: list[ModelMessage]) -> tuple[int, int]:
    """The thinking in a request's estimate, and of it the earlier turns' (`Calibration.observe`)."""
    return tokens.thinking_tokens(request), tokens.earlier_thinking_tokens(request)


def pctl(xs: list[float], q: float) -> float:
    xs = sorted(xs)
    return xs[min(len(xs) - 1, int(q * len(xs)))] if xs else float("nan")


def main() -> None:
    print(f"data: {DATA}")
    print(f"{'source':28} {'method':24} {'requests':>8} {'median':>8} {'p90':>8} {'max':>8}")
    for source, globs in SOURCES.items():
        agg: dict[str, list[float]] = {}
        files = sorted({p for g in globs for p in DATA.glob(g)})
        for f in files:
            for k, v in errors_for(f).items():
                agg.setdefault(k, []).extend(v)
        for k, v in agg.items():
            if v:
                print(f"{source:28} {k:24} {len(v):>8} {100 * statistics.median(v):7.1f}% "
                      f"{100 * pctl(v, 0.9):7.1f}% {100 * max(v):7.1f}%")


if __name__ == "__main__":
    main()
