"""No secret written into an endpoint's address (a password in its userinfo, a token as its user
name, a `?key=` value) reaches any output: a malformed --base-url used to be quoted whole in its
error, `http://user:s3cret@[bad/v1` with the password."""

from __future__ import annotations

import json

import pytest

from compact_agent.secrets import hide_url_passwords, shown_url

SECRET = "s3cretpw"


@pytest.mark.parametrize(("url", "shown"), [
    (f"http://user:{SECRET}@[bad/v1", "'http://user:***@[bad/v1' is not an address (an IPv6 host's [ has no closing ]"),
    (f"http://user:{SECRET}@host:notaport/v1", "'http://user:***@host:notaport/v1' is not an address (its port is not"),
    (f"http://user:{SECRET}/x@host/v1", "'http://user:***@host/v1' is not an address"),  # a / in the password
    (f"ftp://user:{SECRET}@host/v1", "'ftp://user:***@host/v1' is not an http:// or https:// address"),
    (f"http://{SECRET}@[bad/v1", "'http://***@[bad/v1' is not an address"),  # a token as the user name
    (f"http://[bad/v1?api_key={SECRET}", "'http://[bad/v1?api_key=***' is not an address"),
    # Typed without `://`: a colon left out, or no scheme at all.
    (f"http//user:{SECRET}@host/v1", "'http//user:***@host/v1' is not an http:// or https:// address"),
    (f"user:{SECRET}@host:9/v1", "'user:***@host:9/v1' is not an http:// or https:// address"),
])
def test_a_malformed_base_url_is_refused_without_its_secrets(cli, url, shown):
    cli.home.mkdir(parents=True, exist_ok=True)
    transcript = cli.cwd / "t.json"
    transcript.write_text(json.dumps([{"role": "user", "content": "go"}, {"role": "assistant", "content": "ok"}]))
    runs = {"flag": cli("-p", "x", "--base-url", url),
            "json": cli("-p", "x", "--base-url", url, "--output-format", "json"),
            "env": cli("-p", "x", env={"COMPACT_AGENT_BASE_URL": url}),
            "analyze": cli("analyze", str(transcript), "--model", "m", "--base-url", url),
            "analyze, top-level flag": cli("--base-url", url, "analyze", str(transcript), "--model", "m")}
    (cli.home / "config.toml").write_text(f"base_url = {json.dumps(url)}\n")
    runs["file"] = cli("-p", "x")
    runs["config"] = cli("config")
    for name, res in runs.items():
        assert SECRET not in res.stdout + res.stderr, (name, res.stdout, res.stderr)
        if name != "config":  # `config` shows the file's value, without its secret, and refuses nothing
            assert res.code == 2 and shown in res.stderr, (name, res.stderr)
            assert res.stderr.count("\n") == 1 and "Traceback" not in res.stderr, (name, res.stderr)
    assert shown in runs["json"].json()["error"]
    assert cli.sessions() == []


def test_every_secret_form_of_an_address_is_hidden():
    assert hide_url_passwords("at http://user:p@ss@host/v1 now") == "at http://user:***@host/v1 now"
    assert hide_url_passwords("http://ghp_token123@host/v1") == "http://***@host/v1"
    assert hide_url_passwords("http://h/v1?api_key=abc&x=1&token=zz&key=k#f") == "http://h/v1?api_key=***&x=1&token=***&key=***#f"
    assert hide_url_passwords("'http://u:pw@h/v1' and \"http://h/v1\"") == "'http://u:***@h/v1' and \"http://h/v1\""
    assert hide_url_passwords("http://host/v1 then mail me@example.org") == "http://host/v1 then mail me@example.org"
    assert shown_url("http://u:pa/ss@host:1/v1") == "http://u:***@host:1/v1"  # no address: the last @ ends it
    assert shown_url("http://host/v1/@me") == "http://host/v1/@me"  # an address: an @ in its path is no userinfo
    # Without `://`, what follows the name's first colon up to the last @ is taken for a password.
    assert shown_url("http//bob:pa/ss@host:9/v1?key=k") == "http//bob:***@host:9/v1?key=***"
    assert shown_url("http//ghp_token123@host/v1") == "http//***@host/v1"
    assert shown_url("localhost:8000/v1") == "localhost:8000/v1"


