"""/compact's figures and /context's measure the same thing: what the next request sends, after the
view layers shaped it. `/compact --up-to N` counted the history as saved, a long command output
whole where the request sends its preview: `compacted (manual, partial_up_to): 25,585 → 20,218
tokens`, then /context said 7.9k (and 7.7k before it)."""

from __future__ import annotations

import re
from typing import Any

from tests.e2e.scripted import is_notes_request, is_summary_request
from tests.fakes.openai_server import Reply

from .repl_driver import drive


def model(req: Any) -> Reply:
    if is_summary_request(req):
        return Reply.text("<summary>We read two files and ran a long command.</summary>")
    if is_notes_request(req):
        return Reply.text("")
    if req.messages[-1].get("role") != "user":
        return Reply.text("done")
    asked = req.last_user_text()
    if "big" in asked:
        return Reply.tools([("bash", {"command": "seq 1 20000"})])  # its output spills to a file (L1)
    if "read" in asked:
        return Reply.tools([("read_file", {"path": f"f{i}.py"}) for i in range(2)])
    return Reply.text("ok")


def sizes(out: str) -> tuple[list[int], list[float]]:
    compacted = re.findall(r"compacted \(manual, [a-z_]+\): ([\d,]+) → ([\d,]+) tokens", out)
    shown = [float(k) * 1000 for k in re.findall(r"context ([\d.]+)k / ", out)]
    return [int(n.replace(",", "")) for pair in compacted for n in pair], shown


async def test_compact_up_to_counts_what_context_counts(tmp_path, monkeypatch) -> None:
    monkeypatch.setenv("COMPACT_AGENT_CONFIG", str(tmp_path / "none.toml"))
    (tmp_path / "project").mkdir()
    for i in range(2):
        (tmp_path / "project" / f"f{i}.py").write_text("\n".join(f"v{i}_{k} = {k}  # a line of code" for k in range(300)))
    keys = ["read the files\r", "run the big command\r", "thanks\r", "/context\r", "/compact --up-to 4\r", "/context\r"]
    run = await drive(tmp_path, model, keys, context_window=32_000, answers="y\n")
    (before, after), (shown_before, shown_after) = sizes(run.out)
    assert abs(before - shown_before) <= 60 and abs(after - shown_after) <= 60, run.out  # /context shows tenths of a 1,000
    assert after < before, run.out


async def test_compact_up_to_that_would_not_shrink_what_is_sent_changes_nothing(tmp_path, monkeypatch) -> None:
    """The first turn's reads are left out of the request once the files are read again (snip): a
    compaction of that turn alone frees nothing sent, and its summary would add to it."""
    monkeypatch.setenv("COMPACT_AGENT_CONFIG", str(tmp_path / "none.toml"))
    (tmp_path / "project").mkdir()
    for i in range(2):
        (tmp_path / "project" / f"f{i}.py").write_text("\n".join(f"v{i}_{k} = {k}  # a line of code" for k in range(300)))
    keys = ["read the files\r", "read them again\r", "/compact --up-to 4\r", "/history\r"]
    run = await drive(tmp_path, model, keys, context_window=32_000)
    out = " ".join(run.out.split())
    assert "not compacted: a compaction would keep" in out and "Nothing was changed." in out, out
    assert "compacted (manual" not in out and "no compactions yet" in out, out
