"""A fit on one recorded request passes through it, so its error is 0 by construction: the caption
said "fit error 0.0% mean / 0.0% max", which reads as a perfect fit (Claude Code's compaction
requests, `agent-acompact-*.jsonl`, are fitted so, their overhead then capped at 40K and far from
what was recorded). It says the fit rests on one request instead; with more, the error is shown."""

from __future__ import annotations

import json
from pathlib import Path

from .test_cli_analyze import cli


def _caption(tmp_path: Path, measured: int) -> str:
    chat: list[dict[str, object]] = []
    for i in range(3):
        chat.append({"role": "user", "content": f"read src/app/module_{i}.py " + "context words " * 40 * i})
        reply: dict[str, object] = {"role": "assistant", "content": f"src/app/module_{i}.py defines entry_{i}"}
        if i < measured:
            reply["usage"] = {"prompt_tokens": 400 + 150 * i, "completion_tokens": 12}
        chat.append(reply)
    (tmp_path / "t.json").write_text(json.dumps(chat))
    out = cli("t.json", "-s", "none", cwd=tmp_path)
    assert out.returncode == 0, out.stderr
    return " ".join(out.stdout.split())  # the caption as words, however it wraps


def test_a_fit_on_one_request_says_so_rather_than_a_zero_error(tmp_path: Path) -> None:
    caption = _caption(tmp_path, measured=1)
    assert "fitted on one request alone (no fit error to report)" in caption, caption
    assert "fit error" not in caption.replace("no fit error", "") and "0.0%" not in caption


def test_a_fit_on_more_requests_shows_its_error(tmp_path: Path) -> None:
    caption = _caption(tmp_path, measured=3)
    assert "fit error" in caption and "% mean /" in caption and "one request alone" not in caption, caption
