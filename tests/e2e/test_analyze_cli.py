"""`compact-agent analyze` as a script or a file gets it: plain lines, and the endpoint for --model
found where the chat command finds its own."""

from __future__ import annotations

import json
from pathlib import Path

from tests.fakes.openai_server import FakeOpenAIServer, Reply


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


KEY = "sk-analyze-endpoint-0123456789"


def summary(req) -> Reply:
    return Reply.text("<summary>the work so far</summary>")


def test_analyze_model_finds_its_endpoint_as_the_chat_does(cli, tmp_path):
    """`analyze --model` sent its summaries to the provider's own endpoint whatever the config file
    or the top-level --base-url said: only its own --base-url counted. Now: its own flag, then the
    top-level one, then the config (a project file's only in a trusted project: the key goes there)."""
    transcript = tmp_path / "long.json"
    transcript.write_text(json.dumps(chat(30, 4_000)))
    args = ("analyze", str(transcript), "--window", "8000", "-s", "codex", "--json", "--model", "fake-model",
            "--api-key", KEY)
    config = cli.home / "config.toml"
    config.parent.mkdir(parents=True, exist_ok=True)
    with FakeOpenAIServer(summary, api_key=KEY) as in_file, FakeOpenAIServer(summary, api_key=KEY) as top, \
            FakeOpenAIServer(summary, api_key=KEY) as own, FakeOpenAIServer(summary) as project:
        config.write_text(f'base_url = "{in_file.base_url}"\n')
        (cli.cwd / ".compact-agent.toml").write_text(f'base_url = "{project.base_url}"\n')  # not trusted
        runs = {"file": cli(*args), "top": cli("--base-url", top.base_url, *args),
                "own": cli("--base-url", top.base_url, *args, "--base-url", own.base_url)}
        (cli.cwd / ".compact-agent.toml").unlink()
        config.write_text('base_url = "notaurl"\n')
        bad = cli(*args)
        config.unlink()
    for name, res in runs.items():
        assert res.code == 0, (name, res.stderr)
        [codex] = json.loads(res.stdout)["transcripts"][0]["results"]
        assert codex["compactions"] >= 1 and codex["failed_compactions"] == 0, name
        assert KEY not in res.stdout + res.stderr
    assert len(in_file.requests) == json.loads(runs["file"].stdout)["transcripts"][0]["results"][0]["compactions"]
    assert top.requests and own.requests and not project.requests  # each run went where it was told
    assert not (in_file.rejected or top.rejected or own.rejected)  # with the key given
    assert "base_url ignored: the project is not trusted" in runs["file"].stderr
    assert bad.code == 2 and bad.stderr == f"compact-agent: base_url in {config}: 'notaurl' is not an http:// or " \
        "https:// address (e.g. http://localhost:8000/v1)\n", bad.stderr
    assert cli.sessions() == []
