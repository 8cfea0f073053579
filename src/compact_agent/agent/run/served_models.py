"""The models a server given with `--base-url` says it serves, asked when it answers 404 for the one
requested, so that the line saying so names them, and before `/model NAME` switches to a name it
does not serve.

A first run against a local server (vLLM, Ollama, LM Studio) without `-m` asks for `deepseek-chat`,
and one with `-m` often for a name a little off the one the server registered (`qwen2.5-coder` for
`Qwen/Qwen2.5-Coder-7B-Instruct`): the line said to check the model name, and the person had to find
out by other means what the names were. The server's own list (`GET /v1/models`, which the
OpenAI-compatible servers answer) is asked once, briefly, after the failure; nothing is said when it
does not answer. `/model qwen2.5-coder` took the name silently and the next message failed; it is
now refused in one line naming the closest names the server lists (`not_served`), nothing switched.
"""

from __future__ import annotations

import asyncio
import contextlib
import difflib
from typing import Any

from ...error_notes import note_served_models
from ...models import UsageError

#: How long the list is waited for (it comes after a failure: the line should not wait long).
WAIT_S = 5.0


async def note_served(e: BaseException, model: Any) -> None:
    """On `e`, a request's 404 for its model from a server given with --base-url, note the models
    the server lists (the `client` of pydantic-ai's model, an AsyncOpenAI)."""
    if getattr(e, "status_code", None) == 404:
        note_served_models(e, await served(model))


async def served(model: Any) -> list[str]:
    """The model names the server of `model` (its `client`, an AsyncOpenAI) lists; none when it
    lists none or does not answer within `WAIT_S`."""
    client: Any = getattr(model, "client", None)
    if not hasattr(client, "models"):
        return []
    with contextlib.suppress(Exception):  # a server without the list, or down: nothing is known
        quick = client.with_options(timeout=WAIT_S, max_retries=0)
        page = await asyncio.wait_for(quick.models.list(), WAIT_S + 1)
        return [m.id for m in page.data if isinstance(getattr(m, "id", None), str) and m.id]
    return []


async def check_served(session: Any, name: str) -> None:
    """Before `/model NAME` switches: raise UsageError (one line, nothing switched) when the server
    given with --base-url lists its models and `name` is not one of them. Not for the model in use
    (a new window for it), nor when that one is not listed either and has been answered: a server
    that answers names it does not list (llama.cpp's takes any) is no guide to them."""
    opts, in_use = session.opts, session.info.name
    if not opts.base_url or name == in_use:
        return
    from pydantic_ai.messages import ModelResponse

    from ...models import build_model
    from ...secrets import shown_url

    ids = await served(build_model(name, base_url=opts.base_url, api_key=opts.api_key))
    answered = any(isinstance(m, ModelResponse) for m in session.messages)
    if ids and name not in ids and (in_use in ids or not answered):
        raise UsageError(not_served(name, ids, shown_url(opts.base_url)))


def not_served(name: str, ids: list[str], endpoint: str, shown: int = 8) -> str:
    """`not switched: fake-modle is not a model http://127.0.0.1:8000/v1 serves; did you mean
    fake-model?`, the closest of `ids` by spelling (case aside) or, with none close, the first
    `shown` it lists."""
    lower = {i.lower(): i for i in reversed(ids)}
    close = [lower[c] for c in difflib.get_close_matches(name.lower(), list(lower), n=3, cutoff=0.6)]
    if close:
        said = f"did you mean {' or '.join(close)}?"
    else:
        more = f" and {len(ids) - shown} more" if len(ids) > shown else ""
        said = f"it serves {', '.join(ids[:shown])}{more}"
    return f"not switched: {name} is not a model {endpoint} serves; {said}"

