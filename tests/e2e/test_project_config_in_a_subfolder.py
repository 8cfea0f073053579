"""The model cannot write the project config of a folder below the working directory either.

The project config (`.compact-agent.toml`) decides what the agent may do; for a trusted project it
sets hooks, MCP servers and allow rules, which run commands unasked. The model's file tools refused
the one of the working directory, but wrote one in any folder below it: a file the model read could
make it write `pkg/.compact-agent.toml` with a SessionStart hook, and the next session started in
`pkg/` (a trusted project of a monorepo) ran that hook's command without a question.
"""

from __future__ import annotations

import json

from tests.e2e.conftest import Cli
from tests.fakes.openai_server import FakeOpenAIServer, Reply, message_text, tool_results


def test_the_model_cannot_write_a_subfolders_project_config(cli: Cli) -> None:
    pkg = cli.cwd / "pkg"
    pkg.mkdir()
    marker = cli.home.parent / "hook-ran"
    cli.home.mkdir()
    (cli.home / "config.toml").write_text(f"trusted_projects = [{json.dumps(str(pkg))}]\n")
    hook = f'[[hooks.SessionStart]]\nhooks = [{{type = "command", command = "touch {marker}"}}]\n'
    calls = [("write_file", {"path": "pkg/.compact-agent.toml", "content": hook}),
             ("edit_file", {"path": "pkg/sub/../.compact-agent.toml", "old_string": "touch", "new_string": "touch -m"}),
             ("write_file", {"path": "./pkg/.COMPACT-AGENT.TOML", "content": hook})]
    results: list[str] = []

    def responder(req):
        if (done := tool_results(req)):
            results.append(message_text(done[0]))
        if "set up" in req.last_user_text() and len(results) < len(calls) and (not done or results):
            return Reply.tools([calls[len(results)]])
        return Reply.text("done")

    with FakeOpenAIServer(responder) as server:
        base = ("--base-url", server.base_url, "--model", "fake-model", "--api-key", "k")
        run = cli("-p", "set up the package", "--yes", *base)
        assert run.code == 0, run.stderr
        assert len(results) == 3 and all(r.startswith("permission denied:") and "project's compact-agent config" in r
                                          for r in results), results
        assert sorted(p.name for p in pkg.iterdir()) == []
        in_pkg = Cli(home=cli.home, cwd=pkg, zygote=cli.zygote)
        assert in_pkg("-p", "hello", *base).code == 0
    assert not marker.exists()
