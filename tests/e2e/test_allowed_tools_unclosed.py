"""`--allowed-tools 'bash('` said `unknown tool 'bash('`, though bash is a tool: the rule's
parenthesis is not closed, and the line now says that, naming the rule; one that gives no pattern
(`bash()`) is said too. A comma inside a rule's
parenthesis is the pattern's, not a separator (`bash(git log --format=%h,%s)` was cut in two and
refused)."""

from __future__ import annotations

import pytest

from compact_agent.cli_allowed import allowed_rules

ARGS = ("--model", "fake-model", "--base-url", "http://127.0.0.1:9/v1", "--api-key", "k")


def refused(cli, rule: str) -> str:  # noqa: ANN001 - the fixture's runner
    """The one line `--allowed-tools RULE` is refused with (exit 2, nothing on stdout)."""
    run = cli("-p", "hi", "--allowed-tools", rule, *ARGS)
    assert run.code == 2 and run.stdout == "", run.stdout + run.stderr
    return run.stderr


@pytest.mark.parametrize("rule", ["bash(", "bash(pytest *", "write_file,bash(ls"])
def test_an_unclosed_rule_is_named(cli, rule: str) -> None:
    named = rule.split(",")[-1]
    assert refused(cli, rule) == (f"compact-agent: --allowed-tools: the rule '{named}' does not close its "
                                  "parenthesis; write bash(PATTERN), e.g. 'bash(pytest *)'\n")


@pytest.mark.parametrize("rule", ["bash()", "bash(  )", "write_file,bash()"])
def test_a_rule_without_a_pattern_is_named(cli, rule: str) -> None:
    """`bash()` allowed no command at all, silently: the user meant every command, or forgot one."""
    named = rule.split(",")[-1]
    assert refused(cli, rule) == (f"compact-agent: --allowed-tools: the rule '{named}' gives no pattern; write "
                                  "'bash' to allow every command, or bash(PATTERN), e.g. 'bash(pytest *)'\n")


@pytest.mark.parametrize("item", ["bask(ls)", "it's"])
def test_an_unknown_tool_is_named_as_typed(cli, item: str) -> None:
    """Named as typed, not as Python shows a string (a quote in it was shown escaped)."""
    assert f"unknown tool '{item}';" in refused(cli, item)


def test_a_comma_inside_the_parenthesis_is_the_patterns() -> None:
    assert allowed_rules(["bash(git log --format=%h,%s), write_file", "bash(pytest *)"]) == \
        (("write_file",), ["git log --format=%h,%s", "pytest *"])


@pytest.mark.parametrize("rule", ["bash(ls\nrm", "bask\nx"])
def test_a_rule_with_a_line_break_is_named_on_one_line(cli, rule: str) -> None:
    """A line break inside the rule is shown as `\\n`: the refusal stays the one line it says it is."""
    line = refused(cli, rule)
    assert line.count("\n") == 1 and rule.replace("\n", "\\n") in line, line
