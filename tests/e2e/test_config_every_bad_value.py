"""`autocompact_buffer = -5` and `bash_timeout_s = "x"` in config.toml: the command line says both
in one line and exits 2 (it said the first, and the second once the first was fixed)."""

from __future__ import annotations


def test_the_command_line_says_them_all_and_exits_2(cli) -> None:
    config = cli.home / "config.toml"
    config.parent.mkdir(parents=True, exist_ok=True)
    config.write_text('autocompact_buffer = -5\nbash_timeout_s = "x"\n')
    run = cli("-p", "hi", "--model", "fake-model", "--base-url", "http://127.0.0.1:9/v1", "--api-key", "k")
    assert run.code == 2 and run.stdout == "", run.stdout + run.stderr
    [line] = run.stderr.splitlines()
    assert line.startswith(f"compact-agent: bad values for 2 settings (from {config}): autocompact_buffer: ") and \
        "; bash_timeout_s: expected a number" in line, line


def test_bad_variables_hooks_and_servers_are_said_together_too(cli) -> None:
    """Two list variables that are not JSON, two hooks that could never run and an MCP server that
    could never start: the first of them stopped start-up, and the next was said once it was fixed."""
    config = cli.home / "config.toml"
    config.parent.mkdir(parents=True, exist_ok=True)
    config.write_text('[hooks]\nPreKompact = "x"\nPostCompact = [{command = "a", timeout = -1}]\n'
                      '[mcp_servers.docs]\nargs = ["a"]\n')
    run = cli("config", env={"COMPACT_AGENT_CONFIG": str(config), "COMPACT_AGENT_DENY_BASH": '["rm *",',
                             "COMPACT_AGENT_EXTRA_DIRS": "[../shared"})
    assert run.code == 2 and run.stdout == "", run.stdout + run.stderr
    [line] = run.stderr.splitlines()
    assert line.startswith("compact-agent: bad values for 5 settings: "), line
    for said in (f"hooks.PreKompact (from {config}): not a hook event",
                 f"hooks.PostCompact (from {config}): timeout must be",
                 f"mcp_servers.docs (from {config}): give either command",
                 "deny_bash (from env COMPACT_AGENT_DENY_BASH): expected JSON",
                 "extra_dirs (from env COMPACT_AGENT_EXTRA_DIRS): expected JSON"):
        assert said in line, line
    assert "Error" not in line and "Traceback" not in run.stderr, line
