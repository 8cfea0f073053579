"""`compact-agent analyze` as a script or a file gets it: plain lines, and the endpoint for --model
found where the chat command finds its own."""

from __future__ import annotations

import json
from pathlib import Path


def chat(n_tools: int, result_chars: int) -> list[dict]:
    """An OpenAI chat transcript: `n_tools` bash calls, each with a result of `result_chars`."""
    out: list[dict] = [{"role": "user", "content": "go"}]
    for i in range(n_tools):
        out.append({"role": "assistant", "content": f"step {i}", "tool_calls": [
            {"id": f"c{i}", "type": "function", "function": {"name": "bash", "arguments": "{}"}}]})
        out.append({"role": "tool", "tool_call_id": f"c{i}", "content": "x" * result_chars})
    out.append({"role": "assistant", "content": "done"})
    return out


def transcripts(folder: Path, n_tools: int = 12, result_chars: int = 2_000) -> Path:
    for name in ("a", "b"):
        (folder / name).mkdir(parents=True, exist_ok=True)
        (folder / name / "chat.json").write_text(json.dumps(chat(n_tools, result_chars)))
    return folder


def test_tables_to_a_file_or_a_pipe_have_no_trailing_spaces(cli, tmp_path):
    """The 80-column tables (and the wider ones COLUMNS asks for) were padded to the width with
    spaces at the end of every line: noise in a diff, a mail or a CI log."""
    folder = transcripts(tmp_path / "t")
    for columns in ("", "200"):
        res = cli("analyze", str(folder), "--window", "4000", "-s", "ours", "-s", "none", "--plot",
                  str(tmp_path / "chart.svg"), env={"COLUMNS": columns})
        assert res.code == 0, res.stderr
        lines = res.stdout.splitlines()
        assert any("strategy" in line for line in lines) and "Total over 2 transcripts" in res.stdout
        assert lines[-1] == f"chart written to {tmp_path / 'chart.svg'}" and res.stdout.endswith("\n")
        padded = [line for line in lines if line != line.rstrip()]
        assert padded == [], (columns, padded)
        table = [line for line in lines if "chat.json" not in line and not line.startswith("chart")]  # paths: whole
        assert max(map(len, table)) <= (80 if not columns else 200)
