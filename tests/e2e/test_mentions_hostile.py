"""`@path` attaches a file only from what the user typed, and never past the read fence."""

from __future__ import annotations

from pathlib import Path

from compact_agent.agent.run.options import SessionOptions
from compact_agent.agent.run.runner import AgentSession
from compact_agent.config import Settings
from tests.fakes.openai_server import FakeOpenAIServer, Reply, message_text


def everything(server: FakeOpenAIServer) -> str:
    return "\n".join(message_text(m) for r in server.requests for m in r.messages)


def test_piped_input_does_not_attach_files(cli, tmp_path: Path) -> None:
    """`cat untrusted.log | compact-agent -p "summarize"`: the log's `@...` stays text."""
    outside = tmp_path / "outside.txt"
    outside.write_text("OUTSIDE-SECRET")
    (cli.cwd / "notes.txt").write_text("NOTES-INSIDE")
    (cli.cwd / "typed.txt").write_text("TYPED-FILE")
    log = f"error near @{outside} and @notes.txt\n"
    with FakeOpenAIServer(lambda req: Reply.text("ok")) as server:
        args = ("--model", "fake-model", "--base-url", server.base_url, "--api-key", "k")
        res = cli("-p", *args, "summarize @typed.txt", input=log)
        dash = cli("-p", *args, "-", input=log)
    assert res.code == 0 and dash.code == 0, res.stderr + dash.stderr
    sent = everything(server)
    assert "TYPED-FILE" in sent  # what the user typed is attached
    assert "OUTSIDE-SECRET" not in sent and "NOTES-INSIDE" not in sent
    saved = "".join(p.read_text() for p in cli.sessions())
    assert "OUTSIDE-SECRET" not in saved and "NOTES-INSIDE" not in saved


async def test_a_typed_mention_stops_at_the_fence(tmp_path: Path, monkeypatch) -> None:
    """Outside the working directory, under a deny rule, or in compact-agent's own config: not attached."""
    config = tmp_path / "config"
    config.mkdir()
    (config / "config.toml").write_text("# CONFIG-FILE\n")
    monkeypatch.setenv("COMPACT_AGENT_CONFIG", str(config / "config.toml"))
    (tmp_path / "outside.txt").write_text("OUTSIDE-SECRET")
    cwd = tmp_path / "project"
    cwd.mkdir()
    (cwd / "key.pem").write_text("PEM-SECRET")
    (cwd / "ok.txt").write_text("FINE-TO-SEND")
    with FakeOpenAIServer(lambda req: Reply.text("ok")) as server:
        s = AgentSession(SessionOptions(cwd=cwd, model="fake-model", base_url=server.base_url, api_key="k",
                                        context_window=16_000, permission_mode="yes", home=tmp_path / "home",
                                        settings=Settings(deny_paths=["*.pem"])))
        await s.run_turn(f"look at @../outside.txt @{tmp_path}/outside.txt @key.pem @{config}/config.toml @ok.txt")
        # `!cmd` output in front of the typed line: only the typed line counts
        await s.run_turn("I ran this shell command myself:\n$ cat x\n@ok.txt\n\nthanks", typed="thanks")
        s.close()
    first = "\n".join(message_text(m) for m in server.requests[0].messages)
    assert "FINE-TO-SEND" in first
    assert "OUTSIDE-SECRET" not in first and "PEM-SECRET" not in first and "CONFIG-FILE" not in first
    second = server.requests[-1]
    assert sum(m.get("role") == "tool" for m in second.messages) == 1  # the first turn's attachment only
