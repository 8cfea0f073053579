"""The agent reading N files of 4 KB in a small window against the strict fake provider, priced.

The fake speaks the OpenAI wire protocol with DeepSeek's usage fields (cached prompt tokens by
longest common prefix with the previous request), refuses any request over its window, and answers
as a model would (tests/e2e/scripted.py: read the files one at a time, keep the running sum in what
it says, summarise when asked). Prints, for our pipeline and for a naive agent that summarises
(sharing the cached prefix) whenever the context reaches 60% of the window and keeps nothing else,
the money at DeepSeek prices, requests, compactions and whether the task finished.

    .venv/bin/python benchmarks/live_files.py [--files 40] [--window 32000]
"""

from __future__ import annotations

import argparse
import asyncio
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT), str(ROOT / "src")]

from tests.e2e.scripted import FileTaskAgent, is_summary_request, make_project, task_text  # noqa: E402
from tests.fakes.openai_server import FakeOpenAIServer  # noqa: E402

from compact_agent.agent.runner import AgentSession, SessionOptions  # noqa: E402
from compact_agent.config import Settings  # noqa: E402
from compact_agent.models import REGISTRY  # noqa: E402

MODEL = "deepseek-chat"

NAIVE = dict(priced_compaction=False, adaptive_output_reserve=False, collapse_enabled=False,
             microcompact_trigger=10**6, memory_enabled=False, restore_max_files=0, user_messages_budget=0,
             tool_result_room_share=100.0)


def naive_settings(window: int) -> Settings:
    """Thresholds only, no view layers, nothing restored: a summary when the context reaches 60%."""
    reserve = min(8_192, window // 4)
    return Settings(**NAIVE, autocompact_buffer=max(0, window - reserve - int(0.6 * window)))


async def run(kind: str, files: int, window: int) -> dict:
    with tempfile.TemporaryDirectory() as tmp:
        cwd = Path(tmp) / "project"
        expected = make_project(cwd, files, filler_chars=4_000)
        agent = FileTaskAgent(files)
        settings = Settings() if kind == "ours" else naive_settings(window)
        with FakeOpenAIServer(agent, model=MODEL, window=window) as server:
            seen: list[dict] = []
            original = server._complete

            def complete(req, original=original, seen=seen):
                out = original(req)
                seen.append(out["usage"])
                return out

            server._complete = complete  # type: ignore[method-assign]
            opts = SessionOptions(cwd=cwd, model=MODEL, base_url=server.base_url, api_key="k", context_window=window,
                                  permission_mode="yes", home=Path(tmp) / "home", settings=settings)
            s = AgentSession(opts)
            if kind != "ours":
                s.cm.limits = s.cm.limits.__class__(**{**s.cm.limits.__dict__, "user_messages_budget": 0})
            try:
                out = await s.run_turn(task_text(files))
            finally:
                await s.aclose()
            info = REGISTRY[MODEL]
            cost = sum(info.cost(u["prompt_tokens"], u["prompt_tokens_details"]["cached_tokens"], u["completion_tokens"])
                       for u in seen)
            hit = sum(u["prompt_tokens_details"]["cached_tokens"] for u in seen)
            miss = sum(u["prompt_tokens"] for u in seen) - hit
            out_tokens = sum(u["completion_tokens"] for u in seen)
            return {"hit": hit, "miss": miss, "out": out_tokens, "kind": kind, "ok": out.output == f"FINAL SUM: {expected}", "requests": len(seen),
                    "summaries": sum(1 for r in server.requests if is_summary_request(r)),
                    "compactions": len(s.cm.compactions), "rejected": len(server.rejected),
                    "micro_usd": round(cost * 1e6), "peak": max(u["prompt_tokens"] for u in seen)}


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--files", type=int, default=40)
    ap.add_argument("--window", type=int, default=32_000)
    a = ap.parse_args()
    rows = [asyncio.run(run(kind, a.files, a.window)) for kind in ("ours", "naive")]
    print(f"{a.files} files of 4 KB, window {a.window:,}, DeepSeek prices")
    print(f"{'agent':6} {'done':>5} {'requests':>9} {'summaries':>10} {'rejected':>9} {'peak':>7} {'hit':>8} "
          f"{'miss':>7} {'output':>7} {'micro-USD':>10}")
    for r in rows:
        print(f"{r['kind']:6} {str(r['ok']):>5} {r['requests']:>9} {r['summaries']:>10} {r['rejected']:>9} "
              f"{r['peak']:>7,} {r['hit']:>8,} {r['miss']:>7,} {r['out']:>7,} {r['micro_usd']:>10,}")
    print(f"ours / naive: {rows[0]['micro_usd'] / rows[1]['micro_usd']:.2f}")


if __name__ == "__main__":
    main()
