"""Every key `analyze --json` writes is named in docs/analyzer.md, which says what it holds."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

from .test_cli_analyze import cli

DOC = Path(__file__).resolve().parents[2] / "docs" / "analyzer.md"


def _keys(value: Any) -> set[str]:
    if isinstance(value, dict):
        return set(value).union(*(_keys(v) for v in value.values()))
    if isinstance(value, list):
        return set().union(*(_keys(v) for v in value))
    return set()


def test_every_json_key_is_documented(tmp_path: Path) -> None:
    """Half the keys (cache_share, compaction_freed, freed_per_request, the retention_* figures, the
    fit's samples and errors, the prices' fields, ...) were named nowhere: a script had to guess what
    `retention_files: null` or `summary_calls` counted."""
    chat = [{"role": "user", "content": "read src/app/main.py"},
            {"role": "assistant", "content": "src/app/main.py defines main_entry", "usage": {"prompt_tokens": 40,
                                                                                          "completion_tokens": 9}},
            {"role": "user", "content": "and now?"}, {"role": "assistant", "content": "main_entry in src/app/main.py"}]
    (tmp_path / "t.json").write_text(json.dumps(chat))
    full = cli("t.json", "--json", "--pricing", "anthropic", cwd=tmp_path)
    totals = cli("t.json", "--json", "--totals", cwd=tmp_path)
    assert full.returncode == totals.returncode == 0, full.stderr + totals.stderr
    keys = _keys(json.loads(full.stdout)) | _keys(json.loads(totals.stdout))
    named = set(re.findall(r"`([a-z_]+)`", DOC.read_text()))
    assert len(keys) > 50 and sorted(keys - named) == []
