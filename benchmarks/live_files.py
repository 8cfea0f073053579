"""The agent reading N files of 4 KB in a small window, then editing early ones, against the strict fake, priced.

The fake speaks the OpenAI wire protocol with DeepSeek's usage fields (cached prompt tokens by
longest common prefix with an earlier request), refuses any request over its window, and answers as
a model would (tests/e2e/scripted_edits.py: read the files one at a time keeping the running sum in
what it says, then edit line 3 of file_00, file_02, … — reading a file again first when the exact
old line is no longer in its prompt — and answer the sum; summarise when asked). Forgetting is thus
priced: every look-again is one more request, and its file one more stretch of uncached prompt.

Two agents do the task. "ours" is AgentSession with default Settings. "naive" is written here, on
purpose independent of compact_agent: a plain chat-completions loop over HTTP with its own read_file
and edit_file, which, when the context reaches 60% of the window, asks for a summary by sending the
same conversation with the summary instruction appended last (so the prefix is a cache hit) and then
goes on from [system, task, summary] alone. For each: micro-USD at DeepSeek prices from the usage the
fake reports, requests, look-agains, compactions, rejected requests, whether the task finished.

    .venv/bin/python benchmarks/live_files.py [--files 40] [--window 32000] [--edits 10] [--stall-wait-usd 0]
                                              [--latency-s 0] [--same-prompt] [--sweep]

Ours sends its own system prompt and seven tool definitions on every request, about a thousand
tokens more than the naive agent's two. --same-prompt adds a row "naive+": the naive agent sending
ours' system prompt and tool definitions as ours sent them (still its own loop and tools), so the
context handling is compared apart from the prompt's length.

Ours weighs the user's wait for each look-again against the tokens a compaction saves: the configured
price of a 5-s round trip (`stall_wait_usd`), scaled by the round trips the session timed. The fake
answers at once, so by default that wait is nearly free; --latency-s makes each answer take that long
(for real: 61 requests at 5 s are five minutes), as an endpoint would. --stall-wait-usd adds a row
"ours*": ours with another configured price. The figures count tokens only.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
import tempfile
import time
import urllib.error
import urllib.request
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT), str(ROOT / "src")]

from tests.e2e.scripted import SUMMARY_MARK, is_summary_request, make_project  # noqa: E402
from tests.e2e.scripted_edits import FileEditTaskAgent, edit_task_text, edits_applied  # noqa: E402
from tests.fakes.openai_server import FakeOpenAIServer  # noqa: E402

MODEL = "deepseek-chat"
# DeepSeek V3.2, USD per million tokens: cache hit, cache miss, output. The same figures as the
# project's model registry, written out so the naive side owes compact_agent nothing.
HIT, MISS, OUT = 0.028, 0.28, 0.42

Usage = dict[str, Any]


def price(usage: Usage) -> float:
    """USD of one request from the usage the provider reported."""
    hit = usage["prompt_tokens_details"]["cached_tokens"]
    return ((usage["prompt_tokens"] - hit) * MISS + hit * HIT + usage["completion_tokens"] * OUT) / 1e6


# ------------------------------------------------------------------------------------ the naive agent

NAIVE_SYSTEM = "You are a coding agent. Use the tools to read and edit files in the project, then answer."
NAIVE_SUMMARY = (f"{SUMMARY_MARK}. Summarise the conversation so far: the user's task in their words, what has "
                 "been done, the current state and the next step. Wrap it in <summary></summary>.")
NAIVE_TOOLS = [
    {"type": "function", "function": {
        "name": "read_file", "description": "Read a text file of the project; lines are numbered.",
        "parameters": {"type": "object", "properties": {"path": {"type": "string"}}, "required": ["path"]}}},
    {"type": "function", "function": {
        "name": "edit_file", "description": "Replace old_string, which must occur exactly once, with new_string.",
        "parameters": {"type": "object", "properties": {
            "path": {"type": "string"}, "old_string": {"type": "string"}, "new_string": {"type": "string"}},
            "required": ["path", "old_string", "new_string"]}}},
]


@dataclass
class NaiveAgent:
    """mini-swe-agent-sized: one list of messages, a summary at 60% of the window, nothing restored."""

    base_url: str
    cwd: Path
    window: int
    model: str = MODEL
    api_key: str = "k"
    system: str = NAIVE_SYSTEM
    tools: list[dict[str, Any]] = field(default_factory=lambda: NAIVE_TOOLS)
    share: float = 0.6
    max_requests: int = 500
    usages: list[Usage] = field(default_factory=list)
    compactions: int = 0
    rejected: int = 0
    messages: list[dict[str, Any]] = field(default_factory=list)

    @property
    def max_tokens(self) -> int:
        return min(8_192, self.window // 4)

    def run(self, task: str) -> str:
        self.messages = [{"role": "system", "content": self.system}, {"role": "user", "content": task}]
        added = 0  # characters appended since the last reported prompt size
        for _ in range(self.max_requests):
            last = self.usages[-1]["prompt_tokens"] + self.usages[-1]["completion_tokens"] if self.usages else 0
            if self.usages and last + added // 4 >= self.share * self.window:
                self.compact()
            reply = self.ask(self.messages)
            if reply is None:  # over the window after all: compact, then try once more
                self.compact()
                reply = self.ask(self.messages)
                if reply is None:
                    return "(gave up: over the window)"
            added = 0  # the usage just reported covers everything sent so far
            self.messages.append({k: v for k, v in reply.items() if k in ("role", "content", "tool_calls")})
            if not reply.get("tool_calls"):
                return reply.get("content") or ""
            for call in reply["tool_calls"]:
                result = self.tool(call["function"]["name"], call["function"]["arguments"])
                self.messages.append({"role": "tool", "tool_call_id": call["id"], "content": result})
                added += len(result)
        return "(gave up: too many requests)"

    def compact(self) -> None:
        """Ask for a summary on the cached prefix, then keep the system prompt, the task and the summary."""
        reply = self.ask(self.messages + [{"role": "user", "content": NAIVE_SUMMARY}])
        summary = (reply or {}).get("content") or "(no summary)"
        self.messages = self.messages[:2] + [{"role": "user", "content": f"Summary of the work so far:\n{summary}"}]
        self.compactions += 1

    def ask(self, messages: list[dict[str, Any]]) -> dict[str, Any] | None:
        """One chat completion; None when the provider refuses it as over the window."""
        body = {"model": self.model, "messages": messages, "tools": self.tools, "max_tokens": self.max_tokens}
        req = urllib.request.Request(f"{self.base_url}/chat/completions", data=json.dumps(body).encode(),
                                     headers={"Content-Type": "application/json",
                                              "Authorization": f"Bearer {self.api_key}"})
        try:
            with urllib.request.urlopen(req, timeout=60) as resp:
                out = json.loads(resp.read())
        except urllib.error.HTTPError as e:
            detail = json.loads(e.read() or b"{}").get("error", {})
            if e.code == 400 and detail.get("code") == "context_length_exceeded":
                self.rejected += 1
                return None
            raise RuntimeError(f"provider error {e.code}: {detail.get('message', '')}") from None
        self.usages.append(out["usage"])
        return dict(out["choices"][0]["message"])

    def tool(self, name: str, arguments: str) -> str:
        try:
            args = json.loads(arguments)
            p = (self.cwd / args["path"]).resolve()
            if not p.is_relative_to(self.cwd.resolve()):
                return f"refused: {args['path']} is outside the project"
            text = p.read_text()
            if name == "read_file":
                return "\n".join(f"{i:6}\t{line}" for i, line in enumerate(text.splitlines(), 1))
            if name == "edit_file":
                found = text.count(args["old_string"])
                if found != 1:
                    return f"old_string occurs {found} times in {args['path']}; it must occur exactly once"
                p.write_text(text.replace(args["old_string"], args["new_string"], 1))
                return f"Edited {args['path']}."
            return f"unknown tool {name}"
        except (OSError, ValueError, KeyError) as e:
            return f"error: {e}"


# ---------------------------------------------------------------------------------------------- runs

def _recording(server: FakeOpenAIServer, seen: list[Usage], latency_s: float = 0.0) -> Callable[[Any], dict[str, Any]]:
    original = server._complete

    def complete(req: Any) -> dict[str, Any]:
        out = original(req)
        seen.append(out["usage"])
        time.sleep(latency_s)  # a benchmark, not a test: the endpoint's round trip, for real
        return out
    return complete


async def _ours(cwd: Path, home: Path, base_url: str, window: int, task: str,
                settings: dict[str, Any]) -> tuple[str, int]:
    from compact_agent.agent.run.options import SessionOptions
    from compact_agent.agent.run.runner import AgentSession
    from compact_agent.config import Settings

    opts = SessionOptions(cwd=cwd, model=MODEL, base_url=base_url, api_key="k", context_window=window,
                          permission_mode="yes", home=home, settings=Settings(**settings))
    s = AgentSession(opts)
    try:
        out = await s.run_turn(task)
    finally:
        await s.aclose()
    return str(out.output), len(s.cm.compactions)


def run(kind: str, files: int, window: int, edits: int, settings: dict[str, Any] | None = None,
        latency_s: float = 0.0, prompt: tuple[str, list[dict[str, Any]]] | None = None) -> dict[str, Any]:
    """One agent over the task. `prompt`: the naive agent's system prompt and tool definitions, when
    not its own (naive+ sends ours', as ours sent them)."""
    with tempfile.TemporaryDirectory() as tmp:
        cwd = Path(tmp) / "project"
        expected = make_project(cwd, files, filler_chars=4_000)
        model = FileEditTaskAgent(files, edits=edits)
        task = edit_task_text(files, edits)
        seen: list[Usage] = []
        with FakeOpenAIServer(model, model=MODEL, window=window) as server:
            server._complete = _recording(server, seen, latency_s)  # type: ignore[method-assign]
            if kind.startswith("ours"):
                output, compactions = asyncio.run(_ours(cwd, Path(tmp) / "home", server.base_url, window, task,
                                                        settings or {}))
            else:
                system, tools = prompt or (NAIVE_SYSTEM, NAIVE_TOOLS)
                naive = NaiveAgent(server.base_url, cwd, window, system=system, tools=tools)
                output, compactions = naive.run(task), naive.compactions
            applied = edits_applied(cwd, files, edits)
        hit = sum(u["prompt_tokens_details"]["cached_tokens"] for u in seen)
        return {"kind": kind, "ok": output == f"FINAL SUM: {expected}" and applied == edits, "requests": len(seen),
                "rereads": model.rereads, "summaries": sum(1 for r in server.requests if is_summary_request(r)),
                "compactions": compactions, "rejected": len(server.rejected), "hit": hit,
                "miss": sum(u["prompt_tokens"] for u in seen) - hit, "out": sum(u["completion_tokens"] for u in seen),
                "peak": max(u["prompt_tokens"] for u in seen), "micro_usd": round(sum(map(price, seen)) * 1e6),
                "edits": applied, "prompt": (server.requests[0].messages[0].get("content") or "", server.requests[0].tools)}


SWEEP = [(40, 10, 32_000), (30, 5, 32_000), (40, 5, 32_000), (40, 20, 32_000), (50, 10, 32_000),
         (60, 10, 32_000), (20, 10, 16_000), (25, 8, 16_000), (30, 10, 24_000), (40, 10, 64_000),
         (80, 20, 64_000), (120, 20, 128_000)]
"""(files, edits, window) for --sweep: the headline case, then more or fewer files and edits, and
smaller and larger windows."""


def sweep(latency_s: float) -> None:
    """Ours against the naive agent over SWEEP: micro-USD each, the ratios, and the totals."""
    print(f"DeepSeek prices, {latency_s:g} s per answer; micro-USD (ours / naive, ours / naive+)")
    print(f"{'files':>5} {'edits':>5} {'window':>7} {'ours':>8} {'naive':>8} {'naive+':>8} {'/naive':>7} {'/naive+':>8}")
    totals = [0, 0, 0]
    for files, edits, window in SWEEP:
        ours = run("ours", files, window, edits, latency_s=latency_s)
        naive = run("naive", files, window, edits, latency_s=latency_s)
        plus = run("naive+", files, window, edits, latency_s=latency_s, prompt=ours["prompt"])
        costs = [r["micro_usd"] for r in (ours, naive, plus)]
        if not all(r["ok"] for r in (ours, naive, plus)):
            print(f"{files:>5} {edits:>5} {window:>7,} a run did not finish the task")
        totals = [t + c for t, c in zip(totals, costs, strict=True)]
        print(f"{files:>5} {edits:>5} {window:>7,} {costs[0]:>8,} {costs[1]:>8,} {costs[2]:>8,} "
              f"{costs[0] / costs[1]:>7.4f} {costs[0] / costs[2]:>8.4f}")
    print(f"{'all':>19} {totals[0]:>8,} {totals[1]:>8,} {totals[2]:>8,} {totals[0] / totals[1]:>7.4f} "
          f"{totals[0] / totals[2]:>8.4f}")


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--files", type=int, default=40)
    ap.add_argument("--window", type=int, default=32_000)
    ap.add_argument("--edits", type=int, default=10)
    ap.add_argument("--stall-wait-usd", type=float, default=None,
                    help="also run ours (as ours*) with this value of the user's wait per look-again (default "
                         "0.02), which its compaction schedule weighs and these token prices do not count")
    ap.add_argument("--latency-s", type=float, default=0.0,
                    help="seconds the fake takes to answer each request (default 0); ours times its requests "
                         "and prices the user's wait for a look-again by them")
    ap.add_argument("--same-prompt", action="store_true",
                    help="also run the naive agent (as naive+) with ours' system prompt and tool definitions, "
                         "as ours sent them: what the context handling costs apart from the longer prompt")
    ap.add_argument("--sweep", action="store_true",
                    help="run ours, naive and naive+ over a fixed grid of files, edits and windows (SWEEP) "
                         "instead of one case: one scenario's compaction points can land unluckily")
    a = ap.parse_args()
    if a.sweep:
        sweep(a.latency_s)
        return
    rows = [run(kind, a.files, a.window, a.edits, latency_s=a.latency_s) for kind in ("ours", "naive")]
    if a.stall_wait_usd is not None:
        rows.append(run("ours*", a.files, a.window, a.edits, {"stall_wait_usd": a.stall_wait_usd}, a.latency_s))
    if a.same_prompt:
        rows.append(run("naive+", a.files, a.window, a.edits, latency_s=a.latency_s, prompt=rows[0]["prompt"]))
    print(f"{a.files} files of 4 KB, {a.edits} edits of early files, window {a.window:,}, DeepSeek prices, "
          f"{a.latency_s:g} s per answer")
    print(f"{'agent':6} {'done':>5} {'requests':>9} {'re-reads':>9} {'compactions':>12} {'rejected':>9} {'peak':>7} "
          f"{'hit':>8} {'miss':>7} {'output':>7} {'micro-USD':>10}")
    for r in rows:
        print(f"{r['kind']:6} {str(r['ok']):>5} {r['requests']:>9} {r['rereads']:>9} {r['compactions']:>12} "
              f"{r['rejected']:>9} {r['peak']:>7,} {r['hit']:>8,} {r['miss']:>7,} {r['out']:>7,} {r['micro_usd']:>10,}")
    for r in rows:
        if r["kind"].startswith("ours"):
            print(f"{r['kind']} / naive: {r['micro_usd'] / rows[1]['micro_usd']:.4f}")
        elif r["kind"] == "naive+":
            print(f"ours / naive+ (the same system prompt and tools): {rows[0]['micro_usd'] / r['micro_usd']:.4f}")


if __name__ == "__main__":
    main()
