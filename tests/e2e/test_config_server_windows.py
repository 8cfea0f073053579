"""A window learned from a server was kept for good: restarted with a larger context, the server was
held to the old one by every new session, and only `--context-window` on every run said otherwise.
`compact-agent config` now lists the windows kept (endpoint, model, window, how and when learned),
`config --forget-window URL|all` forgets them, and a session given a larger window whose prompt over
the one kept is taken whole forgets it by itself."""

from __future__ import annotations

import dataclasses
from datetime import UTC, datetime

from compact_agent.agent.run import server_windows
from tests.e2e.conftest import Cli
from tests.e2e.scripted import FileTaskAgent, make_project, task_text
from tests.fakes.openai_server import FakeOpenAIServer

N = 12
A, B = "http://127.0.0.1:8080/v1", "http://localhost:11434/v1"
WHEN = datetime(2026, 5, 1, 9, 30, tzinfo=UTC)


def keep_two(cli: Cli) -> None:
    server_windows.remember(cli.home, A, "local", 8_000, "refused", now=WHEN)
    server_windows.remember(cli.home, B, "llama3", 5_000, "cut", now=WHEN)
    server_windows.remember(cli.home, B, "qwen", 4_096, "cut", now=WHEN)


def test_config_lists_the_windows_kept_with_how_and_when(cli: Cli) -> None:
    none = cli("config")
    assert none.code == 0, none.stderr
    assert "server windows learned: none" in none.stdout
    keep_two(cli)
    listed = cli("config")
    assert listed.code == 0, listed.stderr
    lines = listed.stdout.splitlines()
    start = lines.index(f"server windows learned ({cli.home / 'servers' / 'windows.json'}):")
    assert [" ".join(line.split()) for line in lines[start + 1:start + 5]] == [
        f"{A} local 8,000 tokens, named in a refusal, 2026-05-01 09:30 UTC",
        f"{B} llama3 5,000 tokens, prompts cut to it, 2026-05-01 09:30 UTC",
        f"{B} qwen 4,096 tokens, prompts cut to it, 2026-05-01 09:30 UTC",
        "forget: compact-agent config --forget-window URL (every one: --forget-window all)",
    ]
    data = cli("config", "--json").json()
    assert data["server_windows"][0] == {"endpoint": A, "model": "local", "window": 8_000, "how": "refused",
                                         "learned": "2026-05-01T09:30:00+00:00"}
    assert len(data["server_windows"]) == 3 and "model" in data["settings"]


def test_forget_window_drops_an_endpoint_one_model_of_it_or_all(cli: Cli) -> None:
    keep_two(cli)
    one = cli("-m", "qwen", "config", "--forget-window", B + "/")  # only qwen's there; the slash as typed
    assert one.code == 0, one.stderr
    assert one.stdout == (f"forgot the window of qwen at {B}: 4,096 tokens, prompts cut to it, 2026-05-01 09:30 "
                          "UTC; sessions there, new or resumed, start in the window given or assumed\n")
    assert server_windows.remembered(cli.home, B, "llama3") == 5_000

    typo = cli("config", "--forget-window", "http://127.0.0.1:8081/v1")
    assert typo.code == 1 and typo.stdout == ""
    assert typo.stderr == (f"compact-agent: --forget-window: no window is remembered for http://127.0.0.1:8081/v1; "
                           f"kept: {A}, {B}\n")

    gone = cli("config", "--forget-window", B, "--json").json()
    assert [(w["endpoint"], w["model"]) for w in gone["forgotten"]] == [(B, "llama3")]
    every = cli("config", "--forget-window", "all")
    assert every.code == 0 and every.stdout.startswith(f"forgot the window of local at {A}: 8,000 tokens")
    assert server_windows.every(cli.home) == []
    again = cli("config", "--forget-window", "all")
    assert (again.code, again.stdout) == (0, "no server window was remembered\n")


def test_a_window_forgotten_is_not_started_within(cli: Cli) -> None:
    make_project(cli.cwd, N)
    with FakeOpenAIServer(FileTaskAgent(n=N), window=8_000, model="local", overflow="llama.cpp") as server:
        at = ("-m", "local", "--base-url", server.base_url, "--api-key", "k")
        assert cli("-p", task_text(N), "-y", *at).code == 0
        assert "earlier session" in cli("-p", "/status", *at).stderr
        assert cli("config", "--forget-window", server.base_url).code == 0
        status = cli("-p", "/status", *at)
        assert "earlier session" not in status.stderr, status.stderr
        assert "/ window 32,768 tokens" in status.stdout, status.stdout


