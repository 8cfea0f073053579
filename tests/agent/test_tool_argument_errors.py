"""What a tool call with arguments that do not fit its schema is told, in words (arg_errors.py):
one line per problem naming the tool and the argument, and a last line, for the model only, saying
how to call the tool. pydantic-ai's own validation JSON (`{"type":"missing","loc":["path"],...}`)
was what the model read and the REPL showed."""

from __future__ import annotations

from typing import Any

import pytest
from pydantic import ValidationError

from compact_agent.agent.tools.arg_errors import NOT_RUN, retry_text, shown_lines
from compact_agent.agent.tools.base import ToolEnv
from compact_agent.agent.tools.toolset import build_toolset


def told(env: ToolEnv, tool: str, args: Any) -> str:
    """What the model is told for `tool(**args)`, from the real tool's own validator and schema."""
    t = build_toolset(env).tools[tool]
    with pytest.raises(ValidationError) as e:
        if isinstance(args, str):
            t.function_schema.validator.validate_json(args)
        else:
            t.function_schema.validator.validate_python(args)
    return retry_text(tool, t.function_schema.json_schema, e.value)


@pytest.mark.parametrize(("tool", "args", "line"), [
    ("read_file", {}, "read_file: `path` is missing"),
    ("edit_file", {"path": "a.py", "old_string": 3, "new_string": "x"},
     "edit_file: `old_string` must be text, got a number"),
    ("read_file", {"path": "a.py", "offset": "ten"}, "read_file: `offset` must be a whole number, got 'ten'"),
    ("bash", {"command": "ls", "timeout": [1]}, "bash: `timeout` must be a number, got a list"),
    ("edit_file", {"path": "a", "old_string": "x", "new_string": "y", "replace_all": "sometimes"},
     "edit_file: `replace_all` must be true or false, got 'sometimes'"),
    ("grep", {"pattern": "x", "paths": "src"}, "grep: no argument `paths` (it takes pattern, path, glob)"),
    ("write_file", {"path": None, "content": "x"}, "write_file: `path` must be text, got null"),
    ("glob", '{"pattern": "*.py"', "glob: the arguments are not valid JSON; send them as one JSON object"),
    ("glob", "[1, 2]", "glob: the arguments must be one JSON object, got a list"),
    ("read_file", {"path": "a.py", "offset": "it's\\x"}, "read_file: `offset` must be a whole number, got 'it's\\x'"),
])  # fmt: skip
def test_each_problem_is_one_plain_line(env: ToolEnv, tool: str, args: Any, line: str) -> None:
    text = told(env, tool, args)
    assert line in text.splitlines(), text
    assert "loc" not in text and "Field required" not in text and "Input should" not in text


def test_every_problem_has_its_line_and_the_model_is_told_how_to_call_again(env: ToolEnv) -> None:
    text = told(env, "edit_file", {"path": "a.py", "old_string": 3, "new_string": "x", "bogus": 1})
    assert text.splitlines() == [
        "edit_file: `old_string` must be text, got a number",
        "edit_file: no argument `bogus` (it takes path, old_string, new_string, replace_all)",
        f"{NOT_RUN} Call edit_file again with its arguments fixed: path (text, required), old_string (text, "
        "required), new_string (text, required), replace_all (true or false).",
    ]
    assert shown_lines(text) == text.splitlines()[:2]  # the user sees the problems, not the hint


@pytest.mark.parametrize(("todos", "line"), [
    ([{"content": "look", "status": "it's\\x"}], "item 1: status 'it's\\x' is not one of pending, in_progress, done"),
    ([{"content": "look", "status": {"a": 1}}], "item 1: status an object is not one of pending, in_progress, done"),
    (["it's\\x"], "item 1 must be a {content, status} item, not 'it's\\x'"),
])
def test_a_value_sent_is_quoted_as_sent(todos: list[Any], line: str) -> None:
    """Text the model sent is shown as sent and anything else in words: Python's form put text
    holding a quote in double quotes and doubled each backslash, and showed an object as {'a': 1}."""
    from compact_agent.agent.tools.todos import _ITEMS, refusal

    with pytest.raises(ValidationError) as e:
        _ITEMS.validate_python(todos)
    assert refusal(e.value) == line
