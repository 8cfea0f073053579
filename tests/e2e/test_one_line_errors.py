"""Each failure a user or a hostile endpoint can cause ends in one clear line: no Python class
name, no traceback, no advice about settings that do not exist."""

from __future__ import annotations

import json
import os
import re
import sys
from pathlib import Path

import pytest

from tests.fakes.openai_server import FakeOpenAIServer, Fault, Reply

CLASS_NAME = re.compile(r"\b[A-Z][a-z]+(?:[A-Z][a-z]+)+(?:Error|Exception)?:|Traceback|\[Errno|https?://")


def fake(server: FakeOpenAIServer) -> tuple[str, ...]:
    return ("--model", "fake-model", "--base-url", server.base_url, "--api-key", "k")


def one_clear_line(stderr: str) -> str:
    lines = [ln for ln in stderr.splitlines() if ln.strip()]
    assert lines and all(ln.startswith("compact-agent: ") for ln in lines), stderr
    assert not CLASS_NAME.search(stderr), stderr
    return lines[-1]


def test_a_data_dir_that_cannot_be_created(cli) -> None:
    with FakeOpenAIServer(lambda r: Reply.text("ok")) as server:
        res = cli("-p", *fake(server), "hi", env={"COMPACT_AGENT_HOME": "/proc/1"})
    assert res.code != 0
    assert "/proc/1" in one_clear_line(res.stderr)


def test_cwd_that_is_a_file(cli) -> None:
    res = cli("-p", "--cwd", "/etc/passwd", "hi")
    assert res.code == 2 and "is not a directory" in one_clear_line(res.stderr)


def test_a_table_from_the_environment_that_is_not_json(cli) -> None:
    """A list setting takes one plain string (`COMPACT_AGENT_EXTRA_DIRS=/srv/shared`, a list of one);
    a table that is not JSON is one clear line naming the variable."""
    res = cli("-p", "hi", env={"COMPACT_AGENT_MCP_SERVERS": "/"})
    line = one_clear_line(res.stderr)
    assert res.code != 0 and "mcp_servers" in line and "COMPACT_AGENT_MCP_SERVERS" in line and "EnvSettingsSource" not in line
    listed = cli("config", "--json", env={"COMPACT_AGENT_EXTRA_DIRS": "/srv/shared"})
    assert listed.code == 0 and listed.json()["settings"]["extra_dirs"]["value"] == ["/srv/shared"], listed.stderr


def test_analyze_a_fifo(cli) -> None:
    fifo = cli.cwd / "pipe"
    os.mkfifo(fifo)
    res = cli("analyze", str(fifo))
    assert res.code != 0 and "not a regular file" in one_clear_line(res.stderr)


def test_a_corrupt_checkpoints_index(tmp_path: Path, caplog) -> None:
    from compact_agent.agent.tools.checkpoints import Checkpoints

    (tmp_path / "checkpoints.json").write_bytes(b"\xff\xfe\x00garbage")
    with caplog.at_level("WARNING"):
        Checkpoints(tmp_path).load()
    assert "not UTF-8" in caplog.text and "codec" not in caplog.text


def test_four_malformed_tool_calls(cli) -> None:
    with FakeOpenAIServer(lambda r: Reply.tools([("read_file", "{not json")])) as server:
        res = cli("-p", *fake(server), "hi")
    line = one_clear_line(res.stderr)
    assert res.code == 1 and "malformed tool calls" in line and "retry limit" not in line


def test_a_rate_limit_asking_for_a_day(cli) -> None:
    with FakeOpenAIServer(lambda r: Reply.text("ok"), faults=lambda r, a: Fault.rate_limit(86_400)) as server:
        res = cli("-p", *fake(server), "hi")
    line = one_clear_line(res.stderr)
    assert res.code == 1 and "86,400 s" in line and "after retries" not in line, (line, len(server.requests))


def test_odd_usage_fields_are_not_multi_line_warnings(cli) -> None:
    usage = {"prompt_tokens": -5, "completion_tokens": "lots", "total_tokens": None}
    with FakeOpenAIServer(lambda r: Reply.text("fine", usage=usage)) as server:
        res = cli("-p", *fake(server), "hi")
    assert res.code == 0 and res.stdout.strip() == "fine", res.stderr
    if res.stderr.strip():
        one_clear_line(res.stderr)


