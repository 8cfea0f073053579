"""bash output that is not UTF-8, through the tool as the agent calls it: valid UTF-8 is UTF-8,
any other byte is read as its Windows-1252 character, and a line says so; a cut inside a UTF-8
character is not taken for such a byte."""

from __future__ import annotations

from pathlib import Path

from compact_agent.agent.tools.base import ToolEnv

from .test_tools import call, make_env

NOT_UTF8 = "[the output is not all UTF-8: each byte that is not is shown as its Windows-1252 (Latin-1) character]"


async def test_bash_output_that_is_not_utf8_is_read_as_windows_1252_and_said_to_be(env: ToolEnv) -> None:
    out = await call(env, "bash", command=r"printf 'caf\xe9 \x93ok\x94\n'")
    assert out == f"café “ok”\n{NOT_UTF8}\nexit code: 0"
    out = await call(env, "bash", command=r"printf 'd\xc3\xa9j\xc3\xa0 caf\xe9\n'")  # UTF-8 and one stray byte
    assert out == f"déjà café\n{NOT_UTF8}\nexit code: 0"
    assert await call(env, "bash", command="printf 'déjà vu\\n'") == "déjà vu\nexit code: 0"  # no note


async def test_cutting_utf8_output_mid_character_does_not_say_it_is_not_utf8(work: Path) -> None:
    env = make_env(work, bash_output_max_chars=100)  # keeps 400 bytes each end, both cuts inside an é
    out = await call(env, "bash", command="printf 'x'; printf 'é%.0s' {1..5000}; printf 'y\\n'")
    assert NOT_UTF8 not in out and "\ufffd" not in out and "Ã" not in out
    assert out.startswith("x" + "é" * 49 + "\n[… ") and out.endswith("\n" + "é" * 48 + "y\nexit code: 0")
