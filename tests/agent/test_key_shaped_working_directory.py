"""A working directory whose path holds a key the run does not know (another provider's, one
rotated) puts it in no request.

The system prompt names the working directory; it hid a key there only when that key was the
run's own (registered), so a run with another key sent the path, key and all, to this provider with
every request. It now redacts the path as the sessions folder's name is made (session/files.py,
`project_slug`): each name from where a part shaped like a key begins (`secrets.key_shaped_at`).
"""

from __future__ import annotations

import json
import secrets as random
import string
from pathlib import Path

from compact_agent.agent.run.options import SessionOptions, system_prompt
from compact_agent.agent.run.runner import AgentSession
from tests.fakes.openai_server import FakeOpenAIServer, Reply


def random_part(n: int = 32) -> str:
    """A key's random part, new each run: no other test's process could have registered it."""
    return "".join(random.choice(string.ascii_letters + string.digits) for _ in range(n - 2)) + "7Q"


async def test_a_key_shaped_part_of_the_working_directory_reaches_no_request(tmp_path: Path) -> None:
    part = random_part()
    cwd = tmp_path / "work" / f"sk-proj-{part}" / "app"
    cwd.mkdir(parents=True)
    own = f"sk-other-{random_part()}"  # the run's key is another one
    with FakeOpenAIServer(lambda req: Reply.text("hello there"), api_key=own) as server:
        s = AgentSession(SessionOptions(cwd=cwd, model="fake-model", base_url=server.base_url, api_key=own,
                                        home=tmp_path / "home", permission_mode="yes"))
        try:
            await s.run_turn("where are we?")
        finally:
            s.close()
    assert server.requests, "no request was made"
    bodies = [json.dumps(r.body) for r in server.requests]
    pieces = [part[i:i + 8] for i in range(0, len(part) - 8)]
    assert not [i for i, b in enumerate(bodies) for p in pieces if p in b], bodies[0][:2000]
    system = server.requests[0].messages[0]
    assert system["role"] == "system", system
    assert f"{tmp_path}/work/sk-proj-[REDACTED]/app" in system["content"], system["content"]


def test_a_path_with_nothing_shaped_like_a_key_is_named_as_it_is(tmp_path: Path) -> None:
    cwd = tmp_path / "projects" / "MyBackendService" / "release-2024-06-01" / "v1.2.3"
    assert f"working directory: {cwd}\n" in system_prompt(cwd, "")
