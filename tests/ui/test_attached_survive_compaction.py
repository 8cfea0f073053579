"""Files attached to a message reach the model, also when attaching them fills the window so that
the turn's first request must make room: a compaction keeps what was just attached with the message
(cuts.tail_start), and summarises only what came before."""

from __future__ import annotations

from tests.fakes.openai_server import Reply

from .repl_driver import drive


def _line(name: str, i: int) -> str:
    return f"{name} line {i:03d}: " + "lorem ipsum dolor sit amet " + "x" * 12 + "\n"


async def test_files_attached_to_a_message_that_fills_the_window_reach_the_model(tmp_path):
    cwd = tmp_path / "project"
    cwd.mkdir()
    for name in ("p", "q", "r"):
        (cwd / f"{name}.txt").write_text("".join(_line(name, i) for i in range(1, 131)))
    run = await drive(tmp_path, lambda req: Reply.text("ok"), ["one @p.txt\r", "more @r.txt\r", "two @q.txt @r.txt\r"],
                      context_window=16_000)
    assert not run.server.rejected
    last = run.server.requests[-1]
    sent = str(last.messages)
    assert "two @q.txt @r.txt" in sent
    for name in ("q", "r"):
        assert f"{name} line 001:" in sent, f"{name}.txt is not in the request: {sent[-3000:]}"
