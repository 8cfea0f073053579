"""`-c -p … --verbose` after a REPL turn does not say again what that turn's end said its next request
would free: the REPL's end said 'old tool results cleared (2 results), freed 1,240 tokens' of the two
results its look under the prompt clears (SessionFeed.foretell, kept beside the session), and the
print-mode run that continued the session, whose first request cleared them, said it a second time."""

from __future__ import annotations

from compact_agent.agent.run.options import SessionOptions
from compact_agent.ui.print_mode import run_print
from tests.e2e.test_resumed_layer_savings import numbers
from tests.fakes.openai_server import FakeOpenAIServer

from .test_resumed_layer_line import CLEARED, SETTINGS, clearing_turn


async def test_a_print_run_continuing_a_repl_says_no_saving_its_end_said(tmp_path, monkeypatch, capsys) -> None:
    with FakeOpenAIServer(numbers) as server:
        first = await clearing_turn(tmp_path, monkeypatch, server)
        capsys.readouterr()
        opts = SessionOptions(cwd=tmp_path / "project", model="fake-model", base_url=server.base_url, api_key="k",
                              home=tmp_path / "home", settings=SETTINGS, context_window=32_000,
                              permission_mode="yes", continue_last=True)
        code = await run_print(opts, "thanks", verbose=True)
    out, err = capsys.readouterr()
    # the REPL's turn said the large result cleared, then the two small ones its next request clears
    assert [n for n, _ in CLEARED.findall(first.out)] == ["3"], first.out
    assert code == 0 and out == "you are welcome\n", out + err
    assert CLEARED.findall(err) == [], err  # said at the REPL turn's end: not again
