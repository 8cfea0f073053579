"""A value misspelt where the command line takes one of a few names is answered with the name it
was close to, as a misspelt option or command is: `analyze -s our` and `--allowed-tools bsh` listed
the names without saying which one was meant."""

from __future__ import annotations

import pytest

from compact_agent.agent.tools.names import TOOL_NAMES

TOOLS = (f"use one of {', '.join(TOOL_NAMES)} or bash(PATTERN), or an MCP server's tool as the model calls it, "
         "SERVER_TOOL (a pattern of them goes in the server's allow_tools)")  # every tool, in TOOL_NAMES' order


@pytest.mark.parametrize(("args", "said"), [
    (("analyze", ".", "-s", "our"),
     "unknown strategy 'our'; did you mean ours? (choose from ours, none, seed000, seed000-submit, codex, "
     "masking, opencode, gemini, cline, anthropic-clear)"),
    (("analyze", ".", "-s", "ours", "-s", "antropic-clear"),
     "unknown strategy 'antropic-clear'; did you mean anthropic-clear? (choose from ours, none, seed000, "
     "seed000-submit, codex, masking, opencode, gemini, cline, anthropic-clear)"),
    (("analyze", ".", "--pricing", "antropic"),
     "unknown pricing 'antropic'; did you mean anthropic? (choose from deepseek, anthropic)"),
    (("-p", "hi", "--allowed-tools", "bsh"),
     f"--allowed-tools: unknown tool 'bsh'; did you mean bash? ({TOOLS})"),
    (("-p", "hi", "--allowed-tools", "bash,edit_fil"),
     f"--allowed-tools: unknown tool 'edit_fil'; did you mean edit_file? ({TOOLS})"),
])
def test_a_name_misspelt_is_answered_with_the_one_meant(cli, args, said):
    res = cli(*args, "--model", "fake-model") if args[0] == "-p" else cli(*args)
    assert (res.code, res.stderr, res.stdout) == (2, f"compact-agent: {said}\n", "")
    assert cli.sessions() == []


@pytest.mark.parametrize(("args", "said"), [
    (("analyze", ".", "-s", "xyz"), "unknown strategy 'xyz' (choose from ours, "),
    (("-p", "hi", "--allowed-tools", "zzz"), f"--allowed-tools: unknown tool 'zzz'; {TOOLS}\n"),
    # a pattern of an MCP server's tools is no name the model calls: the line says where one goes
    (("-p", "hi", "--allowed-tools", "notes_*"), f"--allowed-tools: unknown tool 'notes_*'; {TOOLS}\n"),
])
def test_a_name_like_none_gets_no_guess(cli, args, said):
    res = cli(*args)
    assert res.code == 2 and res.stderr.startswith(f"compact-agent: {said}") and "did you mean" not in res.stderr
