"""A session resumed at the endpoint it remembers says so, in one line naming it.

`-c` (and `-r ID`) goes on at the `--base-url` the session was started with, and the API key goes
there; the address came from the session file only, and nothing said so: a file edited to another
server got the key on the next `-c` without a word. The line names the address and how to use
another; an endpoint given again, or the one the settings name, needs no line."""

from __future__ import annotations

import json
from pathlib import Path

from tests.fakes.openai_server import FakeOpenAIServer, Reply

KEY = "sk-remembered-endpoint-0123456789abcdef"


def remember(path: Path, base_url: str) -> None:
    """Set the endpoint the session file's meta entry remembers (a hand edit, or another program's)."""
    lines = path.read_text().splitlines()
    for n, line in enumerate(lines):
        entry = json.loads(line)
        if entry.get("kind") == "meta" and "options" in entry.get("meta", {}):
            entry["meta"]["options"]["base_url"] = base_url
            lines[n] = json.dumps(entry)
    path.write_text("\n".join(lines) + "\n")


def test_a_session_resumed_at_the_endpoint_it_remembers_says_it(cli) -> None:
    env = {"OPENAI_API_KEY": KEY}
    with FakeOpenAIServer(lambda req: Reply.text("ok")) as server, \
            FakeOpenAIServer(lambda req: Reply.text("other")) as other:
        url, other_url = server.base_url, other.base_url
        first = cli("-p", "hello", "--model", "fake-model", "--base-url", server.base_url, env=env)
        again = cli("-c", "-p", "go on", env=env)
        (path,) = cli.sessions()
        remember(path, other.base_url)
        moved = cli("-c", "-p", "and on", "--output-format", "json", env=env)
        given = cli("-c", "-p", "back", "--base-url", server.base_url, env=env)
        (cli.home / "config.toml").write_text(f'base_url = "{server.base_url}"\n')
        configured = cli("-c", "-p", "as the settings say", env=env)
    assert first.code == 0 and first.stderr == "", first.stderr
    line = "compact-agent: note: using the endpoint this session remembers: {}; pass --base-url to use another\n"
    assert (again.code, again.stdout, again.stderr) == (0, "ok\n", line.format(url))
    assert moved.code == 0 and moved.json()["result"] == "other"
    assert moved.stderr == line.format(other_url)  # where the key went, said
    assert other.requests[0].headers.get("authorization") == f"Bearer {KEY}"
    assert given.code == 0 and given.stdout == "ok\n"
    assert "remembers:" not in given.stderr  # given again: the flag's own
    assert configured.code == 0 and configured.stderr == "", configured.stderr  # the endpoint the settings name


def remembered_line(url: str) -> str:
    """The note's part that says a session goes on at the endpoint it remembers (other tests' notes end with it)."""
    return f"using the endpoint this session remembers: {url}; pass --base-url to use another"