def test_openai_base_url_typed_without_its_colon_is_suggested_without_its_password(cli):
    """With no key, the line suggests passing the variable's address as --base-url: it quoted it whole."""
    res = cli("-p", "x", "-m", "gpt-4o", env={"OPENAI_BASE_URL": f"http//bob:{SECRET}@127.0.0.1:9/v1"})
    assert res.code != 0 and "pass --base-url http//bob:***@127.0.0.1:9/v1 instead" in res.stderr, res.stderr
    assert SECRET not in res.stdout + res.stderr


def test_a_working_address_keeps_its_secrets_out_of_errors_and_config(cli):
    """The valid address with a password and a `?api_key=` value: the unreachable endpoint's error,
    the JSON result, `config` (text and JSON) show neither, nor does any file of the session."""
    url = f"http://bob:{SECRET}@127.0.0.1:1/v1?api_key=q{SECRET}"
    failed = cli("-p", "x", "--base-url", url, "--api-key", "k", "--output-format", "json")
    assert failed.code == 1 and "at http://bob:***@127.0.0.1:1/v1" in failed.json()["error"], failed.stderr
    shown = cli("--base-url", url, "config")
    assert "http://bob:***@127.0.0.1:1/v1?api_key=***" in shown.stdout, shown.stdout
    as_json = cli("--base-url", url, "config", "--json")
    assert json.loads(as_json.stdout)["settings"]["base_url"]["value"] == "http://bob:***@127.0.0.1:1/v1?api_key=***"
    for res in (failed, shown, as_json):
        assert SECRET not in res.stdout + res.stderr
    assert not any(SECRET in p.read_text(errors="replace") for p in cli.home.rglob("*") if p.is_file())


def test_config_shows_no_provider_key_a_setting_holds(cli):
    """A setting that holds the provider key — a hook that calls an API with it, an MCP server's env,
    a deny rule a project file wrote — was printed whole by `config` (text and JSON), which had not
    learned the key from the environment: only an address's password was hidden. It shows
    [REDACTED], as every output does."""
    key = "sk-test-0123456789abcdef0123456789abcdef"
    cli.home.mkdir(parents=True, exist_ok=True)
    (cli.home / "config.toml").write_text(
        f'[[hooks.SessionStart]]\ncommand = "curl -s -H \'Authorization: Bearer {key}\' https://x.example"\n'
        f'[mcp_servers.docs]\ncommand = "docs-server"\nenv = {{ OPENAI_API_KEY = "{key}" }}\n')
    (cli.cwd / ".compact-agent.toml").write_text(f'deny_bash = ["echo {key}*"]\n')
    for args in (("config",), ("config", "--json")):
        shown = cli(*args, env={"OPENAI_API_KEY": key})
        assert shown.code == 0, shown.stderr
        out = shown.stdout + shown.stderr
        assert key not in out and "[REDACTED]" in out, out


@pytest.mark.parametrize(("url", "said"), [
    ("it's\\x", "'it's\\x' is not an http:// or https:// address (e.g. http://localhost:8000/v1)"),
    ("http://h:a'\\b/v1", "'http://h:a'\\b/v1' is not an address (its port is not a number from 0 to 65535; "
                          "e.g. http://localhost:8000/v1)"),
])
def test_an_address_is_quoted_as_written(cli, url, said):
    """Python's form of it put an address holding a quote in double quotes and doubled each backslash."""
    res = cli("-p", "x", "--base-url", url)
    assert (res.code, res.stderr) == (2, f"compact-agent: --base-url: {said}\n")


def test_a_key_put_after_the_wrong_option_is_not_quoted_by_the_error(cli):
    """A key pasted after the wrong option was quoted whole by the line that refused it ('-r sk-…',
    '--context-window sk-…', a JSON error object too): a usage error is said before the keys are
    learned. The keys of the environment and of --api-key are redacted from every such line."""
    key = "sk-test-0123456789abcdef0123456789abcdef"
    runs = [cli("-r", key, env={"OPENAI_API_KEY": key}),
            cli("--context-window", key, "-p", "hi", env={"OPENAI_API_KEY": key}),
            cli("-p", "hi", "--output-format", key, env={"ANTHROPIC_API_KEY": key}),
            cli("--api-key", key, "--max-turns", key, "-p", "hi"),
            cli(f"--api-key={key}", "-p", "hi", "--output-format", "json", "--context-window", key)]
    for run in runs:
        assert run.code != 0 and "[REDACTED]" in run.stderr, run.stderr
        assert key not in run.stdout + run.stderr, run.stderr
