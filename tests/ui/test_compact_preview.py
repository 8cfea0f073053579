"""`/compact --preview` in a pseudo-terminal: the summary and what else would be kept are shown,
the question waits with no spinner over it, "n" changes nothing and "y" commits what was shown."""

from __future__ import annotations

import re

from compact_agent.session.store import load_session_file
from tests.e2e.scripted import is_notes_request, is_summary_request
from tests.fakes.openai_server import FakeOpenAIServer, Reply

from .pty_driver import Terminal

QUESTION = "keep this and rewrite the session? [y/N]"


def answer(req) -> Reply:
    if is_summary_request(req):
        n = sum(1 for r in answered if is_summary_request(r))
        return Reply.text(f"<summary>1. Primary Request and Intent: PREVIEWED-SUMMARY-{n}</summary>")
    if is_notes_request(req):
        return Reply.text("")
    return Reply.text("ok " * 1500)


answered: list = []


def recording(req) -> Reply:
    reply = answer(req)
    answered.append(req)
    return reply


def boundaries(term: Terminal) -> list:
    files = sorted((term.cwd.parent / "home" / "projects").glob("*/*.jsonl"))
    return [b for f in files for b in load_session_file(f).boundaries]


def test_compact_preview_shows_what_it_keeps_and_asks_before_committing(tmp_path):
    answered.clear()
    with FakeOpenAIServer(recording) as server:
        term = Terminal(tmp_path, server.base_url, cols=100, rows=40)
        try:
            at = term.prompt()
            for line in ("first question\r", "second question\r"):
                term.type(line)
                at = term.prompt(term.read_until("ok ok", at))
            term.type("/compact --preview\r")
            shown = term.read_until("preview of /compact (full)", at)
            asked = term.read_until(QUESTION, shown)
            preview = " ".join(term.text(shown, asked).split())
            assert "PREVIEWED-SUMMARY-0" in preview
            assert re.search(r"\d messages replaced by the summary keeps: the summary [\d,]+ · "
                             r"(?:(?:the message|\d+ messages) you typed [\d,]+ · )?the newest (message|\d+ messages) "
                         r"verbatim [\d,]+ · instructions and tools [\d,]+ tokens", preview), preview
            assert "compacting" not in term.text(asked)  # no spinner redrawn over the question
            term.type("n\r")
            declined = term.read_until("not compacted; nothing was changed", asked)
            at = term.prompt(declined)
            assert boundaries(term) == []
            assert not list((term.cwd.parent / "home" / "projects").glob("*/compact-history/*.jsonl"))

            term.type("/compact --preview\r")
            asked = term.read_until(QUESTION, term.read_until("PREVIEWED-SUMMARY-1", at))
            term.type("y\r")
            done = term.read_until("full transcript archived at", asked)
            at = term.prompt(done)
            term.type("/compact --bogus\r")
            term.prompt(term.read_until("unknown option --bogus for /compact", at))
            assert term.finish() == 0
        finally:
            term.close()
    [boundary] = boundaries(term)
    assert boundary.trigger == "manual" and boundary.tokens_after < boundary.tokens_before
    assert sum(1 for r in server.requests if is_summary_request(r)) == 2  # "--bogus" never reached the model
    after = load_session_file(sorted((term.cwd.parent / "home" / "projects").glob("*/*.jsonl"))[0]).messages
    assert "PREVIEWED-SUMMARY-1" in str(after[0].parts)  # what was shown is what was kept


async def test_a_partial_compaction_previews_too(tmp_path):
    from .repl_driver import drive

    answered.clear()
    run = await drive(tmp_path, recording, ["one\r", "two\r", "three\r", "/compact --preview --up-to 3\r",
                                            "/compact --up-to 3 --preview\r"], answers="n\ny\n")
    out = " ".join(run.out.split())
    assert out.count("preview of /compact (partial_up_to)") == 2
    assert "not compacted; nothing was changed" in out and "full transcript archived at" in out
    archives = list((tmp_path / "home" / "projects").glob("*/compact-history/*.jsonl"))
    assert len(archives) == 1  # the declined preview's copy was removed again
