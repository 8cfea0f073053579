"""A paste too large for a request goes out shortened (its head and tail, and the file that holds
it: big_input.py) while the line saved when Enter was pressed is the whole paste (journal.py). In a
turn that also compacts, the store had to tell that the shortened request carries the saved line,
or a resume would show the paste again, unanswered, beside its answer. Checked on the session file
as it is after every write of such a turn (a kill at any of those instants) and after the turn."""

from __future__ import annotations

import json

from compact_agent.config import Settings
from compact_agent.session.store import SessionStore, load_session_file
from tests.e2e.scripted import is_notes_request, is_summary_request
from tests.fakes.openai_server import Reply

from .repl_driver import drive, pasted

# The same compaction in every run: no notes written in the background, and no price on the user's
# wait for a look-again (it scales with how long the requests took, which a loaded machine changes).
QUIET = Settings(memory_enabled=False, stall_wait_usd=0.0)
# A model with known prices: the turn compacts before the threshold, where they say it pays (a model
# without them compacts at the threshold only, which the shortened paste stays under).
MODEL = "deepseek-chat"
PASTE = " ".join(f"entry-{i}" for i in range(3_000))  # ~8K tokens: over half a 16K window's threshold


def answer(req) -> Reply:
    if is_summary_request(req):
        return Reply.text("<summary>1. Primary Request and Intent: read the log.</summary>")
    if is_notes_request(req):
        return Reply.text("")
    return Reply.text("ok " * 1300)


def pastes(data: bytes, where) -> tuple[int, list[str]]:
    """How many messages of the session (as `data` would load) hold the paste, and the warnings."""
    where.write_bytes(data)
    loaded = load_session_file(where)
    held = sum(1 for m in loaded.messages for p in m.parts
               if isinstance(getattr(p, "content", None), str) and "entry-0 entry-1 " in p.content)
    return held, loaded.warnings


async def test_a_shortened_paste_in_a_turn_that_compacts_is_never_shown_again_unanswered(tmp_path, monkeypatch):
    files: list[tuple[str, bytes]] = []  # the session file after each write
    append, rewrite = SessionStore._append_lines, SessionStore.rewrite

    def appended(self, entries):
        append(self, entries)
        typed = any(e["kind"] == "prompt" and "entry-0 " in e["prompt"].get("text", "") for e in entries)
        files.append(("paste typed" if typed else "+" + ",".join(e["kind"] for e in entries), self.path.read_bytes()))

    def rewritten(self, boundary, messages):
        rewrite(self, boundary, messages)
        files.append(("rewrite", self.path.read_bytes()))

    monkeypatch.setattr(SessionStore, "_append_lines", appended)
    monkeypatch.setattr(SessionStore, "rewrite", rewritten)
    run = await drive(tmp_path, answer, [f"q{i}\r" for i in range(5)] + [pasted(PASTE) + "\r"], context_window=16_000,
                      settings=QUIET, model=MODEL)
    assert "is over half of the 10,400 at which the conversation is compacted in the 16,000-token window" in run.out
    start = next(i for i, (what, _) in enumerate(files) if what == "paste typed")
    turn = files[start:]
    assert "rewrite" in [what for what, _ in turn], [what for what, _ in turn]  # it compacted in that turn
    for what, data in turn:
        held, warnings = pastes(data, tmp_path / "then.jsonl")
        assert held == 1, (what, held, warnings)  # the paste once: as typed before it went, then as sent
    [path] = (tmp_path / "home" / "projects").glob("*/*.jsonl")
    assert not [json.loads(line) for line in path.read_text().splitlines()
                if json.loads(line)["kind"] == "prompt" and "text" in json.loads(line)["prompt"]]
    again = await drive(tmp_path, answer, ["go on\r"], continue_last=True, settings=QUIET, model=MODEL)
    assert "had not reached the model" not in again.out
    assert pastes(path.read_bytes(), tmp_path / "now.jsonl") == (1, [])
