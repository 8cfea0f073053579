"""The models a server given with `--base-url` (or at OPENAI_BASE_URL) says it serves, asked when it answers 404 for the one
requested, so that the line saying so names them, and before `/model NAME` switches to a name it
does not serve.

A first run against a local server (vLLM, Ollama, LM Studio) without `-m` asks for `deepseek-chat`,
and one with `-m` often for a name a little off the one the server registered (`qwen2.5-coder` for
`Qwen/Qwen2.5-Coder-7B-Instruct`): the line said to check the model name, and the person had to find
out by other means what the names were. The server's own list (`GET /v1/models`, which the
OpenAI-compatible servers answer) is asked once, briefly, after the failure; nothing is said when it
does not answer. `/model qwen2.5-coder` took the name silently and the next message failed; it is
now refused in one line naming the closest names the server lists (`not_served`), nothing switched.
A list that does not come within `WAIT_S`, or fails, does not hold the switch up: it goes on, and
`check_served` gives the one line that says the name was not checked (`Unread`).
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


class Unread(Exception):
    """The server's model list could not be read: `why`, in a few words of ours."""

    def __init__(self, why: str) -> None:
        super().__init__(why)
        self.why = why


async def served(model: Any) -> list[str]:
    """The model names the server of `model` (its `client`, an AsyncOpenAI) lists; none when it
    lists none or its list cannot be read within `WAIT_S`."""
    with contextlib.suppress(Unread):  # a server down, or slow: nothing is known
        return await listed(model, WAIT_S)
    return []


async def listed(model: Any, wait: float) -> list[str]:
    """The model names the server of `model` lists, waited for `wait` seconds at most, however the
    server answers (one that sends a byte now and then, never done, included); none when it has no
    list (no client for it, or `GET /models` answers 404). Unread when it does not come in time or
    fails."""
    client: Any = getattr(model, "client", None)
    if not hasattr(client, "models"):
        return []
    try:
        quick = client.with_options(timeout=wait, max_retries=0)
        async with asyncio.timeout(wait):
            page = await quick.models.list()
        return [m.id for m in page.data if isinstance(getattr(m, "id", None), str) and m.id]
    except Exception as e:  # whatever the SDK or the answer raise: said in our words
        status = getattr(e, "status_code", None)
        if status in (404, 405):  # a server without the list
            return []
        raise Unread(unread_why(e, wait)) from None


def unread_why(e: Exception, wait: float) -> str:
    """Why the list was not read, in a few words: `no answer within 5 s`, `it answered HTTP 500`."""
    import openai

    if isinstance(e, TimeoutError | openai.APITimeoutError):
        return f"no answer within {wait:g} s"
    if isinstance(status := getattr(e, "status_code", None), int):
        return f"it answered HTTP {status}"
    if isinstance(e, openai.APIConnectionError):
        return "no connection"
    return "its answer was no model list"


async def check_served(session: Any, name: str) -> str:
    """Before `/model NAME` switches: raise UsageError (one line, nothing switched) when the server
    the name goes to (given with --base-url, or at OPENAI_BASE_URL) lists its models and `name` is not one of them. Not for the model in use
    (a new window for it), nor when that one is not listed either and has been answered: a server
    that answers names it does not list (llama.cpp's takes any) is no guide to them. When the list
    cannot be read within `WAIT_S` (read when called: tests make it short), the line that says the
    name was not checked, for the switch to go on after; else "". """
    opts, in_use = session.opts, session.info.name
    if name == in_use:
        return ""
    from pydantic_ai.messages import ModelResponse

    from ...models import build_model, provider_for
    from ...secrets import shown_url
    from .server_keys import sent_to

    # The server the name goes to, given with --base-url (or a config's base_url), or the one the
    # OpenAI client reads from OPENAI_BASE_URL: a name that server does not serve was taken silently
    # there, and the next message failed with a 404.
    provider = provider_for(name, opts.base_url)
    url = sent_to(opts.base_url, provider) if opts.base_url or provider == "openai" else None
    if not url:
        return ""
    try:
        ids = await listed(build_model(name, base_url=opts.base_url, api_key=opts.api_key), WAIT_S)
    except Unread as e:
        return f"the model list of {shown_url(url)} could not be read ({e.why}), so {name} was not checked against it"
    answered = any(isinstance(m, ModelResponse) for m in session.messages)
    if ids and name not in ids and (in_use in ids or not answered):
        raise UsageError(not_served(name, ids, shown_url(url)))
    return ""


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

