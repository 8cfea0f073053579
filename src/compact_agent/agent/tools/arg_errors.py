"""A tool call whose arguments do not fit its schema, said in plain words to the model and the user.

pydantic-ai checks a call's arguments against the tool's signature and, when they do not fit,
sends its validation errors back as JSON (`{"error":[{"type":"missing","loc":["path"],...}]}`),
which the REPL then showed as the call's result. `PlainArgumentErrors` is the one place that
turns them into one line per problem (`read_file: \\`path\\` is missing`, `edit_file:
\\`old_string\\` must be text, got a number`) and a last line saying how to call the tool
(`retry_text`). It stays a retry: the call is not run and counts against the tool's retries, so a
model that keeps sending the same bad call still ends the turn instead of looping.
"""

from __future__ import annotations

from typing import Any

from pydantic import ValidationError
from pydantic_ai import ModelRetry, RunContext
from pydantic_ai.capabilities import AbstractCapability
from pydantic_ai.messages import ToolCallPart
from pydantic_ai.tools import ToolDefinition

from ...words import quoted

MAX_PROBLEMS = 5
NOT_RUN = "The call was not run."
"""Begins the line for the model only (how to call the tool again); `shown_lines` leaves it out."""

_EXPECTED = {
    "string_type": "text", "string_sub_type": "text",
    "int_type": "a whole number", "int_parsing": "a whole number", "int_from_float": "a whole number",
    "float_type": "a number", "float_parsing": "a number",
    "bool_type": "true or false", "bool_parsing": "true or false",
    "list_type": "a list", "tuple_type": "a list",
    "dict_type": "an object", "model_type": "an object", "model_attributes_type": "an object",
}  # fmt: skip
_JSON_TYPES = {
    "string": "text",
    "integer": "whole number",
    "number": "number",
    "boolean": "true or false",
    "array": "list",
    "object": "object",
}


class PlainArgumentErrors(AbstractCapability[Any]):
    """Add to an Agent's capabilities: every tool's argument errors become `retry_text`."""

    async def on_tool_validate_error(
        self,
        ctx: RunContext[Any],
        *,
        call: ToolCallPart,
        tool_def: ToolDefinition,
        args: str | dict[str, Any],
        error: ValidationError | ModelRetry,
    ) -> dict[str, Any]:
        if isinstance(error, ValidationError):
            raise ModelRetry(retry_text(tool_def.name, tool_def.parameters_json_schema, error)) from None
        raise error


def retry_text(tool: str, schema: dict[str, Any], error: ValidationError) -> str:
    """One line per problem, then how to call the tool: what the model is told instead of the call's result."""
    lines = problem_lines(tool, schema, error)
    takes = arguments_of(schema)
    return "\n".join(
        [*lines, f"{NOT_RUN} Call {tool} again with its arguments fixed" + (f": {takes}." if takes else ".")]
    )


def shown_lines(text: str) -> list[str]:
    """The problems of a `retry_text`, without the line meant for the model: what the REPL shows."""
    return [ln for ln in text.splitlines() if ln.strip() and not ln.startswith(NOT_RUN)]


def problem_lines(tool: str, schema: dict[str, Any], error: ValidationError) -> list[str]:
    takes = ", ".join(schema.get("properties") or {}) or "no arguments"
    lines: list[str] = []
    for e in error.errors(include_url=False):
        line = f"{tool}: {_problem(takes, e)}"
        if line not in lines:
            lines.append(line)
    if len(lines) > MAX_PROBLEMS:
        lines[MAX_PROBLEMS:] = [f"{tool}: … and {len(lines) - MAX_PROBLEMS} more problems"]
    return lines


def _problem(takes: str, e: Any) -> str:
    kind, loc, given = e.get("type", ""), tuple(e.get("loc", ())), e.get("input")
    if kind == "json_invalid":
        return "the arguments are not valid JSON; send them as one JSON object"
    if not loc:
        if kind in ("dict_type", "model_type", "model_attributes_type", "arguments_type"):
            return f"the arguments must be one JSON object, got {got(given)}"
        return _own_words(e.get("msg", "the arguments do not fit"))
    name = _name(loc)
    if kind in ("missing", "missing_argument", "missing_keyword_only_argument"):
        return f"`{name}` is missing"
    if kind in ("extra_forbidden", "unexpected_keyword_argument"):
        return f"no argument `{name}` (it takes {takes})"
    if kind == "literal_error" and (expected := (e.get("ctx") or {}).get("expected")):
        return f"`{name}` must be one of {str(expected).replace(' or ', ', ')}, got {got(given)}"
    if kind in _EXPECTED:
        return f"`{name}` must be {_EXPECTED[kind]}, got {got(given)}"
    return f"`{name}` {_own_words(e.get('msg', 'does not fit'))}"


def _name(loc: tuple[Any, ...]) -> str:
    """`todos[0].status` for ("todos", 0, "status")."""
    out = str(loc[0])
    for part in loc[1:]:
        out += f"[{part}]" if isinstance(part, int) else f".{part}"
    return out


def _own_words(msg: str) -> str:
    """pydantic's message without its "Input": `should be greater than 0`."""
    msg = " ".join(str(msg).split())
    if msg.startswith("Input "):
        msg = msg[len("Input ") :]
    return msg[:1].lower() + msg[1:]


def got(value: Any) -> str:
    """What the model sent, in words: `a number`, `'ten'` (text as sent, not Python's `"it's"`), `a
    list`, `null`."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int | float):
        return "a number"
    if isinstance(value, str):
        shown = quoted(value)
        return shown if len(shown) <= 32 else shown[:30] + "…'"
    if isinstance(value, list | tuple):
        return "a list"
    if isinstance(value, dict):
        return "an object"
    return type(value).__name__


def arguments_of(schema: dict[str, Any]) -> str:
    """`path (text, required), offset (whole number)`: the tool's arguments as the model should send them."""
    required = set(schema.get("required") or ())
    parts = []
    for name, prop in (schema.get("properties") or {}).items():
        kind = _JSON_TYPES.get(prop.get("type", "") if isinstance(prop, dict) else "", "")
        notes = ", ".join(x for x in (kind, "required" if name in required else "") if x)
        parts.append(f"{name} ({notes})" if notes else name)
    return ", ".join(parts)
