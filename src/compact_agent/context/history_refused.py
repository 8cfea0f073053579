"""Why a history is refused against what the store holds, each in one line (contract.py decides when).

Each refusal comes before anything is written or sent, and says what the store holds and how to go
on: with the history it holds (`message_history=store.load_messages()`, or `resume()`), or apart
from it, on a store of its own. The `HistoryStore` protocol has no way to empty a store, so that
is the way to start anew.
"""

from __future__ import annotations

from collections.abc import Sequence

from pydantic_ai.messages import ModelMessage

GO_ON = "to go on with that conversation, pass the history the store holds (message_history=store.load_messages())"


def conversation_of(messages: Sequence[ModelMessage]) -> str | None:
    """The conversation the newest message that names one is of."""
    return next((m.conversation_id for m in reversed(messages) if m.conversation_id), None)


def _count(n: int) -> str:
    return f"{n} message{'s' if n != 1 else ''}"


def another_conversation(store: str, theirs: str, ours: str | None) -> str:
    """A store read for the first time holds another conversation, which the run's history would replace."""
    return (f"the store ({store}) holds conversation {theirs!r}, and this run is of {ours!r}: its history would "
            f"replace that one; {GO_ON}; for another, give each conversation (each ContextManager) a store of its own")


def no_history(store: str, held: Sequence[ModelMessage], ours: str | None = None) -> str:
    """A run given no `message_history` of a conversation the store holds: it would replace it all
    with its one new prompt (a program that opened its store in a new process, most often). `ours`:
    the run's conversation, when it is not the store's (no `conversation_id=` given: a new one made up)."""
    named = conversation_of(held)
    what = f" of conversation {named!r}," if named else ", which name no conversation,"
    if ours is not None:
        return (f"the store ({store}) holds {_count(len(held))}{what} and this run, of {ours!r}, was given no "
                f"message_history: it would replace them with its new prompt alone; {GO_ON}; for another, give "
                "each conversation (each ContextManager) a store of its own")
    return (f"the store ({store}) holds {_count(len(held))}{what} and this run of it was given no message_history: "
            f"it would replace them with its new prompt alone; {GO_ON}; to start anew, give the new conversation "
            "a store of its own")


def not_held(store: str, held: int, given: int, same: int) -> str:
    """Why `resume(history)` is refused: the store holds more than the history, or something else."""
    read = "pass what the store holds (resume() with no argument reads it)"
    its = _count(held)
    if same == given == 0:
        return f"resume([]): the store ({store}) is not new, it holds {its}: {read}, or give this conversation a new store"
    if same == given:
        return (f"resume(): the store ({store}) holds {its}, the history given only its first {given}: {read}, or "
                "run with the shorter history without resume(), which archives what the store held and rewrites it")
    return (f"resume(): what the store ({store}) holds differs from the history given at message {same + 1} (of "
            f"its {its}): {read}, or give this history a store of its own")
