"""`compact-agent analyze` says where the user's own compact-agent sessions are. Its help named the
formats it reads, and the docs Claude Code's and Codex's folders, never ours; `analyze .` in a project
said `no transcripts found: app.py: not a transcript` without a word on where that project's sessions
are (`$COMPACT_AGENT_HOME/projects/<name>-<hash>/`). Now the help names the folder, and this
directory's sessions when it has some, and "no transcripts found" names them too."""

from __future__ import annotations

import shlex

from pydantic_ai.messages import ModelRequest, ModelResponse, TextPart, UserPromptPart
from pydantic_ai.usage import RequestUsage

from compact_agent.session.files import project_slug
from compact_agent.session.store import SessionStore


def _flat(text: str) -> str:
    return " ".join(text.split())


def test_the_help_and_no_transcripts_found_name_the_sessions_folder(cli) -> None:
    (cli.cwd / "app.py").write_text("print('hi')\n")
    projects = cli.home / "projects"

    helped = cli("analyze", "--help")
    assert helped.code == 0, helped.stderr
    assert f"\n    {projects}\n" in helped.stdout  # a line of its own, not broken at a hyphen
    assert "none of them is this directory's" in _flat(helped.stdout)

    nothing = cli("analyze", ".")
    assert nothing.code == 2
    assert nothing.stderr.startswith("compact-agent: no transcripts found: app.py: not a transcript")
    assert nothing.stderr.rstrip().endswith(f"; compact-agent's own sessions are kept in {projects}, one folder "
                                            "per project"), nothing.stderr
    assert len(nothing.stderr.splitlines()) == 1

    root = projects / project_slug(cli.cwd)  # where a run in this folder keeps its sessions
    SessionStore(root, "s1").append([
        ModelRequest(parts=[UserPromptPart("what does app.py print?")]),
        ModelResponse(parts=[TextPart("hi")], usage=RequestUsage(input_tokens=900, output_tokens=5), model_name="m")])
    command = f"compact-agent analyze {shlex.quote(str(root))}"

    helped = cli("analyze", "--help")
    assert f"this directory's:\n    {command}\n" in helped.stdout, helped.stdout
    nothing = cli("analyze", ".")
    assert nothing.code == 2
    assert nothing.stderr.rstrip().endswith(f"; 1 compact-agent session of {cli.cwd.resolve()} is kept in {root}: "
                                            f"{command}"), nothing.stderr
    replayed = cli(*shlex.split(command)[1:], "-s", "ours", "--json")  # the command it names replays them
    assert replayed.code == 0, replayed.stderr
    assert [t["format"] for t in replayed.json()["transcripts"]] == ["compact-agent"]

    empty = projects / "other-0123abcd"
    empty.mkdir()
    inside = cli("analyze", str(empty))  # looked for where they are kept: nothing more to point to
    assert inside.code == 2 and "sessions are kept in" not in inside.stderr, inside.stderr