def test_an_mcp_server_that_prints_non_json(cli, tmp_path: Path) -> None:
    server_py = tmp_path / "noisy.py"
    server_py.write_text("print('hello, not JSON', flush=True)\nimport time\ntime.sleep(0.5)\n")
    config = cli.home / "config.toml"
    config.parent.mkdir(parents=True, exist_ok=True)
    config.write_text(f"[mcp_servers.noisy]\ncommand = {json.dumps(sys.executable)}\nargs = [{json.dumps(str(server_py))}]\n")
    with FakeOpenAIServer(lambda r: Reply.text("ok")) as server:
        res = cli("-p", *fake(server), "hi")
    assert res.code == 0, res.stderr
    one_clear_line(res.stderr)
    assert "noisy" in res.stderr


@pytest.mark.parametrize("error", ["NotSmaller", "CompactionError"])
def test_compaction_failures_name_no_class(error: str) -> None:
    from compact_agent.context.compaction.result import CompactionError, NotSmaller
    from compact_agent.context.state import one_line as _one_line

    kind = NotSmaller if error == "NotSmaller" else CompactionError
    assert _one_line(kind("compaction would not shrink the context (9 → 9 tokens)")).startswith("compaction would")


def test_contradictory_settings_stop_start_up_naming_both_and_their_file(cli) -> None:
    """They reached the library, which refused them at the first request: exit 1 and
    `CompactionSettings.collapse_commit_fraction (0.99) must be at most ...`, no file named."""
    config = cli.home / "config.toml"
    config.parent.mkdir(parents=True, exist_ok=True)
    config.write_text("collapse_commit_fraction = 0.99\ncollapse_blocking_fraction = 0.5\n")
    res = cli("-p", "--base-url", "http://127.0.0.1:9/v1", "hi")
    line = one_clear_line(res.stderr)
    assert res.code == 2 and line == (f"compact-agent: collapse_commit_fraction = 0.99 must be at most "
                                      f"collapse_blocking_fraction = 0.5 (both from {config}): "
                                      "lower the first or raise the second"), res.stderr
    config.write_text("memory_min_tokens = 50000\n")
    res = cli("-p", "--base-url", "http://127.0.0.1:9/v1", "hi", env={"COMPACT_AGENT_MEMORY_MAX_TOKENS": "10"})
    line = one_clear_line(res.stderr)
    assert res.code == 2 and "CompactionSettings" not in line, res.stderr
    assert f"memory_min_tokens = 50000 (from {config})" in line and "(from env COMPACT_AGENT_MEMORY_MAX_TOKENS)" in line
    assert cli.sessions() == []


def test_a_misspelled_variable_is_one_warning(cli) -> None:
    with FakeOpenAIServer(lambda r: Reply.text("ok")) as server:
        res = cli("-p", *fake(server), "hi", env={"COMPACT_AGENT_MODLE": "x", "COMPACT_AGENT_CRASH_TALLY": os.devnull})
    assert res.code == 0 and res.stdout.strip() == "ok", res.stderr
    assert res.stderr == ("compact-agent: warning: unknown setting variable COMPACT_AGENT_MODLE "
                          "(did you mean COMPACT_AGENT_MODEL?); ignored\n")
    listed = cli("config", "--json", env={"COMPACT_AGENT_MODLE": "x"})
    assert listed.code == 0 and listed.stderr == "", listed.stderr  # said once, in the output
    assert any("COMPACT_AGENT_MODLE" in w for w in listed.json()["warnings"])


@pytest.mark.parametrize(("home", "said"), [
    ("/etc/passwd", "COMPACT_AGENT_HOME=/etc/passwd is a file, not a folder; point COMPACT_AGENT_HOME at a folder"),
    ("/proc/nonexistent", "COMPACT_AGENT_HOME=/proc/nonexistent: cannot keep sessions there (No such file or "
                          "directory: /proc/nonexistent"),
    ("/etc/passwd/x", "COMPACT_AGENT_HOME=/etc/passwd/x: cannot keep sessions there (part of that path is a file, "
                      "not a folder); point COMPACT_AGENT_HOME at a folder"),
])
def test_a_home_that_cannot_hold_sessions_names_the_variable(cli, home: str, said: str) -> None:
    """It was `/etc/passwd is a file where compact-agent needs a folder; move it away or remove it`
    (advice to delete a system file) or `No such file or directory: /proc/nonexistent`, exit 1,
    without the variable that named the path."""
    res = cli("-p", "--base-url", "http://127.0.0.1:9/v1", "hi", env={"COMPACT_AGENT_HOME": home})
    line = one_clear_line(res.stderr)
    assert res.code == 2 and line.startswith(f"compact-agent: {said}"), res.stderr
    assert "remove" not in line and "or unset it for the default" in line
    if home == "/etc/passwd":
        listed = cli("sessions", env={"COMPACT_AGENT_HOME": home})
        assert listed.code == 2 and listed.stdout == "" and said in listed.stderr, listed.stderr
        as_json = cli("-p", "--output-format", "json", "hi", env={"COMPACT_AGENT_HOME": home})
        assert as_json.code == 2 and said in as_json.json()["error"], as_json.stdout


