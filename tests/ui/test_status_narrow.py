"""/status in 60 columns keeps its label column: a row longer than the terminal wraps under its
value, where 'provider-reported' and the session id went on at column 0, under the labels. The
session has a row of its own when it does not fit beside the model."""

from __future__ import annotations

import io
import re
from pathlib import Path
from typing import Any

from rich.console import Console

from tests.fakes.openai_server import Reply

from .repl_driver import drive


def answer(req: Any) -> Reply:
    return Reply.text("ok")


async def test_status_rows_wrap_under_their_values(tmp_path: Path) -> None:
    console = Console(record=True, width=60, file=io.StringIO(), force_terminal=False)
    run = await drive(tmp_path, answer, ["hello\r", "/status\r"], console=console)
    lines = run.out.splitlines()
    rows = lines[next(i for i, row in enumerate(lines) if row.startswith("model ")):]
    rows = rows[:next(i for i, row in enumerate(rows) if "what the layers keep" in row) - 1]  # the table's
    assert all(len(row.rstrip()) <= 60 for row in rows), rows
    labels = [row.split()[0] for row in rows if not row.startswith(" ")]
    # every other row is indented under a value; the session id on a row of its own, where it went
    # under 'session' at the end of the model's row
    assert labels == ["model", "session", "endpoint", "context", "compactions"], rows
    assert rows[0].rstrip() == "model       fake-model (OpenAI-compatible)", rows
    assert re.fullmatch(r"session     \d{8}-\d{6}-[0-9a-f]{6}", rows[1].rstrip()), rows
    # every value, the compactions' too (its label is the longest), starts in one column
    starts = {len(row) - len(row[len(row.split()[0]):].lstrip()) for row in rows if not row.startswith(" ")}
    assert starts == {12}, rows
    joined = " ".join(" ".join(rows).split())
    assert "tokens, provider-reported" in joined and "auto-compaction on" in joined, rows
