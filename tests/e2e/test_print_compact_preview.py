"""`-p "/compact --preview"` is refused before its summary request: print mode cannot ask whether to
keep the compaction. It sent the summary request (paid for), showed the preview, then said 'print
mode cannot ask' and kept nothing. Now: one line saying what to do instead, exit 2 as for any other
bad usage of a command in print mode, and no request."""

from __future__ import annotations

from tests.fakes.openai_server import FakeOpenAIServer, Reply

from .scripted import is_summary_request
from .test_print_commands import fake

REFUSED = ("compact-agent: /compact --preview asks before it rewrites the session, and print mode cannot ask: "
           "run /compact without --preview to compact now, or --preview in the REPL")


def test_compact_preview_in_print_mode_is_refused_before_any_request(cli):
    def answer(req) -> Reply:
        return Reply.text("<summary>the work so far</summary>" if is_summary_request(req) else "ok " * 400)

    with FakeOpenAIServer(answer) as server:
        for prompt in ("first", "second", "third"):
            assert cli("-p", prompt, *fake(server), *(("-c",) if prompt != "first" else ())).code == 0
        saved = cli.sessions()[0].read_bytes()
        asked = len(server.requests)
        text = cli("-c", "-p", "/compact --preview", *fake(server))
        partial = cli("-c", "-p", "/compact --from 2 --preview", *fake(server))
        as_json = cli("-c", "-p", "/compact --preview", *fake(server), "--output-format", "json")
        assert len(server.requests) == asked  # no summary request
    assert cli.sessions()[0].read_bytes() == saved and cli.archives() == []
    for run in (text, partial):
        assert (run.code, run.stdout, run.stderr) == (2, "", REFUSED + "\n"), (run.code, run.stdout, run.stderr)
    out = as_json.json()
    assert as_json.code == 2 and out["is_error"] and out["error"] == REFUSED.removeprefix("compact-agent: "), out
