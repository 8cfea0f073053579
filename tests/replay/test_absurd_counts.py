"""A token count no provider reports for one request (a damaged or hand-made file) is not believed:
believed, an input of 10**300 tokens priced the transcript at a 60-digit cost that broke the table's
cells, and one of 10**400 stopped the analysis, since no float holds it. That request's usage is
treated as unrecorded, with a warning under the transcript saying so."""

from __future__ import annotations

import json
from pathlib import Path

from pydantic_ai.messages import ModelResponse, TextPart
from pydantic_ai.usage import RequestUsage

from compact_agent.replay._recorded import MAX_BELIEVED_TOKENS, set_aside_absurd_usage

from .test_cli_analyze import cli


def _chat(absurd: dict[str, int]) -> list[dict[str, object]]:
    """Four rounds whose recorded usage follows the messages, the third's replaced by `absurd`."""
    chat: list[dict[str, object]] = []
    for i in range(4):
        chat.append({"role": "user", "content": f"read src/app/module_{i}.py " + "context words " * 50 * i})
        usage = absurd if i == 2 else {"prompt_tokens": 300 + 180 * i, "completion_tokens": 12}
        chat.append({"role": "assistant", "content": f"src/app/module_{i}.py defines entry_{i}", "usage": usage})
    return chat


def test_absurd_counts_are_not_believed_and_the_table_stays_whole(tmp_path: Path) -> None:
    for name, absurd in (("input", {"prompt_tokens": 10**300, "completion_tokens": 12}),
                         ("output", {"prompt_tokens": 660, "completion_tokens": 10**300}),
                         ("beyond a float", {"prompt_tokens": 10**400, "completion_tokens": 10**400})):
        (tmp_path / "t.json").write_text(json.dumps(_chat(absurd)))
        out = cli("t.json", "--json", cwd=tmp_path)
        assert out.returncode == 0, (name, out.stderr)
        data = json.loads(out.stdout)
        [t] = data["transcripts"]
        assert any("more than 1,000,000,000 tokens" in w and "not believed" in w for w in t["warnings"]), name
        assert t["fit"]["samples"] == 3, name  # the three believable requests are fitted, the absurd one is not
        for m in data["totals"]:
            assert m["cost"] < 1 and m["input_tokens"] < 10**5 and m["output_tokens"] < 10**4, (name, m)
        table = cli("t.json", cwd=tmp_path, env={"COLUMNS": None})  # a file: the 80-column table
        assert table.returncode == 0, table.stderr
        assert "…" not in table.stdout and max(map(len, table.stdout.splitlines())) <= 80, table.stdout
        assert "warning: the recorded usage of 1 response counts more than 1,000,000,000 tokens" in table.stdout


def test_the_bound_is_a_billion_tokens_in_any_count() -> None:
    def response(**counts: int) -> ModelResponse:
        usage = RequestUsage()
        for name, n in counts.items():
            setattr(usage, name, n)
        return ModelResponse(parts=[TextPart("ok")], usage=usage)

    believed = [response(input_tokens=MAX_BELIEVED_TOKENS, output_tokens=MAX_BELIEVED_TOKENS)]
    assert set_aside_absurd_usage(believed) is None and believed[0].usage.input_tokens == MAX_BELIEVED_TOKENS
    for field in ("input_tokens", "output_tokens", "cache_read_tokens", "cache_write_tokens"):
        messages = [response(input_tokens=50, output_tokens=5), response(**{field: MAX_BELIEVED_TOKENS + 1})]
        assert set_aside_absurd_usage(messages) is not None, field
        assert messages[0].usage.input_tokens == 50 and messages[1].usage.unmeasured_requests == 1, field
