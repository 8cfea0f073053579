"""/cost says the trimming kept tokens out of the requests only when something was trimmed. A first
message with a small file attached (`@a.py`) trimmed nothing, and /cost said `no compaction yet;
trimming what was sent ... kept ~106 input tokens out of the requests` while /status said every layer
kept 0 out: the few tokens the sent messages and the saved ones differ by were scaled by the
provider's count of the whole request, system prompt and tools included, against the messages' alone."""

from __future__ import annotations

import json

from tests.fakes.openai_server import Reply

from .repl_driver import drive


async def test_an_attached_small_file_is_no_trimming_in_cost(tmp_path):
    cwd = tmp_path / "project"
    cwd.mkdir()
    (cwd / "a.py").write_text("x = 1\n")
    run = await drive(tmp_path, lambda req: Reply.text("ok"), ["see @a.py\r", "/cost\r"])
    assert "⎿ attached a.py (1 line)" in run.out, run.out
    [ledger] = (tmp_path / "home" / "projects").glob("*/*/usage.jsonl")
    [entry] = [json.loads(line) for line in ledger.read_text().splitlines()]
    assert entry["avoided"] == 0, entry
    assert "compaction has kept nothing out of the requests yet" in run.out, run.out
    assert "trimming what was sent" not in run.out
