"""A provider that reports its token counts as numbers that are not whole (`1.5`, `1e308`): the
answer is saved with counts a resumed session reads back. The file kept the counts as sent, and
reading it refused that line: `-c` warned of an unreadable line and the model's answer was gone."""

from __future__ import annotations

from typing import Any

import pytest

from tests.fakes.openai_server import FakeOpenAIServer, Fault, Reply


def _usage(**counts: object) -> Any:
    return lambda chunk: {**chunk, "usage": {**chunk["usage"], **counts}} if chunk.get("usage") else chunk


@pytest.mark.parametrize("counts", [{"prompt_tokens": 1e308, "completion_tokens": 1.5},
                                    {"completion_tokens": 2.0, "prompt_tokens_details": {"cached_tokens": 0.5}}],
                         ids=["huge and a half", "whole floats and a cached half"])
def test_the_answer_is_read_back_on_resume(cli, counts: dict[str, object]) -> None:
    answers = iter(["the first answer", "the second answer"])
    first = {"on": True}

    def faults(req: Any, attempt: int) -> Fault | None:
        return Fault.reshaped(_usage(**counts)) if first["on"] else None

    with FakeOpenAIServer(lambda req: Reply.text(next(answers)), faults=faults) as server:
        args = ["--model", "fake-model", "--base-url", server.base_url, "--api-key", "k"]
        res = cli("-p", "hi", *args)
        first["on"] = False
        again = cli("-c", "-p", "again", *args)
    assert res.code == 0 and res.stdout == "the first answer\n", res
    assert again.code == 0 and again.stdout == "the second answer\n", again
    assert "unreadable" not in again.stderr and again.stderr.count("\n") <= 1, again.stderr
    assert "the first answer" in server.requests[-1].all_text()  # the answer went back with the history
