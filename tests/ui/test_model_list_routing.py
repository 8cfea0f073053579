"""`/model` alone ends its list of known models with where a name goes: it said 'any other name goes
to the OpenAI-compatible endpoint (--base-url)' whatever the session ran with, while with --base-url
every name, the listed ones too, goes to that endpoint, and without it another name goes to OpenAI
(or to Anthropic or DeepSeek by how it starts), there being no endpoint to go to."""

from __future__ import annotations

from pathlib import Path

from compact_agent.models import provider_for
from compact_agent.ui.model_command import where_names_go
from tests.fakes.openai_server import Reply

from .repl_driver import drive


async def test_with_a_base_url_every_name_goes_there(tmp_path: Path) -> None:
    run = await drive(tmp_path, lambda req: Reply.text("ok"), ["/model\r"])
    flat = " ".join(run.out.split())
    assert (f"switch with /model NAME [--window N]; every name goes to {run.opts.base_url} (--base-url), "
            "those listed too") in flat, run.out
    assert provider_for("deepseek-chat", run.opts.base_url) == "openai"  # as said: the endpoint's


def test_without_one_a_name_goes_by_how_it_starts() -> None:
    said = where_names_go(None)
    assert "goes to OpenAI" in said and "--base-url)" not in said.split("(")[0], said
    assert [provider_for(n, None) for n in ("my-model", "claude-x", "deepseek-y")] == ["openai", "anthropic", "deepseek"]
    assert where_names_go("http://me:secret@127.0.0.1:8080/v1").startswith("every name goes to http://me:***@")