@pytest.mark.parametrize("home", ["/proc/nonexistent", "/proc/nonexistent/a/b", "/etc/passwd/x"])
def test_sessions_refuses_a_home_a_run_refuses(cli, home: str) -> None:
    """`sessions` with a home no session could be kept in said `no sessions in DIR`, exit 0, where
    `-p` refused it: it now refuses in the same line. A missing home that can be made is listed as
    empty, and the listing leaves nothing behind."""
    run = cli("-p", "--base-url", "http://127.0.0.1:9/v1", "hi", env={"COMPACT_AGENT_HOME": home})
    listed = cli("sessions", env={"COMPACT_AGENT_HOME": home})
    assert listed.code == 2 and listed.stdout == "" and listed.stderr == run.stderr, listed.stderr
    assert "cannot keep sessions there" in one_clear_line(listed.stderr)
    fresh = cli.home.parent / "not-yet" / "home"
    listed = cli("sessions", env={"COMPACT_AGENT_HOME": str(fresh)})
    assert listed.code == 0 and listed.stdout.startswith("no sessions in "), listed.stderr
    assert not fresh.parent.exists()


def test_a_config_path_that_is_no_file_names_the_variable(cli) -> None:
    for path, said in (("/etc", "/etc: not a regular file; not read"),
                       ("/etc/passwd/x", "/etc/passwd/x: cannot read (Not a directory)")):
        res = cli("-p", "--base-url", "http://127.0.0.1:9/v1", "hi", env={"COMPACT_AGENT_CONFIG": path})
        assert res.code == 2 and res.stderr == (f"compact-agent: {said} (named by COMPACT_AGENT_CONFIG: point it at "
                                                "a config file, or unset it)\n"), res.stderr


def test_extra_dirs_that_are_files_stop_start_up_and_missing_ones_are_a_warning(cli) -> None:
    res = cli("-p", "--base-url", "http://127.0.0.1:9/v1", "hi", env={"COMPACT_AGENT_EXTRA_DIRS": "/etc/passwd"})
    assert res.code == 2 and res.stderr == ("compact-agent: bad value for extra_dirs (from env COMPACT_AGENT_EXTRA_DIRS): "
                                            "/etc/passwd is a file, not a folder; list folders there\n"), res.stderr
    listed = cli("config", "--json", env={"COMPACT_AGENT_EXTRA_DIRS": "missing"})
    assert listed.code == 0 and listed.json()["warnings"] == [
        f"extra_dirs (from env COMPACT_AGENT_EXTRA_DIRS): no such folder {cli.cwd.resolve() / 'missing'}; kept in the list"]


def test_empty_replies_say_what_came_back(cli) -> None:
    """A model that answers with nothing, however often it is asked again, is said in our words:
    pydantic-ai's 'Exceeded maximum output retries (3)' names a setting the agent does not have."""
    with FakeOpenAIServer(lambda r: Reply.text("")) as server:
        res = cli("-p", *fake(server), "hi")
    line = one_clear_line(res.stderr)
    assert res.code == 1 and "output retries" not in line, line
    assert "the model's reply had no answer and no tool call (4 times in a row: an empty reply, or its " \
           "reasoning alone); the turn stopped; the session is saved" in line, line
    assert len(server.requests) == 4
    with FakeOpenAIServer(lambda r: Reply.text("ok")) as server:
        again = cli("-c", "-p", *fake(server), "again")
    # no word of tool results, there were none (the new server's address is noted as overriding the old)
    others = [line for line in again.stderr.splitlines() if not line.startswith("compact-agent: note: --base-url ")]
    assert again.code == 0 and others == [], again.stderr
