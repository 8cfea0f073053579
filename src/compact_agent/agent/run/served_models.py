"""The models a server given with `--base-url` says it serves, asked when it answers 404 for the one
requested, so that the line saying so names them.

A first run against a local server (vLLM, Ollama, LM Studio) without `-m` asks for `deepseek-chat`,
and one with `-m` often for a name a little off the one the server registered (`qwen2.5-coder` for
`Qwen/Qwen2.5-Coder-7B-Instruct`): the line said to check the model name, and the person had to find
out by other means what the names were. The server's own list (`GET /v1/models`, which the
OpenAI-compatible servers answer) is asked once, briefly, after the failure; nothing is said when it
does not answer.
"""

from __future__ import annotations

import asyncio
import contextlib
from typing import Any

from ...error_notes import note_served_models

#: How long the list is waited for (it comes after a failure: the line should not wait long).
WAIT_S = 5.0


async def note_served(e: BaseException, model: Any) -> None:
    """On `e`, a request's 404 for its model from a server given with --base-url, note the models
    the server lists (the `client` of pydantic-ai's model, an AsyncOpenAI)."""
    client: Any = getattr(model, "client", None)
    if getattr(e, "status_code", None) != 404 or not hasattr(client, "models"):
        return
    with contextlib.suppress(Exception):  # a server without the list, or down by now: said as before
        quick = client.with_options(timeout=WAIT_S, max_retries=0)
        page = await asyncio.wait_for(quick.models.list(), WAIT_S + 1)
        ids = [m.id for m in page.data if isinstance(getattr(m, "id", None), str) and m.id]
        note_served_models(e, ids)

