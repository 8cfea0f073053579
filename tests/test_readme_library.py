"""The README's library one-liner, `Agent("openai:gpt-4.1-mini", capabilities=[ContextManager(...)])`,
is refused by pydantic-ai as the agent is made when OPENAI_API_KEY is not set; the README said
nothing of a key, and a new user's first run of it ended in pydantic-ai's UserError. The text next
to it says so (docs/library.md's too), and what it says holds: without the key the agent is not
made, with one it is (nothing is sent)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from pydantic_ai.exceptions import UserError

ROOT = Path(__file__).resolve().parents[1]


def one_liner(page: Path) -> tuple[str, str]:
    """The page's first python block that makes an `openai:` agent, and the paragraph after it."""
    text = page.read_text(encoding="utf-8")
    for m in re.finditer(r"^```python[^\n]*\n(.*?)^```\n\n(.*?)\n\n", text, re.S | re.M):
        if 'Agent("openai:' in m.group(1):
            return m.group(1), " ".join(m.group(2).split())
    raise AssertionError(f"{page.name} has no openai: agent")


@pytest.mark.parametrize("page", [ROOT / "README.md", ROOT / "docs" / "library.md"])
def test_the_text_beside_the_one_liner_says_it_needs_openai_api_key(page: Path) -> None:
    _, beside = one_liner(page)
    assert "`OPENAI_API_KEY` set" in beside, beside


def test_what_it_says_holds(monkeypatch: pytest.MonkeyPatch) -> None:
    program, _ = one_liner(ROOT / "README.md")
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    with pytest.raises(UserError, match="OPENAI_API_KEY"):
        exec(program, {})
    monkeypatch.setenv("OPENAI_API_KEY", "sk-not-used")
    made: dict[str, object] = {}
    exec(program, made)
    assert type(made["agent"]).__name__ == "Agent"