def test_a_larger_prompt_taken_whole_forgets_the_window_kept(cli: Cli) -> None:
    """The server restarted with 64K: a session given --context-window 64k has a prompt over 8,000
    taken, which proves the 8,000 kept wrong; the next session with no window given is not held to it."""
    total = make_project(cli.cwd, N)
    with FakeOpenAIServer(FileTaskAgent(n=N), window=8_000, model="local", overflow="llama.cpp") as server:
        at = ("-m", "local", "--base-url", server.base_url, "--api-key", "k")
        assert cli("-p", task_text(N), "-y", *at).code == 0
        assert server_windows.remembered(cli.home, server.base_url, "local") == 8_000

        server.window = 64_000  # restarted with a larger context
        given = cli("-p", task_text(N), "-y", "--context-window", "64k", *at)
        assert given.code == 0, given.stderr
        assert f"FINAL SUM: {total}" in given.stdout
        assert max(r.prompt_tokens for r in server.requests[-3:]) > 8_000
        assert server_windows.remembered(cli.home, server.base_url, "local") is None
        status = cli("-p", "/status", *at)
        assert "earlier session" not in status.stderr, status.stderr


def test_a_server_that_still_cuts_prompts_keeps_its_window(cli: Cli) -> None:
    """Prompts cut to 5,000 are reported at 5,000, never above it: a larger window given proves nothing."""
    make_project(cli.cwd, N)
    agent = FileTaskAgent(n=N)

    def cuts_silently(req):
        reply = agent(req)
        if req.prompt_tokens > 5_000:
            return dataclasses.replace(reply, usage={"prompt_tokens": 5_000, "prompt_tokens_details": {"cached_tokens": 0}})
        return reply

    with FakeOpenAIServer(cuts_silently, window=128_000, model="local") as server:
        server_windows.remember(cli.home, server.base_url, "local", 5_000, "cut", now=WHEN)
        run = cli("-p", task_text(N), "-y", "--context-window", "64k", "-m", "local", "--base-url", server.base_url,
                  "--api-key", "k")
        assert run.code == 0, run.stderr
        assert max(r.prompt_tokens for r in server.requests) > 5_000  # sent larger, reported at 5,000
        # Kept as it was, not forgotten (and learned again, at another time).
        assert server_windows.remembered_as(cli.home, server.base_url, "local") == server_windows.Kept(
            5_000, "cut", WHEN.isoformat())


def test_a_windows_file_that_cannot_be_read_is_said_once(cli: Cli) -> None:
    """`{not json` in servers/windows.json was read as no window learned, without a word (`config`
    said `server windows learned: none`): a warning line now names the file and that it is ignored."""
    path = server_windows.path_in(cli.home)
    path.parent.mkdir(parents=True)
    for text, why in (("{not json", "not valid JSON"), ("[1, 2]", "not in the expected shape")):
        path.write_text(text)
        res = cli("config")
        assert res.code == 0 and f"server windows learned: none ({path})" in res.stdout, res.stdout
        assert res.stderr == f"compact-agent: warning: ignoring the server windows learned in {path}: {why}\n", res.stderr
    path.unlink()
    assert cli("config").stderr == ""  # none learned yet: nothing to say


def test_a_window_a_setting_would_not_take_is_ignored_with_a_warning(cli: Cli) -> None:
    """A hand-edited windows.json with a window of 10**400 printed its 400 digits in `config`, and
    one of 0 or past 10,000,000 tokens was not said to be ignored: each is now, in one line, as a file
    that cannot be read is; the windows beside them are kept."""
    path = server_windows.path_in(cli.home)
    path.parent.mkdir(parents=True)
    big = 10**400
    path.write_text(f'{{"windows": {{"{A}": {{"local": {{"window": {big}, "how": "refused"}}, "qwen": 10000001, '
                    '"llama3": 0, "tiny": 4096}}}')
    res = cli("config")
    assert res.code == 0 and str(big)[:40] not in (res.stdout + res.stderr).replace(",", ""), res
    assert res.stderr == "".join(f"compact-agent: warning: ignoring the server window learned in {path} for {m} at "
                                 f"{A}: not within the 1 to 10,000,000 tokens a window may be\n"
                                 for m in ("local", "qwen", "llama3")), res.stderr
    assert [" ".join(line.split()) for line in res.stdout.splitlines() if line.startswith(A)] == [
        f"{A} tiny 4,096 tokens, how not recorded"]
    assert server_windows.remembered(cli.home, A, "local") is None
    assert server_windows.remembered(cli.home, A, "tiny") == 4_096
