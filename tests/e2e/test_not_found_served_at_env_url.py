"""A 404 for the model from the server at OPENAI_BASE_URL names the models that server lists, as one
from a server given with --base-url does: the line said to check the model name and left out the
list, since only a `--base-url` given was taken for a server of one's own."""

from __future__ import annotations

from tests.e2e.conftest import Cli
from tests.fakes.openai_server import FakeOpenAIServer, Reply


def test_a_404_at_openai_base_url_names_the_models_the_server_serves(cli: Cli) -> None:
    with FakeOpenAIServer(lambda req: Reply.text("ok"), model="served") as server:
        r = cli("-p", "hi", "-m", "other", env={"OPENAI_BASE_URL": server.base_url, "OPENAI_API_KEY": "k"})
    assert r.code == 1
    lines = r.stderr.strip().splitlines()
    assert len(lines) == 1 and "Traceback" not in r.stderr, r.stderr
    assert "HTTP 404" in lines[0] and lines[0].endswith("; the server serves served"), r.stderr

