"""Print mode's `json` and `stream-json` lines write every character a terminal obeys as an escape.

json.dumps escapes the C0 controls, but wrote DEL, the C1 controls (`\\u009d` is an OSC by itself:
a window title, a clipboard write; `\\u009b` a CSI: clear the screen) and the bidirectional
overrides as they are, from the model's answer, a file name, a command's output, an endpoint's error
message; a terminal the JSON was printed to obeyed them. Each is a `\\uXXXX` escape now: the lines
are the same JSON, with the same values once read."""

from __future__ import annotations

import asyncio
import contextlib
import io
import json
from pathlib import Path
from typing import Any

import pytest

from compact_agent.agent.run.options import SessionOptions
from compact_agent.config import Settings
from compact_agent.ui.print_mode import run_print
from tests.fakes.openai_server import FakeOpenAIServer, Reply

#: DEL, C1 and the bidirectional marks the text output shows as escapes (ui/visible.py).
STEERING = {0x7F, *range(0x80, 0xA0), 0x200E, 0x200F, *range(0x202A, 0x202F), *range(0x2066, 0x206A)}
ANSWER = "C1: \x9d0;TITLE\x9c \x9d52;c;cHduZWQ=\x9c \x9b2J \u202eRLO\u202c del\x7f done é"
FILE = "n\x9d0;FILE\x9c\u202e.txt"


def raw_steering(text: str) -> list[str]:
    return [hex(ord(c)) for c in text if ord(c) in STEERING or (ord(c) < 0x20 and c != "\n")]


def run(tmp_path: Path, server: FakeOpenAIServer, output_format: str) -> tuple[int, str]:
    opts = SessionOptions(cwd=tmp_path / "project", model="fake-model", base_url=server.base_url, api_key="k",
                          context_window=32_000, home=tmp_path / f"home-{output_format}", permission_mode="yes",
                          settings=Settings(memory_enabled=False))
    out = io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(io.StringIO()):
        code = asyncio.run(run_print(opts, "go", output_format))
    return code, out.getvalue()


@pytest.mark.parametrize("output_format", ["json", "stream-json"])
def test_controls_from_the_model_files_and_commands_are_escaped_in_json_lines(tmp_path: Path,
                                                                              output_format: str) -> None:
    (tmp_path / "project").mkdir()
    (tmp_path / "project" / FILE).write_text("x\n")
    steps = iter([Reply.tools([("bash", {"command": "ls; printf 'B\\302\\2350;OUT\\302\\234\\n'"}),
                               ("glob", {"pattern": "*"})]),
                  Reply.text(ANSWER)])
    with FakeOpenAIServer(lambda req: next(steps)) as server:
        code, out = run(tmp_path, server, output_format)
    assert code == 0, out
    assert raw_steering(out) == []  # nothing a terminal obeys, in any line
    objects: list[dict[str, Any]] = [json.loads(line) for line in out.splitlines()]  # each line still JSON
    assert objects[-1]["type"] == "result" and objects[-1]["result"] == ANSWER  # the same value, read back
    assert "\\u009d0;TITLE\\u009c" in out and "\\u202e" in out and "\\u007f" in out
    assert "é" in out  # a letter stays itself
    if output_format == "stream-json":
        (bash,) = [o for o in objects if o["type"] == "tool_result" and o["tool"] == "bash"]
        assert "n\u202e.txt\nB\nexit code: 0" in bash["content"]  # ls's file name, its override read back


def test_an_endpoints_error_message_is_escaped_in_the_error_object(tmp_path: Path) -> None:
    (tmp_path / "project").mkdir()
    said = "bad \x9d0;ERRTITLE\x9c \u202eRLO"
    error = Reply.error(400, {"error": {"message": said, "type": "invalid_request_error"}})
    with FakeOpenAIServer(lambda req: error) as server:
        code, out = run(tmp_path, server, "json")
    assert code == 1
    assert raw_steering(out) == []
    (result,) = [json.loads(line) for line in out.splitlines()]
    assert result["is_error"] and "\x9d0;ERRTITLE\x9c \u202eRLO" in result["error"]


def test_the_result_object_of_a_terminated_run_is_escaped_too(monkeypatch: pytest.MonkeyPatch,
                                                               capfd: pytest.CaptureFixture[str]) -> None:
    # written by stop_signals with os.write, past print mode's writer
    from compact_agent import stop_signals

    monkeypatch.setattr(stop_signals, "_state", stop_signals._State(json_result=True))
    stop_signals.reporting(lambda: {"permission_denials": [f"bash: cat '{FILE}'"]})
    stop_signals._say("terminated (SIGTERM)", "SIGTERM", "error_terminated")
    out = capfd.readouterr().out
    assert raw_steering(out) == []
    assert json.loads(out)["permission_denials"] == [f"bash: cat '{FILE}'"]
