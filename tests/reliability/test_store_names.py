"""The session store and the user config dir are compact-agent's own data: the model's file tools
neither read nor write them, and a search does not walk into them either. Run in $HOME (the store
inside the working directory), a `glob **/*` named every session of every project, the projects by
their paths (the store's folder names), the archives and the prompt history."""

from __future__ import annotations

from pathlib import Path

from tests.fakes.openai_server import FakeOpenAIServer, message_text, tool_results

from .common import session
from .test_confinement_secrets import Script


async def test_a_search_from_home_does_not_list_the_session_store(tmp_path: Path) -> None:
    cwd = tmp_path / "me"
    home = cwd / ".local" / "share" / "compact-agent"
    (cwd / "client-acme-merger").mkdir(parents=True)
    (cwd / "notes.jsonl").write_text("{}\n")
    (cwd / "client-acme-merger" / "plan.md").write_text("plan\n")
    with FakeOpenAIServer(Script([])) as server:
        first = session(home, cwd / "client-acme-merger", server)
        await first.run_turn("hello")
        await first.aclose()
    script = Script([
        [("glob", {"pattern": "**/*.jsonl"})],
        [("glob", {"pattern": "**/*acme*/*"})],
        [("glob", {"pattern": "*/*/*/*/*"})],
    ])
    with FakeOpenAIServer(script) as server:
        s = session(home, cwd, server)
        out = await s.run_turn("what is here?")
        await s.aclose()
    assert out.output == "done"
    results = [message_text(tool_results(r)[0]) for r in script.main[1:]]
    assert "notes.jsonl" in results[0]  # the search works
    assert "client-acme-merger" in results[1]  # the project folder itself is the user's
    for r in results:
        assert ".local/share/compact-agent" not in r, r
