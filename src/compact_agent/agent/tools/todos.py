"""The plan: a `todo_write` tool whose list survives compaction.

A long task's plan lives in the conversation, and the conversation is what compaction rewrites;
a summary may keep "step 3 of 7" or may not. So the list is state of the session, not text of
the transcript: `todo_write` replaces it (the model always sends the whole list, which keeps the
tool idempotent and the state obvious), it is saved beside the session file (so `--continue`
has it), shown to the user on every change, and put back into the context after every
compaction as a clearly marked attachment (`attachment_text`).
"""

from __future__ import annotations

import json
import logging
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, Field, ValidationError
from pydantic_ai.messages import ModelMessage, ToolCallPart
from pydantic_ai.toolsets import FunctionToolset

from ...session.store import atomic_write

log = logging.getLogger(__name__)

Status = Literal["pending", "in_progress", "done"]
PLAN_HEAD = "[compact-agent: current plan]"
MARK = {"pending": "[ ]", "in_progress": "[~]", "done": "[x]"}


class TodoItem(BaseModel):
    content: str = Field(description="What to do, as one short imperative line.")
    status: Status = "pending"  # the schema's enum names the three states


class TodoList:
    """The session's plan, persisted to `path` (JSON) on every change."""

    def __init__(self, path: Path | None, on_change: Callable[[list[TodoItem]], None] | None = None) -> None:
        self.path = path
        self.on_change = on_change
        self.items: list[TodoItem] = []
        self.warning = ""
        if path is not None:
            self._load(path)

    def _load(self, path: Path) -> None:
        try:
            raw = json.loads(path.read_text(encoding="utf-8"))
            self.items = [TodoItem.model_validate(x) for x in raw.get("todos", [])]
        except FileNotFoundError:
            pass
        except (OSError, ValueError, ValidationError, AttributeError, TypeError, RecursionError):
            self.warning = f"{path.name} is unreadable; the plan starts empty"

    def write(self, items: list[TodoItem]) -> str:
        """Replace the plan; returns what the tool tells the model."""
        items = [i for i in items if i.content.strip()]
        self.items = items
        if self.path is not None:
            try:
                atomic_write(self.path, json.dumps({"todos": [i.model_dump() for i in items]}, indent=1).encode())
            except OSError as e:
                log.warning("could not save the plan: %s", e)
        if self.on_change is not None:
            try:
                self.on_change(list(items))
            except Exception:  # a UI problem must not fail the tool call
                log.exception("todo on_change failed")
        if not items:
            return "Plan cleared."
        done = sum(i.status == "done" for i in items)
        return f"Plan updated ({done}/{len(items)} done):\n{render_plain(items)}"

    def rewind_to(self, messages: Sequence[ModelMessage]) -> None:
        """The plan as the last `todo_write` kept in `messages` left it (empty if none), put back
        without telling `on_change`: a rewind takes back the plan of the turns it undoes too."""
        quiet, self.on_change = self.on_change, None
        try:
            self.write(plan_in(messages))
        finally:
            self.on_change = quiet

    def attachment_text(self) -> str | None:
        """The plan as restored after a compaction; None when there is none."""
        if not self.items:
            return None
        return (f"{PLAN_HEAD} The plan you were following (kept across the compaction; update it with "
                f"todo_write as you go):\n{render_plain(self.items)}")


def render_plain(items: list[TodoItem]) -> str:
    return "\n".join(f"{MARK[i.status]} {i.content}" for i in items)


def todo_toolset(plan: TodoList) -> FunctionToolset[Any]:
    async def todo_write(todos: list[TodoItem]) -> str:
        """Write the whole plan for a multi-step task, every item each time: it replaces the previous list. Keep one item in_progress; mark items done as soon as they are. The plan survives context compactions.

        Args:
            todos: Every item of the plan, in order, with its status.
        """
        return plan.write(todos)

    return FunctionToolset([todo_write])


def plan_in(messages: Sequence[ModelMessage]) -> list[TodoItem]:
    """The plan as the last `todo_write` in `messages` left it (empty if none): what a rewind to
    that point of the history puts back."""
    items: list[TodoItem] = []
    for m in messages:
        for p in m.parts:
            if isinstance(p, ToolCallPart) and p.tool_name == "todo_write":
                try:
                    items = [TodoItem.model_validate(t) for t in p.args_as_dict().get("todos", [])]
                except (ValueError, TypeError):
                    continue
    return items
