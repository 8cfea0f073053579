"""Print mode says on stderr that an answer the model ended at its output limit (finish reason
`length`) is cut off; stdout and the JSON result keep the answer as it came."""

from __future__ import annotations

from tests.fakes.openai_server import FakeOpenAIServer
from tests.ui.test_answer_cut_at_output_limit import CUT, cut_then_whole


def test_print_mode_says_it_on_stderr(cli):
    with FakeOpenAIServer(cut_then_whole) as server:
        args = ("-p", "--model", "fake-model", "--base-url", server.base_url, "--api-key", "k")
        cut = cli(*args, "first")
        whole = cli(*args, "second")
        as_json = cli(*args, "first", "--output-format", "json")
    assert cut.code == 0 and cut.stdout == "The fix is to change the\n"
    assert cut.stderr == f"compact-agent: note: {CUT}\n"
    assert whole.code == 0 and whole.stderr == ""
    assert as_json.json()["result"] == "The fix is to change the" and CUT in as_json.stderr
