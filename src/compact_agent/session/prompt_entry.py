"""A typed message's `prompt` entry (journal.py), as the store follows it to the request that
takes it to the model (`users_request`: a request of the user's words).

The message is saved as a `prompt` entry the moment it is typed; the request that carries it names
the entry, and a turn that ended before it was sent marks the entry unsent
(`SessionStore.settle_prompt`), so that a load leaves it out, as this run's history does. When it is
that request which could not be saved (a full disk: the few bytes of the entry fitted, the request
did not), the message was not left unsent: the entry stays unmarked, a load reads it as the user's
message, unanswered, and this run's history, loaded again after the failed turn, holds it too, as
after a request the provider refused (marked unsent, it dropped out of the conversation, and
nothing said so)."""

from __future__ import annotations

from pydantic_ai.messages import ModelMessage, UserPromptPart

from ..context.plumbing.markers import users_request as users_request


def prompt_text(m: ModelMessage) -> str:
    return "".join(p.content for p in m.parts if isinstance(p, UserPromptPart) and isinstance(p.content, str))
