"""Arguments a model may send that Python takes badly: a regex nested hundreds of groups deep was
refused in Python's words ('maximum recursion depth exceeded while calling a Python object'), and a
NaN timeout killed the command at once, 'timed out after nans'."""

from __future__ import annotations

from compact_agent.agent.tools.base import ToolEnv

from .test_tools import call


async def test_a_regex_nested_too_deeply_is_refused_in_our_words(env: ToolEnv) -> None:
    out = await call(env, "grep", pattern="(" * 500 + "a" + ")" * 500)
    assert out.startswith("invalid regex '((((") and out.endswith(": groups nested too deeply"), out


async def test_a_nan_timeout_runs_the_command_with_the_default_timeout(env: ToolEnv) -> None:
    assert await call(env, "bash", command="echo ran", timeout=float("nan")) == "ran\nexit code: 0"
