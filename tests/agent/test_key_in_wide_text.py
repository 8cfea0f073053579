"""A `.env` in UTF-16 (what Windows PowerShell's `>` writes) printed by a command: each character of
the key came with a NUL after it, which the redaction did not see through, so `cat .env` sent the
key to the model whole. read_file decodes such a file and was never affected."""

from __future__ import annotations

from pathlib import Path

from compact_agent import secrets
from compact_agent.agent.tools.base import ToolEnv

from .test_tools import call

KEY = "sk-wide-5c7e0a9b2d4f6e8a1c3b5d7f9e0a2c4b"


async def test_cat_of_a_utf16_env_file_sends_no_key(env: ToolEnv, work: Path) -> None:
    secrets.register(KEY)
    (work / ".env").write_bytes(f"\ufeffOPENAI_API_KEY={KEY}\r\n".encode("utf-16-le"))
    out = await call(env, "bash", command="cat .env")
    assert secrets.REDACTED in out
    assert KEY not in out.replace("\0", "") and KEY[8:24] not in out.replace("\0", "")
    shown = await call(env, "bash", command="cat -A .env")  # what the model runs next: each NUL as ^@
    assert secrets.REDACTED in shown and KEY[8:24] not in shown.replace("^@", "")
