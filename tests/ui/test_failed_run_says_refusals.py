"""A print-mode run that refused actions and then failed (stopped by --max-turns, exit 1) says the
refusal line on stderr before its error, as a run that finished does: only the JSON result listed
them, and in text mode a user never learned the model had been refused anything."""

from __future__ import annotations

from compact_agent.agent.run.options import SessionOptions
from compact_agent.config import Settings
from compact_agent.ui.print_mode import run_print
from tests.fakes.openai_server import FakeOpenAIServer, Reply


async def test_a_failed_run_says_what_it_refused(tmp_path, monkeypatch, capsys) -> None:
    monkeypatch.setenv("COMPACT_AGENT_HOME", str(tmp_path / "home"))
    monkeypatch.setenv("COMPACT_AGENT_CONFIG", str(tmp_path / "none.toml"))  # not the user's own
    (tmp_path / "project").mkdir()
    with FakeOpenAIServer(lambda req: Reply.tools([("bash", {"command": "make build"})])) as server:
        opts = SessionOptions(cwd=tmp_path / "project", model="fake-model", base_url=server.base_url, api_key="k",
                              home=tmp_path / "home", permission_mode="deny",
                              settings=Settings(max_requests_per_turn=1, allow_bash=["python *"]))
        code = await run_print(opts, "build it")
    out, err = capsys.readouterr()
    assert code == 1 and out == "", out + err
    refusal, error = err.splitlines()
    assert refusal == ("compact-agent: refused 1 action needing approval: bash(make build) (not covered by "
                       "bash(python *)) — print mode does not ask; rerun with --yes, or allow them with --allowed-tools")
    assert error.startswith("compact-agent: stopped after 1 model request"), err
