"""An endpoint no server answers at, given elsewhere than on this command line, is named where it was
given: a resumed session runs at the address it was started with, whatever the config file says now,
and the line said only `start the server there, or correct the address`, where the user looked in the
config file and found another address. A `--base-url` typed on the command line needs no such word."""

from __future__ import annotations

import socket

from tests.fakes.openai_server import FakeOpenAIServer, Reply

REFUSED = "start the server there, or correct the address"


def a_free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def test_the_line_names_where_the_address_came_from(cli) -> None:
    with FakeOpenAIServer(lambda req: Reply.text("ok")) as server:
        assert cli("-p", "hi", "--model", "fake-model", "--base-url", server.base_url, "--api-key", "k").code == 0
        gone = server.base_url
    resumed = cli("-c", "-p", "again", "--api-key", "k")
    assert resumed.code == 1, resumed.stderr
    assert f"{REFUSED} (the address the session remembers: --base-url gives another);" in resumed.stderr

    nowhere = f"http://127.0.0.1:{a_free_port()}/v1"
    config = cli.home / "config.toml"
    config.parent.mkdir(parents=True, exist_ok=True)
    config.write_text(f'model = "fake-model"\nbase_url = "{nowhere}"\n')
    from_file = cli("-p", "hi", "--api-key", "k")
    assert from_file.code == 1 and f"{REFUSED} (base_url in {config});" in from_file.stderr, from_file.stderr
    config.unlink()
    from_env = cli("-p", "hi", "--model", "fake-model", "--api-key", "k", env={"COMPACT_AGENT_BASE_URL": nowhere})
    assert f"{REFUSED} (the address COMPACT_AGENT_BASE_URL gives);" in from_env.stderr, from_env.stderr
    typed = cli("-p", "hi", "--model", "fake-model", "--api-key", "k", "--base-url", gone)
    assert typed.code == 1 and f"{REFUSED};" in typed.stderr, typed.stderr
