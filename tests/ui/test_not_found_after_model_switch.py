"""After `/model NAME`, a model the endpoint does not serve (HTTP 404) is checked where it was
chosen: the line said `check the model name (-m other)`, a flag no one gave. (A server that lists
its models refuses the switch itself: test_model_not_served.py.)"""

from __future__ import annotations

from compact_agent.config import Settings
from compact_agent.settings_file import Loaded
from tests.fakes.openai_server import FakeOpenAIServer, Reply

from .repl_driver import drive


async def test_the_404_after_a_switch_points_at_the_switch(tmp_path) -> None:
    started = Loaded(Settings(model="fake-model"), {"model": "flag"}, tmp_path / "u.toml", tmp_path / "p.toml")
    with FakeOpenAIServer(lambda req: Reply.text("ok"), lists_models=False) as server:  # no list to check the name by
        run = await drive(tmp_path, server.responder, ["/model other\r", "hi\r"], config=started, server=server)
    said = " ".join(run.out.split())
    assert "check the model name (/model other) and that --base-url" in said, run.out
    assert "-m other" not in said


async def test_a_switch_back_to_the_model_started_with_is_named_as_the_switch(tmp_path) -> None:
    # `-m gone` is not served; the user switches away with /model and back with `/model gone`: the
    # second 404 was said as `-m gone` (told apart by the name alone, the switch back looked like none).
    started = Loaded(Settings(model="gone"), {"model": "flag"}, tmp_path / "u.toml", tmp_path / "p.toml")
    with FakeOpenAIServer(lambda req: Reply.text("ok"), lists_models=False) as server:
        run = await drive(tmp_path, server.responder, ["hi\r", "/model fake-model\r", "hello\r", "/model gone\r",
                                                       "again\r"], config=started, server=server, model="gone")
    said = " ".join(run.out.split())
    first, switched_back = said.split("model fake-model → gone")
    assert "check the model name (-m gone)" in first, run.out  # as the session started: the flag
    assert "check the model name (/model gone) and that --base-url" in switched_back, run.out
    assert "-m gone" not in switched_back, run.out
