"""A key given on the command line (`--api-key`, before the subcommand or after it) or in the
environment is printed by no subcommand: `config`, `sessions` and `analyze` build no model, so they
had learned no key, and said it wherever it came up — a hook's command in `config` (whole with
--json, its first 24 characters where the table cut it), 'no session sk-…' of `sessions --delete`,
'no such file or directory: sk-…' of `analyze`, a session's row quoting a prompt that held it."""

from __future__ import annotations

import pytest

from tests.fakes.openai_server import FakeOpenAIServer, Reply

KEY = "sk-test-0123456789abcdef0123456789abcdef"
PIECE = "0123456789abcdef"  # what a table cut to a column still shows of it


def no_key(res) -> None:
    out = res.stdout + res.stderr
    assert PIECE not in out and "[REDACTED]" in out, out


@pytest.mark.parametrize("args", [("config",), ("config", "--json")])
def test_config_does_not_print_the_key_given_with_api_key(cli, args):
    cli.home.mkdir(parents=True, exist_ok=True)
    (cli.home / "config.toml").write_text(
        f'[[hooks.SessionStart]]\ncommand = "curl -s -H \'Authorization: Bearer {KEY}\' https://x.example"\n')
    for given in (("--api-key", KEY), (f"--api-key={KEY}",)):
        res = cli(*given, *args)
        assert res.code == 0, res.stderr
        no_key(res)


@pytest.mark.parametrize("given", ["flag", "env"])
def test_sessions_and_analyze_do_not_quote_a_key_given_for_a_name(cli, given):
    """The key pasted where a session id or a transcript goes."""
    flag = ("--api-key", KEY) if given == "flag" else ()
    env = {"OPENAI_API_KEY": KEY} if given == "env" else {}
    runs = [cli(*flag, "sessions", "--delete", KEY, env=env),
            cli(*flag, "analyze", KEY, env=env),
            cli(*flag, "analyze", KEY, "--json", env=env)]
    if given == "flag":  # analyze's own --api-key, given after the subcommand
        runs.append(cli("analyze", KEY, "--model", "m", "--api-key", KEY, "--json"))
    for res in runs:
        assert res.code != 0
        no_key(res)


def test_a_session_row_does_not_show_the_key_in_use_now(cli):
    """A session saved while the key was not in use (a local server, the key pasted into the prompt)
    is listed without it once it is."""
    with FakeOpenAIServer(lambda req: Reply.text("ok")) as server:
        saved = cli("-p", f"why does {KEY} fail?", "--model", "fake-model", "--base-url", server.base_url,
                    "--api-key", "k")
    assert saved.code == 0, saved.stderr
    assert any(KEY in p.read_text() for p in cli.sessions())  # not a key then: kept as typed
    for res in (cli("sessions", env={"OPENAI_API_KEY": KEY}), cli("--api-key", KEY, "sessions", "--all")):
        assert res.code == 0 and "why does" in res.stdout, res.stdout + res.stderr
        no_key(res)
