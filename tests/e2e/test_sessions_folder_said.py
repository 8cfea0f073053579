"""`compact-agent sessions` and `compact-agent config` say where the directory's sessions are kept.

Neither named the folder: a user looking for their session files (to back them up, remove them, or
point `analyze` or another tool at them) had to guess `$COMPACT_AGENT_HOME/projects/<the folder's
name>-<a hash of its path>/`, or the platform's user data dir when the variable is unset. Both now
end their account of the directory with `sessions folder: PATH (this directory's; ...)`, and
`config --json` gives it as `sessions_folder`.
"""

from __future__ import annotations

import json

from tests.e2e.conftest import Cli
from tests.fakes.openai_server import FakeOpenAIServer, Reply

from .test_print_prompt_saved_early import fake


def test_sessions_and_config_name_the_folder_the_sessions_are_in(cli: Cli) -> None:
    with FakeOpenAIServer(lambda req: Reply.text("ok")) as server:
        assert cli("-p", "hello", *fake(server)).code == 0
    [saved] = cli.sessions()
    said = f"sessions folder: {saved.parent} (this directory's; under COMPACT_AGENT_HOME)"

    listed = cli("sessions")
    assert listed.code == 0 and listed.stdout.splitlines()[-1] == said, listed.stdout + listed.stderr
    assert saved.stem in listed.stdout.splitlines()[0]  # the rows come first, as they did

    shown = cli("config")
    lines = shown.stdout.splitlines()
    assert shown.code == 0 and said in lines, shown.stdout
    assert lines[lines.index(said) - 1].startswith("project file: "), shown.stdout  # with the files it reads
    data = json.loads(cli("config", "--json").stdout)
    assert data["sessions_folder"] == str(saved.parent), data.keys()


def test_without_compact_agent_home_the_platforms_folder_is_named(cli: Cli, tmp_path) -> None:
    env = {"COMPACT_AGENT_HOME": "", "XDG_DATA_HOME": str(tmp_path / "data")}
    listed = cli("sessions", env=env)
    said, where = listed.stdout.splitlines()
    assert listed.code == 0 and said.startswith("no sessions in "), listed.stdout + listed.stderr
    folder = tmp_path / "data" / "compact-agent" / "projects"
    assert where.startswith(f"sessions folder: {folder}/"), where
    assert where.endswith(" (this directory's; COMPACT_AGENT_HOME moves it)"), where
    assert where in cli("config", env=env).stdout.splitlines()
