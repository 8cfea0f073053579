"""With only another provider's key set (ANTHROPIC_API_KEY, no DEEPSEEK_API_KEY), the missing-key
line said DeepSeek's variable was not set and nothing more: it now says which key is set and the
model option that uses it. With no key at all, or the provider's own, the line is as before."""

from __future__ import annotations

MISSING = "compact-agent: DEEPSEEK_API_KEY is not set (or pass --api-key, or --base-url for another server)"


def test_the_key_that_is_set_is_named_with_the_model_that_uses_it(cli) -> None:
    run = cli("-p", "hi", env={"ANTHROPIC_API_KEY": "sk-ant-only-this-one-123", "DEEPSEEK_API_KEY": ""})
    assert run.code == 1, run.stderr
    assert run.stderr.strip() == MISSING + "; ANTHROPIC_API_KEY is set: -m claude-sonnet-4-5 uses it", run.stderr
    assert "sk-ant-only-this-one-123" not in run.stderr + run.stdout


def test_no_key_at_all_is_said_as_before(cli) -> None:
    run = cli("-p", "hi", env={"ANTHROPIC_API_KEY": "", "OPENAI_API_KEY": "", "DEEPSEEK_API_KEY": ""})
    assert run.code == 1 and run.stderr.strip() == MISSING, run.stderr
