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
import typing
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, Field, TypeAdapter, ValidationError
from pydantic_ai import Tool
from pydantic_ai.messages import ModelMessage, ToolCallPart, ToolReturn
from pydantic_ai.toolsets import FunctionToolset

from ...context.compaction.summary import one_line
from ...context.plumbing.markers import mark
from ...regular_file import read_own
from ...session.store import atomic_write
from .arg_errors import got

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
            raw = json.loads(read_own(path).decode("utf-8"))
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
    """The plan, one line an item. The model writes the items, possibly as a file it read told it to,
    and the plan comes back after each compaction as a user-role message of the program's: an item's
    line break would let the text after it start a line of its own there (a copy of the compaction
    message's header for the user's words, then an instruction), so each item is put on its line,
    every run of whitespace a space and any other control or invisible character its escape. A copy
    of the program's head or of the marker of the user's words in it is marked `[copied]`."""
    from ..integrations.fenced import copies_marked

    return "\n".join(f"{MARK[i.status]} {copies_marked(one_line(i.content))}" for i in items)


async def _todo_write(todos: list[TodoItem]) -> str:
    """Write the whole plan for a multi-step task, every item each time: it replaces the previous list. Keep one item in_progress; mark items done as soon as they are. The plan survives context compactions.

    Args:
        todos: Every item of the plan, in order, with its status.
    """
    raise NotImplementedError  # its signature and docstring are the tool's schema and description (todo_toolset)


_ITEMS: TypeAdapter[list[TodoItem]] = TypeAdapter(list[TodoItem])


def todo_toolset(plan: TodoList) -> FunctionToolset[Any]:
    """`todo_write`, advertised with the schema its typed signature gives, and arguments checked
    here: a wrong status is one plain line naming the allowed ones (pydantic-ai handed the model,
    and the REPL showed, its validation errors as JSON), and the plan is left as it was."""
    typed = FunctionToolset([_todo_write]).tools["_todo_write"]

    async def todo_write(todos: Any = None) -> Any:
        try:
            items = _ITEMS.validate_python(todos)
        except ValidationError as e:
            return ToolReturn(return_value=f"{refusal(e)}; the plan is unchanged",
                              metadata=mark(None, "tool", {"error": True}))
        return plan.write(items)

    tool = Tool.from_schema(todo_write, "todo_write", typed.description, typed.function_schema.json_schema)
    return FunctionToolset([tool])


def refusal(error: ValidationError) -> str:
    """The first thing wrong with todo_write's arguments, in one line."""
    first = error.errors()[0]
    loc = first.get("loc", ())
    given = first.get("input")
    if not loc:
        return "todos is missing: send the whole plan as a list of {content, status} items" if given is None \
            else "todos must be a list of {content, status} items"
    item = f"item {int(loc[0]) + 1}"
    if len(loc) == 1:
        return f"{item} must be a {{content, status}} item, not {got(given)}"
    if loc[1] == "status":
        return f"{item}: status {got(given)} is not one of {', '.join(typing.get_args(Status))}"
    return f"{item}: no content" if first.get("type") == "missing" else f"{item}: content must be text"


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
