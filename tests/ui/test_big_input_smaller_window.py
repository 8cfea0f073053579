"""In the REPL, input that fits the window the agent was given but not the server's own (a
llama.cpp server started with 8K, `--context-window 32k`): refused, the message is cut as input
too large for a known window is (the typed line whole, the input's two ends and the file that
holds it), one line says so, and the request goes again. Before, the reactive compaction folded it
into a record of its first few hundred characters: the question at its end never reached the model."""

from __future__ import annotations

import re
from pathlib import Path

from tests.fakes.openai_server import FakeOpenAIServer, Reply, message_text

from .repl_driver import drive, pasted

QUESTION = "which entry is the odd one out? (QUESTION-AT-THE-END)"
LINE = "is more than the 5,200 at which the conversation is compacted in the 8,000-token window of the server at"


def answers(seen: list[str]):
    def answer(req) -> Reply:
        seen.append("\n".join(message_text(m) for m in req.messages if m.get("role") == "user"))
        return Reply.text("SAW THE QUESTION" if QUESTION in seen[-1] else "NO QUESTION")
    return answer


def saved(text: str) -> Path:
    found = re.search(r"Full input saved to (\S+) ", text)
    assert found is not None, text[-600:]
    return Path(found.group(1))


async def test_a_paste_the_server_refuses_goes_as_its_ends_and_a_file(tmp_path: Path) -> None:
    paste = " ".join(f"entry-{i}" for i in range(3_000)) + " " + QUESTION  # ~7K tokens: one line
    seen: list[str] = []
    with FakeOpenAIServer(answers(seen), window=8_000, overflow="llama.cpp") as server:
        run = await drive(tmp_path, answers(seen), [pasted(paste) + "\r"], server=server, context_window=32_000)
    assert len(server.rejected) == 1 and "SAW THE QUESTION" in run.out, run.out
    lines = [line for line in run.out.splitlines() if LINE in line]
    assert len(lines) == 1, run.out
    path = saved(seen[-1])
    assert path.read_text() == paste and str(path) in "".join(run.out.split())  # wrapped at 200 columns
    assert seen[-1].startswith("entry-0 entry-1 ") and "entry-1500 " not in seen[-1]


async def test_a_commands_output_the_server_refuses_leaves_the_typed_line_whole(tmp_path: Path) -> None:
    seen: list[str] = []
    with FakeOpenAIServer(answers(seen), window=8_000, overflow="vllm") as server:
        run = await drive(tmp_path, answers(seen), ["!seq 1 6000\r", QUESTION + "\r"], server=server,
                          context_window=32_000)
    assert len(server.rejected) == 1 and "SAW THE QUESTION" in run.out, run.out
    assert len([line for line in run.out.splitlines() if LINE in line]) == 1, run.out
    assert seen[-1].startswith(f"{QUESTION}\n\nI ran this shell command myself:\n$ seq 1 6000\n1\n2\n"), seen[-1][:300]
    assert "\n5999\n6000" in seen[-1] and "\n3000\n" not in seen[-1]
    assert "\n3000\n" in saved(seen[-1]).read_text()
