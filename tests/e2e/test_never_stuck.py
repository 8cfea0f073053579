"""One round bigger than the window never ends a session: the next request fits, and so do the
summary request, the next turn and `/compact`. Against the strict fake provider, which refuses any
request over its window with the provider's own "maximum context length" error."""

from __future__ import annotations

import json
from pathlib import Path

from rich.console import Console

from compact_agent.config import Settings
from compact_agent.ui.commands import dispatch
from tests.fakes.openai_server import ChatRequest, FakeOpenAIServer, Reply, message_text
from tests.reliability.common import session

from .scripted import is_summary_request

WINDOW = 32_000


def big_files(cwd: Path, n: int, size: int) -> list[str]:
    (cwd / "src").mkdir(parents=True, exist_ok=True)
    names = []
    for k in range(n):
        line = f"def function_{k}_{{i}}(x): return x * {k}  # padding padding padding\n"
        body = "".join(line.replace("{i}", str(i)) for i in range(size // len(line) + 1))[:size]
        (cwd / "src" / f"mod_{k}.py").write_text(body)
        names.append(f"src/mod_{k}.py")
    return names


class Parallel:
    """Reads every file in one response, then answers; a summary request gets a summary."""

    def __init__(self, calls: list[tuple[str, dict]]) -> None:
        self.calls = calls
        self.turns = 0

    def __call__(self, req: ChatRequest) -> Reply:
        if is_summary_request(req):
            return Reply.text("<summary>The user asked to read the modules; they were read in full.</summary>")
        last = req.messages[-1]
        if last.get("role") == "user":
            self.turns += 1
            if self.turns == 1:
                return Reply.tools(self.calls, content="Reading everything at once.")
            return Reply.text("Second answer: the modules define functions.")
        return Reply.text("Done: all modules read.")


async def test_eight_parallel_reads_of_40kb_files_fit_a_32k_window_and_the_session_goes_on(tmp_path: Path):
    cwd = tmp_path / "project"
    names = big_files(cwd, 8, 40_000)  # 320 KB: about 80K tokens in one round
    model = Parallel([("read_file", {"path": p}) for p in names])
    with FakeOpenAIServer(model, window=WINDOW) as server:
        s = session(tmp_path / "home", cwd, server, window=WINDOW, settings=Settings())
        out = await s.run_turn("Read all the modules under src/ at once.")
        again = await s.run_turn("What do they define?")
        console = Console(record=True, width=120)
        await dispatch(s, "/compact", console)
        await s.aclose()
    assert out.output == "Done: all modules read." and again.output.startswith("Second answer")
    assert not server.rejected, [r[2] for r in server.rejected]
    assert server.requests and max(r.prompt_tokens for r in server.requests) < WINDOW
    # The round that read everything reached the model: every file is there, each within the budget.
    after_reads = next(r for r in server.requests if any(m.get("role") == "tool" for m in r.messages))
    tool_texts = [message_text(m) for m in after_reads.messages if m.get("role") == "tool"]
    assert len(tool_texts) == 8 and all("function_" in t for t in tool_texts)
    assert sum(len(t) for t in tool_texts) < 320_000 // 2
    assert any(is_summary_request(r) for r in server.requests)  # /compact asked for a summary, and it fit
    assert "full transcript archived at" in " ".join(console.export_text().split())  # /compact went through


class BigWrite:
    """Writes a one-megabyte file, then answers."""

    def __call__(self, req: ChatRequest) -> Reply:
        if is_summary_request(req):
            return Reply.text("<summary>The user asked for a big generated file; it was written.</summary>")
        if req.messages[-1].get("role") == "user":
            return Reply.tools([("write_file", {"path": "big.txt", "content": "0123456789abcdef\n" * 62_000})],
                               content="Writing the file.")
        return Reply.text("Wrote big.txt.")


async def test_a_megabyte_write_file_call_does_not_fill_the_next_request(tmp_path: Path):
    cwd = tmp_path / "project"
    cwd.mkdir(parents=True)
    with FakeOpenAIServer(BigWrite(), window=WINDOW, chars_per_token=4.0) as server:
        s = session(tmp_path / "home", cwd, server, window=WINDOW, settings=Settings())
        out = await s.run_turn("Generate big.txt.")
        await s.aclose()
    assert out.output == "Wrote big.txt."
    assert (cwd / "big.txt").stat().st_size == 17 * 62_000  # the call ran with its whole argument
    assert not server.rejected, [r[2] for r in server.rejected]
    after = server.requests[-1]
    assert after.prompt_tokens < WINDOW
    call = next(m for m in after.messages if m.get("tool_calls"))
    args = json.loads(call["tool_calls"][0]["function"]["arguments"])
    assert args["path"] == "big.txt" and "omitted from the context" in args["content"]
