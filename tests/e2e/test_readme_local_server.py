"""The README's quick start shows a run against a local OpenAI-compatible server on its own, not
under `export DEEPSEEK_API_KEY=...` as if that key were needed, and names the variable a key for
such a server is read from: the one the program reads (models.KEY_VARIABLE). The command runs as
shown, without any key set, against a server on 127.0.0.1."""

from __future__ import annotations

import re
import shlex

from compact_agent.models import KEY_VARIABLE, provider_for
from tests.fakes.openai_server import FakeOpenAIServer, Reply

from .conftest import REPO


def local_example() -> tuple[str, list[str]]:
    """(the paragraph before it, the command's words) of the quick start's local-server block."""
    text = (REPO / "README.md").read_text(encoding="utf-8")
    start = text.split("## Quick start", 1)[1].split("\n## ", 1)[0]
    for before, block in re.findall(r"((?:^[^`\n].*\n)+)\n```sh\n(.*?)^```$", start, re.S | re.M):
        lines = [line for line in block.splitlines() if line.strip()]
        if len(lines) == 1 and "--base-url" in lines[0]:
            return before, shlex.split(lines[0].split(" # ", 1)[0])
    raise AssertionError("no local-server example of its own in the README's quick start")


def test_the_readme_local_server_example_runs_without_a_key(cli) -> None:
    before, words = local_example()
    variable = KEY_VARIABLE[provider_for("any-model", "http://localhost:8080/v1")]
    assert f"`{variable}`" in before, before
    assert words[0].endswith("compact-agent") and not any("_API_KEY" in w for w in words), words
    args = words[1:]
    model = args[args.index("-m") + 1]  # the server's own name for it
    with FakeOpenAIServer(lambda req: Reply.text("hello from the local model"), model=model) as server:
        args[args.index("--base-url") + 1] = server.base_url
        res = cli(*args, "-p", "hi")
    assert res.code == 0 and res.stdout == "hello from the local model\n", res.stdout + res.stderr
