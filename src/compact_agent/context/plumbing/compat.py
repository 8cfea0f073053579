"""What differs between the pydantic-ai-slim versions the library runs on (2.62 to 2.69).

pydantic-ai-harness pins pydantic-ai-slim 2.62, so a library meant to sit beside it in one agent
cannot require what 2.64 added. Two things matter here:

- 2.64 added `prepare_model_request`, a hook run on every attempt at a model request; before it,
  `before_model_request` (once per request) is where the view is prepared.
- 2.64 added `RetryModelRequest`, with which `on_model_request_error` asks for the same request
  again; before it, the hook sends the compacted request itself and returns the response.

`UsageLimitExceeded` ends its text with advice of its own ("Consider raising the limit, or see the docs
on usage limits ...": 2.62 and 2.68 do): `LIMIT_ADVISED` says whether it does, read from the class itself,
and a line the library ends a run with on it leaves raising the limit to that advice (request_limit.over).

`model.context_window` (2.68) is read with `getattr` where it is used (lifecycle.window_from).
Capability events (`CapabilityEvent`, emitted with `RunContext.emit` from a hook) are in every one of
them, with the same API: events.py uses them alike on each.
"""

from __future__ import annotations

from pydantic_ai import exceptions
from pydantic_ai.capabilities import AbstractCapability

__all__ = ["HAS_PREPARE_HOOK", "LIMIT_ADVISED", "RETRY_MODEL_REQUEST"]

#: pydantic-ai 2.64+: capabilities have a per-attempt `prepare_model_request` hook.
HAS_PREPARE_HOOK: bool = hasattr(AbstractCapability, "prepare_model_request")
#: pydantic-ai 2.64+: the exception with which `on_model_request_error` retries a request; else None.
RETRY_MODEL_REQUEST: type[Exception] | None = getattr(exceptions, "RetryModelRequest", None)
#: `UsageLimitExceeded`'s text ends with pydantic-ai's own advice to raise the limit (2.62 and 2.68 do).
LIMIT_ADVISED: bool = str(exceptions.UsageLimitExceeded("limit")) != "limit"
